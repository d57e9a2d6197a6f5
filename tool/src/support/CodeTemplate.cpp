#include "support/CodeTemplate.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "support/OutputSink.h"

namespace opgen::support {

namespace {

// --- Python's notions of whitespace and line breaks, on UTF-8 text ---------------------------

// The code point of the 2- or 3-byte UTF-8 sequence at s[i] (every non-ASCII character that
// Python counts as whitespace is in the BMP); `len` is 0 when there is no such sequence.
char32_t decodeMultiByte(std::string_view s, size_t i, size_t& len) {
  len = 0;
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  auto isCont = [&](size_t k) { return k < s.size() && (byte(k) & 0xC0) == 0x80; };
  unsigned char lead = byte(i);
  if (lead >= 0xC2 && lead <= 0xDF && isCont(i + 1)) {
    len = 2;
    return (char32_t(lead & 0x1F) << 6) | (byte(i + 1) & 0x3F);
  }
  if (lead >= 0xE0 && lead <= 0xEF && isCont(i + 1) && isCont(i + 2)) {
    len = 3;
    return (char32_t(lead & 0x0F) << 12) | (char32_t(byte(i + 1) & 0x3F) << 6) | (byte(i + 2) & 0x3F);
  }
  return 0;
}

// str.isspace() for one code point.
bool isPySpace(char32_t c) {
  switch (c) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case 0x1C: case 0x1D: case 0x1E:
    case 0x1F: case ' ': case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

// A line boundary for str.splitlines() ("\r\n" is handled by the caller).
bool isPyLineBreak(char32_t c) {
  switch (c) {
    case '\n': case '\v': case '\f': case '\r': case 0x1C: case 0x1D: case 0x1E: case 0x85:
    case 0x2028: case 0x2029:
      return true;
    default:
      return false;
  }
}

// The code point at s[i] and its length in bytes (0 for a byte that starts no character we know).
char32_t charAt(std::string_view s, size_t i, size_t& len) {
  auto lead = static_cast<unsigned char>(s[i]);
  if (lead < 0x80) {
    len = 1;
    return lead;
  }
  return decodeMultiByte(s, i, len);
}

// Bytes taken by the whitespace character at s[i]; 0 if it is not whitespace.
size_t spaceAt(std::string_view s, size_t i) {
  size_t len = 0;
  char32_t c = charAt(s, i, len);
  return len != 0 && isPySpace(c) ? len : 0;
}

// Bytes taken by the line break at s[i]; 0 if there is none.
size_t lineBreakAt(std::string_view s, size_t i) {
  size_t len = 0;
  char32_t c = charAt(s, i, len);
  if (len == 0 || !isPyLineBreak(c)) return 0;
  return c == '\r' && i + 1 < s.size() && s[i + 1] == '\n' ? 2 : len;
}

// Bytes taken by the whitespace character that ends `s`; 0 if there is none.
size_t spaceAtEnd(std::string_view s) {
  for (size_t len = 1; len <= 3 && len <= s.size(); ++len) {
    if (spaceAt(s, s.size() - len) == len) return len;
  }
  return 0;
}

// str.rstrip().
std::string_view rstripped(std::string_view s) {
  while (size_t n = spaceAtEnd(s)) s.remove_suffix(n);
  return s;
}

// True when every character is whitespace (so also for ""): textwrap.indent leaves such lines alone.
bool isBlank(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = spaceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// Calls fn(line) for each line of str.splitlines() (line breaks dropped).
template <typename Fn>
void forEachLine(std::string_view s, Fn&& fn) {
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const size_t br = b >= 0x20 && b < 0x80 ? 0 : lineBreakAt(s, i);  // printable ASCII: no break
    if (br == 0) {
      ++i;
      continue;
    }
    fn(s.substr(start, i - start));
    i += br;
    start = i;
  }
  if (start < s.size()) fn(s.substr(start));
}

// --- Rendering -------------------------------------------------------------------------------

// Block substitution: textwrap.indent over the lines of every item, joined by "\n"; then every line
// and the whole right-stripped. The two passes matter only when the indentation itself holds a
// line break character such as '\f' (Python splits there again).
// torchgen's block substitution: textwrap.indent every line of every item, split the result into
// lines again, right-strip each, right-strip the whole.
template <class Items>  // a vector of std::string or std::string_view
void appendBlockGeneral(std::string& out, std::string_view indent, const Items& items) {
  std::string indented;
  bool first = true;
  for (std::string_view item : items) {
    forEachLine(item, [&](std::string_view line) {
      if (!first) indented += '\n';
      first = false;
      if (!isBlank(line)) indented += indent;
      indented += line;
    });
  }
  const size_t start = out.size();
  first = true;
  forEachLine(indented, [&](std::string_view line) {
    if (!first) out += '\n';
    first = false;
    out += rstripped(line);
  });
  out.resize(start + rstripped(std::string_view(out).substr(start)).size());
}

// What decides how a block item is rendered. Plain: ASCII whose only control characters are '\n'
// and '\t', so that its line breaks are exactly its '\n's and its only whitespace is ' ', '\t'
// and '\n'. Trailing space: some line ends with ' ' or '\t'.
struct TextShape {
  bool plain = true;
  bool trailingSpace = false;
};

// Read as signed, the bytes from 0x80 up are negative: one comparison finds them and the controls.
bool isSpecialByte(signed char c) { return c < 0x20 && c != '\n' && c != '\t'; }
bool isBlankByte(signed char c) { return c == ' ' || c == '\t'; }

// The shape of `s`; trailing space is only looked for when `findTrailing` (else reported false).
// Every byte of every block item passes through here (most of the generated text): GCC and Clang
// test 16 bytes at once with their portable vector types.
TextShape shapeOf(std::string_view s, bool findTrailing) {
  const auto* p = reinterpret_cast<const signed char*>(s.data());
  const size_t n = s.size();
  if (n == 0) return {};
  bool special = isSpecialByte(p[0]);
  bool trailing = findTrailing && isBlankByte(p[n - 1]);
#if defined(__GNUC__)
  using Lanes = signed char __attribute__((vector_size(16)));
  constexpr size_t kLanes = sizeof(Lanes);
  const Lanes zero{};
  Lanes specialLanes{}, trailingLanes{};
  // Tests the bytes at[0..16), whose preceding bytes are before[0..16). Testing a byte twice is harmless.
  auto test = [&](const signed char* at, const signed char* before) {
    Lanes c, b;
    std::memcpy(&c, at, kLanes);
    std::memcpy(&b, before, kLanes);
    // The controls but '\n' and '\t' (which are among them, so xor takes them out), and bytes >= 0x80.
    const Lanes newline = c == zero + '\n';
    specialLanes |= (c < zero + 0x20) ^ newline ^ (c == zero + '\t');
    if (findTrailing) trailingLanes |= newline & ((b == zero + ' ') | (b == zero + '\t'));
  };
  if (n > kLanes) {  // bytes 1 .. n-1 in chunks, the last one overlapping its predecessor
    size_t i = 1;
    for (; i + kLanes <= n; i += kLanes) test(p + i, p + i - 1);
    if (i < n) test(p + n - kLanes, p + n - kLanes - 1);
  } else {  // one chunk, padded with a byte that changes nothing ('x': not special, blank or '\n')
    signed char padded[kLanes + 1];
    std::memset(padded, 'x', sizeof padded);
    std::memcpy(padded, p, n);
    test(padded + 1, padded);
  }
  auto any = [](const Lanes& v) {
    uint64_t half[2];
    std::memcpy(half, &v, sizeof half);
    return (half[0] | half[1]) != 0;
  };
  special = special || any(specialLanes);
  trailing = trailing || any(trailingLanes);
#else
  for (size_t i = 1; i < n; ++i) {
    special = special || isSpecialByte(p[i]);
    trailing = trailing || (findTrailing && p[i] == '\n' && isBlankByte(p[i - 1]));
  }
#endif
  return {!special, trailing};
}

// str.rstrip() of plain text (see TextShape).
std::string_view rstrippedPlain(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// Calls fn(line) for each line of str.splitlines() of plain text (see TextShape).
template <typename Fn>
void forEachPlainLine(std::string_view s, Fn&& fn) {
  while (!s.empty()) {
    const size_t nl = s.find('\n');
    if (nl == std::string_view::npos) {
      fn(s);
      return;
    }
    fn(s.substr(0, nl));
    s.remove_prefix(nl + 1);
  }
}

template <class Items>  // a vector of std::string or std::string_view
void appendBlock(std::string& out, std::string_view indent, const Items& items) {
  // An indentation of other whitespace (\f, \x1c, ...) can itself break lines in Python: take the
  // general path. With spaces and tabs only, one pass gives the same text without the copy.
  if (indent.find_first_not_of(" \t") != std::string_view::npos) return appendBlockGeneral(out, indent, items);
  const size_t start = out.size();
  size_t bytes = 0;
  for (std::string_view item : items) bytes += item.size() + indent.size() + 1;
  out.reserve(start + bytes);
  bool first = true;
  auto appendLine = [&](std::string_view kept) {
    if (!first) out += '\n';
    first = false;
    if (kept.empty()) return;  // a blank line: no indentation, nothing left after stripping
    out += indent;
    out += kept;
  };
  for (std::string_view item : items) {
    const TextShape shape = shapeOf(item, /*findTrailing=*/indent.empty());
    if (!shape.plain) {
      forEachLine(item, [&](std::string_view line) { appendLine(rstripped(line)); });
    } else if (!indent.empty() || shape.trailingSpace) {
      forEachPlainLine(item, [&](std::string_view line) { appendLine(rstrippedPlain(line)); });
    } else if (!item.empty()) {
      // Every line stays as it is: the item's lines joined by '\n' are the item without its last '\n'.
      if (!first) out += '\n';
      first = false;
      out.append(item.data(), item.size() - (item.back() == '\n' ? 1 : 0));
    }
  }
  out.resize(start + rstripped(std::string_view(out).substr(start)).size());
}

template <class Items>  // a vector of std::string or std::string_view
void appendInlineList(std::string& out, const Items& items, bool commaBefore, bool commaAfter) {
  if (items.empty()) return;
  if (commaBefore) out += ", ";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (commaAfter) out += ", ";
}

// --- Parsing ---------------------------------------------------------------------------------

bool isIdentStart(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

struct Placeholder {
  std::string_view name;
  bool commaBefore = false;
  bool commaAfter = false;
  size_t end = 0;  // one past the placeholder
};

// The identifier starting at text[i], or "" when none starts there.
std::string_view identAt(std::string_view text, size_t i) {
  if (i >= text.size() || !isIdentStart(text[i])) return {};
  size_t end = i + 1;
  while (end < text.size() && isIdentChar(text[end])) ++end;
  return text.substr(i, end - i);
}

// The placeholder whose `$` is text[dollar]: `$name` or `${[,]name[,]}`.
std::optional<Placeholder> parsePlaceholder(std::string_view text, size_t dollar) {
  Placeholder ph;
  size_t i = dollar + 1;
  if (i < text.size() && text[i] != '{') {
    ph.name = identAt(text, i);
    ph.end = i + ph.name.size();
    return ph.name.empty() ? std::nullopt : std::optional(ph);
  }
  ++i;  // past '{'
  if (i < text.size() && text[i] == ',') {
    ph.commaBefore = true;
    ++i;
  }
  ph.name = identAt(text, i);
  if (ph.name.empty()) return std::nullopt;
  i += ph.name.size();
  if (i < text.size() && text[i] == ',') {
    ph.commaAfter = true;
    ++i;
  }
  if (i >= text.size() || text[i] != '}') return std::nullopt;
  ph.end = i + 1;
  return ph;
}

// Python's universal newlines (text-mode reading): "\r\n" and "\r" become "\n".
std::string universalNewlines(std::string text) {
  if (text.find('\r') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out += text[i];
      continue;
    }
    out += '\n';
    if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
  }
  return out;
}

}  // namespace

// --- TemplateEnv -----------------------------------------------------------------------------

TemplateEnv& TemplateEnv::set(std::string key, std::string value) {
  return set(std::move(key), TemplateValue(std::move(value)));
}

TemplateEnv& TemplateEnv::set(std::string key, std::vector<std::string> items) {
  return set(std::move(key), TemplateValue(std::move(items)));
}

TemplateEnv& TemplateEnv::set(std::string key, TemplateValue value) {
  for (auto& [k, v] : values_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  if (values_.empty()) values_.reserve(8);
  values_.emplace_back(std::move(key), std::move(value));
  return *this;
}

const TemplateValue* TemplateEnv::find(std::string_view key) const {
  for (const auto& [k, v] : values_)
    if (k == key) return &v;
  return nullptr;
}

// --- CodeTemplate ----------------------------------------------------------------------------

CodeTemplate::CodeTemplate(std::string_view text, std::string filename) : filename_(std::move(filename)) {
  size_t lineStart = 0;  // where the line holding text[i] starts
  size_t literalStart = 0;
  int line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      lineStart = i + 1;
      ++line;
      continue;
    }
    if (text[i] != '$') continue;
    std::optional<Placeholder> ph = parsePlaceholder(text, i);
    if (!ph) continue;
    std::string_view before = text.substr(lineStart, i - lineStart);
    const bool block = isBlank(before);
    addLiteral(text.substr(literalStart, (block ? lineStart : i) - literalStart));
    Segment seg;
    seg.kind = block ? Kind::Block : Kind::Inline;
    if (block) seg.text = before;
    seg.name = ph->name;
    seg.commaBefore = ph->commaBefore;
    seg.commaAfter = ph->commaAfter;
    seg.line = line;
    seg.column = static_cast<int>(i - lineStart) + 1;
    segments_.push_back(std::move(seg));
    literalStart = ph->end;
    i = ph->end - 1;
  }
  addLiteral(text.substr(literalStart));
}

void CodeTemplate::addLiteral(std::string_view text) {
  if (text.empty()) return;
  literalSize_ += text.size();
  if (!segments_.empty() && segments_.back().kind == Kind::Literal) {
    segments_.back().text += text;
    return;
  }
  Segment seg;
  seg.text = text;
  segments_.push_back(std::move(seg));
}

std::optional<CodeTemplate> CodeTemplate::fromFile(const std::string& path, Diagnostics& diags) {
  InputFiles inputs(diags);
  return fromFile(path, inputs);
}

std::optional<CodeTemplate> CodeTemplate::fromFile(const std::string& path, InputFiles& inputs) {
  std::optional<std::string> text = inputs.read(path, "template");
  if (!text) return std::nullopt;
  return CodeTemplate(universalNewlines(std::move(*text)), path);
}

std::optional<std::string> CodeTemplate::substitute(const TemplateEnv& env, Diagnostics& diags) const {
  std::string out;
  out.reserve(literalSize_ + literalSize_ / 2);
  if (!substituteInto(out, env, diags)) return std::nullopt;
  return out;
}

bool CodeTemplate::substituteInto(std::string& out, const TemplateEnv& env, Diagnostics& diags) const {
  const size_t start = out.size();
  std::vector<std::string_view> missing;
  for (const Segment& seg : segments_) {
    if (seg.kind == Kind::Literal) {
      out += seg.text;
      continue;
    }
    const TemplateValue* value = env.find(seg.name);
    if (value == nullptr) {
      if (std::find(missing.begin(), missing.end(), seg.name) == missing.end()) {
        missing.push_back(seg.name);
        diags.error(SourceLoc{filename_, seg.line, seg.column},
                    "template variable '" + seg.name + "' is not defined");
      }
      continue;
    }
    if (seg.kind == Kind::Block) {
      if (!value->isList()) appendBlock(out, seg.text, std::array<std::string_view, 1>{value->text()});
      else if (value->isBorrowed()) appendBlock(out, seg.text, value->borrowed());
      else appendBlock(out, seg.text, value->items());
    } else if (!value->isList()) {
      out += value->text();
    } else if (value->isBorrowed()) {
      appendInlineList(out, value->borrowed(), seg.commaBefore, seg.commaAfter);
    } else {
      appendInlineList(out, value->items(), seg.commaBefore, seg.commaAfter);
    }
  }
  if (!missing.empty()) {
    out.resize(start);
    return false;
  }
  return true;
}

std::vector<std::string> CodeTemplate::variables() const {
  std::vector<std::string> names;
  for (const Segment& seg : segments_) {
    if (seg.kind == Kind::Literal) continue;
    if (std::find(names.begin(), names.end(), seg.name) == names.end()) names.push_back(seg.name);
  }
  return names;
}

}  // namespace opgen::support
