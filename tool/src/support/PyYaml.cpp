#include "support/PyYaml.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace opgen::support::pyyaml {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// ---------------------------------------------------------------------------------------------
// PyYAML's implicit resolvers (resolver.py), as hand-written matchers of the whole string.

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool atEnd() const { return i_ == s_.size(); }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  bool eatAny(std::string_view set) {
    if (i_ < s_.size() && set.find(s_[i_]) != std::string_view::npos) return ++i_, true;
    return false;
  }
  bool eatDigit() { return eatAny("0123456789"); }
  // set* ; returns the count
  size_t eatMany(std::string_view set) {
    size_t n = 0;
    while (eatAny(set)) ++n;
    return n;
  }
  bool eatWord(std::string_view w) {
    if (s_.substr(i_, w.size()) == w) return i_ += w.size(), true;
    return false;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  size_t pos() const { return i_; }
  void reset(size_t p) { i_ = p; }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

constexpr std::string_view kDigitsUnderscore = "0123456789_";

// (?::[0-5]?[0-9])+
bool sexagesimalTail(Cursor& c) {
  bool any = false;
  while (c.peek() == ':') {
    size_t save = c.pos();
    c.eat(':');
    size_t start = c.pos();
    size_t n = c.eatMany("0123456789");
    if (n == 0 || n > 2) return c.reset(save), any;
    if (n == 2) {
      c.reset(start);
      if (!c.eatAny("012345")) return c.reset(save), any;
      c.eatDigit();
    }
    any = true;
  }
  return any;
}

// (?:[eE][-+][0-9]+)?
void optionalExponent(Cursor& c) {
  size_t save = c.pos();
  if (c.eatAny("eE") && c.eatAny("-+") && c.eatMany("0123456789") > 0) return;
  c.reset(save);
}

// s is `lower`, or `lower` capitalized, or `lower` in capitals: YAML 1.1's three spellings of a word.
bool isSpelling(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  auto upper = [](char c) { return static_cast<char>(c - 'a' + 'A'); };
  if (s[0] != lower[0] && s[0] != upper(lower[0])) return false;
  if (s.substr(1) == lower.substr(1)) return true;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != upper(lower[i])) return false;
  return true;
}

bool matchesBool(std::string_view s) {
  switch (s.size()) {
    case 2: return isSpelling(s, "no") || isSpelling(s, "on");
    case 3: return isSpelling(s, "yes") || isSpelling(s, "off");
    case 4: return isSpelling(s, "true");
    case 5: return isSpelling(s, "false");
    default: return false;
  }
}

bool matchesNull(std::string_view s) { return s.empty() || s == "~" || isSpelling(s, "null"); }

bool matchesInt(std::string_view s) {
  auto attempt = [&](auto&& body) {
    Cursor c(s);
    c.eatAny("-+");
    return body(c) && c.atEnd();
  };
  return attempt([](Cursor& c) { return c.eatWord("0b") && c.eatMany("01_") > 0; }) ||
         attempt([](Cursor& c) { return c.eat('0') && c.eatMany("01234567_") > 0; }) ||
         attempt([](Cursor& c) {
           if (c.eat('0')) return true;
           return c.eatAny("123456789") && (c.eatMany(kDigitsUnderscore), true);
         }) ||
         attempt([](Cursor& c) { return c.eatWord("0x") && c.eatMany("0123456789abcdefABCDEF_") > 0; }) ||
         attempt([](Cursor& c) { return c.eatAny("123456789") && (c.eatMany(kDigitsUnderscore), true) && sexagesimalTail(c); });
}

bool matchesFloat(std::string_view s) {
  auto attempt = [&](bool sign, auto&& body) {
    Cursor c(s);
    if (sign) c.eatAny("-+");
    return body(c) && c.atEnd();
  };
  return attempt(true,
                 [](Cursor& c) {
                   if (!c.eatDigit()) return false;
                   c.eatMany(kDigitsUnderscore);
                   if (!c.eat('.')) return false;
                   c.eatMany(kDigitsUnderscore);
                   optionalExponent(c);
                   return true;
                 }) ||
         attempt(false,
                 [](Cursor& c) {
                   if (!c.eat('.') || !c.eatDigit()) return false;
                   c.eatMany(kDigitsUnderscore);
                   optionalExponent(c);
                   return true;
                 }) ||
         attempt(true,
                 [](Cursor& c) {
                   if (!c.eatDigit()) return false;
                   c.eatMany(kDigitsUnderscore);
                   if (!sexagesimalTail(c) || !c.eat('.')) return false;
                   c.eatMany(kDigitsUnderscore);
                   return true;
                 }) ||
         attempt(true, [](Cursor& c) { return c.eat('.') && (c.eatWord("inf") || c.eatWord("Inf") || c.eatWord("INF")); }) ||
         attempt(false, [](Cursor& c) { return c.eat('.') && (c.eatWord("nan") || c.eatWord("NaN") || c.eatWord("NAN")); });
}

bool matchesTimestamp(std::string_view s) {
  auto digits = [](Cursor& c, int n) {
    for (int i = 0; i < n; ++i)
      if (!c.eatDigit()) return false;
    return true;
  };
  {
    Cursor c(s);
    if (digits(c, 4) && c.eat('-') && digits(c, 2) && c.eat('-') && digits(c, 2) && c.atEnd()) return true;
  }
  Cursor c(s);
  if (!digits(c, 4) || !c.eat('-') || !c.eatDigit()) return false;
  c.eatDigit();
  if (!c.eat('-') || !c.eatDigit()) return false;
  c.eatDigit();
  if (!c.eatAny("Tt") && c.eatMany(" \t") == 0) return false;
  if (!c.eatDigit()) return false;
  c.eatDigit();
  if (!c.eat(':') || !digits(c, 2) || !c.eat(':') || !digits(c, 2)) return false;
  if (c.eat('.')) c.eatMany("0123456789");
  // (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
  size_t save = c.pos();
  c.eatMany(" \t");
  if (c.eat('Z')) {
  } else if (c.eatAny("-+") && c.eatDigit()) {
    c.eatDigit();
    size_t beforeMinutes = c.pos();
    if (!(c.eat(':') && digits(c, 2))) c.reset(beforeMinutes);
  } else {
    c.reset(save);
  }
  return c.atEnd();
}

bool matchesAnyResolver(std::string_view s) {
  if (s.empty()) return true;  // null
  switch (s.front()) {
    case 'y': case 'Y': case 'n': case 'N': case 't': case 'T': case 'f': case 'F': case 'o': case 'O':
      return matchesBool(s) || matchesNull(s);
    case '~': return matchesNull(s);
    case '<': return s == "<<";
    case '=': return s == "=";
    case '!': case '&': case '*': return s.size() == 1;  // PyYAML's documentation-only "yaml" resolver
    case '.': return matchesFloat(s);
    case '-': case '+': return matchesFloat(s) || matchesInt(s);
    default:
      if (isDigit(s.front())) return matchesFloat(s) || matchesInt(s) || matchesTimestamp(s);
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// libyaml's scalar analysis (yaml_emitter_analyze_scalar) for an emitter without unicode output.

using Byte = unsigned char;

size_t charWidth(Byte b) {
  if ((b & 0x80) == 0x00) return 1;
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 1;  // not UTF-8: step over the byte
}

// Byte at i, or NUL past the end (libyaml's strings are NUL-terminated).
Byte at(std::string_view s, size_t i) { return i < s.size() ? static_cast<Byte>(s[i]) : 0; }

bool isBreakAt(std::string_view s, size_t i) {
  const Byte b = at(s, i);
  return b == '\r' || b == '\n' || (b == 0xC2 && at(s, i + 1) == 0x85) ||
         (b == 0xE2 && at(s, i + 1) == 0x80 && (at(s, i + 2) == 0xA8 || at(s, i + 2) == 0xA9));
}
// Printable ASCII, or a line feed: everything else is escaped (non-ASCII because unicode is off).
bool isPlainAscii(Byte b) { return b == '\n' || (b >= 0x20 && b <= 0x7E); }

// The bytes that the analysis only steps over: printable ASCII but for ' ', ':' and '#'.
constexpr std::array<bool, 256> kOrdinary = [] {
  std::array<bool, 256> table{};
  for (int b = 0x21; b <= 0x7E; ++b) table[b] = b != ':' && b != '#';
  return table;
}();

// The indicators that forbid a plain scalar when they are its first byte.
constexpr std::array<bool, 256> kLeadingIndicator = [] {
  std::array<bool, 256> table{};
  for (char c : std::string_view("#,[]{}&*!|>'\"%@`")) table[static_cast<Byte>(c)] = true;
  return table;
}();

struct Analysis {
  bool multiline = false;
  bool blockPlainAllowed = true;
  bool singleQuotedAllowed = true;
};

// Outside printable ASCII (and not '\n'): libyaml escapes it, so only double quotes remain; a line
// break still makes the scalar multiline (which only matters for keys).
Analysis analyzeSpecial(std::string_view s) {
  Analysis a;
  a.blockPlainAllowed = false;
  a.singleQuotedAllowed = false;
  for (size_t i = 0; i < s.size(); i += charWidth(at(s, i)))
    if (isBreakAt(s, i)) a.multiline = true;
  return a;
}

Analysis analyze(std::string_view s) {
  Analysis a;
  if (s.empty()) return a;  // block plain and single quotes allowed, not multiline
  // One pass over printable ASCII and '\n' (whose line breaks are '\n' and blanks ' ' and '\n');
  // anything else is escaped, so the scalar is double-quoted: analyzeSpecial.
  auto blankz = [&](size_t i) { return i >= s.size() || s[i] == ' ' || s[i] == '\n'; };
  bool blockIndicators = s.substr(0, 3) == "---" || s.substr(0, 3) == "...";
  bool lineBreaks = false, breakSpace = false, spaceBreak = false;
  bool previousSpace = false, previousBreak = false;
  const char first = s.front();
  if (kLeadingIndicator[static_cast<Byte>(first)]) blockIndicators = true;
  if ((first == '?' || first == ':' || first == '-') && blankz(1)) blockIndicators = true;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (kOrdinary[static_cast<Byte>(c)]) {  // most bytes: the same as the switch's default
      previousSpace = false;
      previousBreak = false;
      continue;
    }
    if (!isPlainAscii(static_cast<Byte>(c))) return analyzeSpecial(s);
    switch (c) {
      case ':':
        if (i > 0 && blankz(i + 1)) blockIndicators = true;
        break;
      case '#':
        if (i > 0 && blankz(i - 1)) blockIndicators = true;
        break;
      case ' ':
        if (previousBreak) breakSpace = true;
        previousSpace = true;
        previousBreak = false;
        continue;
      case '\n':
        lineBreaks = true;
        if (previousSpace) spaceBreak = true;
        previousSpace = false;
        previousBreak = true;
        continue;
      default: break;
    }
    previousSpace = false;
    previousBreak = false;
  }
  const bool edgeBlank = blankz(0) || s.back() == ' ' || s.back() == '\n';
  a.multiline = lineBreaks;
  if (edgeBlank || lineBreaks || blockIndicators) a.blockPlainAllowed = false;
  if (breakSpace || spaceBreak) {
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
  }
  return a;
}

enum class Style { Plain, SingleQuoted, DoubleQuoted };

// libyaml's yaml_emitter_select_scalar_style in block context. `plainImplicit`: PyYAML's resolver
// would read the plain text back as the same type.
Style selectStyle(const Analysis& a, size_t length, bool simpleKey, bool plainImplicit) {
  if (simpleKey && a.multiline) return Style::DoubleQuoted;
  Style style = Style::Plain;
  if (!a.blockPlainAllowed || (length == 0 && simpleKey) || !plainImplicit) style = Style::SingleQuoted;
  if (style == Style::SingleQuoted && !a.singleQuotedAllowed) style = Style::DoubleQuoted;
  return style;
}

// The usual str (identifiers, C++ types, schemas), decided in one pass: it starts with a letter, '_'
// or ':', holds printable ASCII only, has no '#', no ':' before a blank or the end, and no trailing
// blank. libyaml's analysis then allows it plain (no indicator, no break, no edge blank), and only
// the bool and null resolvers can match a text starting so. False means "not decided here".
bool plainAtOnce(std::string_view s) {
  const size_t n = s.size();
  if (n == 0) return false;
  const char first = s.front(), last = s.back();
  const bool letter = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z');
  if (!letter && first != '_' && first != ':') return false;
  if (last <= ' ' || last >= 0x7F || last == ':' || last == '#') return false;  // signed: also >= 0x80

  // The other bytes, 16 at a time (GCC/Clang vector types), each with the byte after it.
  using Lanes = signed char __attribute__((vector_size(16)));
  constexpr size_t kLanes = sizeof(Lanes);
  const Lanes zero{};
  Lanes refused{};
  // Tests the bytes at[0..16), followed by next[0..16). Testing a byte twice is harmless.
  auto test = [&](const char* at, const char* next) {
    Lanes c, d;
    std::memcpy(&c, at, kLanes);
    std::memcpy(&d, next, kLanes);
    // Controls and bytes >= 0x80 (negative), DEL, '#', and ':' before ' '.
    refused |= (c < zero + 0x20) | (c == zero + 0x7F) | (c == zero + '#') | ((c == zero + ':') & (d == zero + ' '));
  };
  const char* p = s.data();
  if (n > kLanes) {  // bytes 0 .. n-2 in chunks, the last one overlapping its predecessor
    size_t i = 0;
    for (; i + kLanes < n; i += kLanes) test(p + i, p + i + 1);
    if (i < n - 1) test(p + n - 1 - kLanes, p + n - kLanes);
  } else {  // one chunk, padded with a byte that changes nothing ('x')
    char padded[kLanes + 1];
    std::memset(padded, 'x', sizeof padded);
    std::memcpy(padded, p, n);
    test(padded, padded + 1);
  }
  uint64_t half[2];
  std::memcpy(half, &refused, sizeof half);
  if ((half[0] | half[1]) != 0) return false;
  return !letter || !(matchesBool(s) || matchesNull(s));
}

}  // namespace

// ---------------------------------------------------------------------------------------------


Scalar Scalar::real(double d) {
  if (std::isnan(d)) return Scalar(Kind::Float, ".nan");
  if (std::isinf(d)) return Scalar(Kind::Float, d < 0 ? "-.inf" : ".inf");
  std::string text = pythonFloatRepr(d);
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (text.find('.') == std::string::npos) {
    const size_t e = text.find('e');
    if (e != std::string::npos) text.insert(e, ".0");
  }
  return Scalar(Kind::Float, std::move(text));
}

bool resolvesToStr(std::string_view s) {
  if (matchesAnyResolver(s)) return false;
  // Python's `$` also matches before a final line break.
  if (!s.empty() && s.back() == '\n' && matchesAnyResolver(s.substr(0, s.size() - 1))) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Emitter: libyaml's block emitter state (indent, column, whitespace, indention) and writers.

constexpr int kBestIndent = 2;
// A line break and the spaces of the usual indents.
constexpr std::string_view kBreakThenSpaces = "\n                                ";
constexpr int kMaxFastIndent = static_cast<int>(kBreakThenSpaces.size()) - 1;

Emitter::Emitter(size_t sizeHint, std::string storage) : out_(std::move(storage)) {
  out_.clear();
  out_.reserve(sizeHint);
}

void Emitter::grow(size_t n) {
  // std::string has no uninitialized resize (before C++23): the room is zero-filled, a kilobyte at a
  // time just ahead of the writes, while those lines are in cache (not the whole reserve up front).
  // Within the reserve nothing moves; past it, std::string doubles its capacity.
  constexpr size_t kStep = 1024;
  out_.resize(out_.size() + std::max(n, kStep));
}

void Emitter::put(char c) {
  append(c);
  ++column_;
}

void Emitter::putBreak() {
  append('\n');
  column_ = 0;
}

void Emitter::increaseIndent(bool flow, bool indentless) {
  indents_.push_back(indent_);
  if (indent_ < 0) {
    indent_ = flow ? kBestIndent : 0;
  } else if (!indentless) {
    indent_ += kBestIndent;
  }
}

bool Emitter::breaksLine() const {
  const int indent = indent_ >= 0 ? indent_ : 0;
  return !indention_ || column_ > indent || (column_ == indent && !whitespace_);
}

void Emitter::writeIndent() {
  const int indent = indent_ >= 0 ? indent_ : 0;
  // The line break and the spaces up to the indent, appended at once when the indent is usual.
  const bool lineBreak = breaksLine();
  if (lineBreak) column_ = 0;
  const size_t spaces = column_ < indent ? static_cast<size_t>(indent - column_) : 0;
  if (spaces < kBreakThenSpaces.size()) {
    append(lineBreak ? kBreakThenSpaces.substr(0, 1 + spaces) : kBreakThenSpaces.substr(1, spaces));
  } else {
    if (lineBreak) append('\n');
    std::memset(room(spaces), ' ', spaces);
  }
  column_ += static_cast<long>(spaces);
  whitespace_ = true;
  indention_ = true;
}

void Emitter::writeIndicator(std::string_view indicator, bool needWhitespace, bool isWhitespace, bool isIndention) {
  if (needWhitespace && !whitespace_) put(' ');
  append(indicator);
  column_ += static_cast<long>(indicator.size());
  whitespace_ = isWhitespace;
  indention_ = indention_ && isIndention;
}

void Emitter::writePlain(std::string_view s) {
  // Plain scalars never hold line breaks (the analysis forbids it) and never fold (width 10^9).
  if (!whitespace_) put(' ');
  append(s);
  column_ += static_cast<long>(s.size());
  whitespace_ = false;
  indention_ = false;
}

void Emitter::writeSingleQuoted(std::string_view s) {
  writeIndicator("'", true, false, false);
  bool breaks = false;
  for (char c : s) {
    if (c == ' ') {
      put(c);  // never folded (width 10^9)
    } else if (c == '\n') {
      // Only '\n' can be a line break here: the other breaks are escaped, so double-quoted.
      if (!breaks) putBreak();
      putBreak();
      indention_ = true;
      breaks = true;
    } else {
      if (breaks) writeIndent();
      if (c == '\'') put('\'');
      put(c);
      indention_ = false;
      breaks = false;
    }
  }
  if (breaks) writeIndent();
  writeIndicator("'", false, false, false);
  whitespace_ = false;
  indention_ = false;
}

void Emitter::writeDoubleQuoted(std::string_view s) {
  writeIndicator("\"", true, false, false);
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < s.size();) {
    const Byte b = at(s, i);
    const size_t width = charWidth(b);
    const bool bom = b == 0xEF && at(s, i + 1) == 0xBB && at(s, i + 2) == 0xBF;
    if (isPlainAscii(b) && b != '\n' && b != '"' && b != '\\' && !bom) {
      put(static_cast<char>(b));
      ++i;
      continue;
    }
    // Decode the character and escape it.
    unsigned value = width == 1 ? b : width == 2 ? (b & 0x1Fu) : width == 3 ? (b & 0x0Fu) : (b & 0x07u);
    for (size_t k = 1; k < width; ++k) value = (value << 6) + (at(s, i + k) & 0x3Fu);
    i += width;
    put('\\');
    switch (value) {
      case 0x00: put('0'); break;
      case 0x07: put('a'); break;
      case 0x08: put('b'); break;
      case 0x09: put('t'); break;
      case 0x0A: put('n'); break;
      case 0x0B: put('v'); break;
      case 0x0C: put('f'); break;
      case 0x0D: put('r'); break;
      case 0x1B: put('e'); break;
      case 0x22: put('"'); break;
      case 0x5C: put('\\'); break;
      case 0x85: put('N'); break;
      case 0xA0: put('_'); break;
      case 0x2028: put('L'); break;
      case 0x2029: put('P'); break;
      default: {
        int digits = 8;
        if (value <= 0xFF) {
          put('x');
          digits = 2;
        } else if (value <= 0xFFFF) {
          put('u');
          digits = 4;
        } else {
          put('U');
        }
        for (int k = (digits - 1) * 4; k >= 0; k -= 4) put(kHex[(value >> k) & 0x0F]);
      }
    }
  }
  writeIndicator("\"", false, false, false);
  whitespace_ = false;
  indention_ = false;
}

Emitter::Context Emitter::beforeNode(const std::string_view* scalarText, bool multiline) {
  if (levels_.empty()) {
    mappingContext_ = false;
    return Context::Root;
  }
  Level& top = levels_.back();
  if (!top.mapping) {
    writeIndent();
    writeIndicator("-", true, false, true);
    mappingContext_ = false;
    return Context::SequenceItem;
  }
  mappingContext_ = true;
  if (!top.expectValue) {
    writeIndent();
    // libyaml's check_simple_key: a one-line scalar of at most 128 bytes.
    top.simpleKey = scalarText != nullptr && scalarText->size() <= 128 && !multiline;
    if (!top.simpleKey) writeIndicator("?", true, false, true);
    return Context::MappingKey;
  }
  if (top.simpleKey) {
    writeIndicator(":", false, false, false);
  } else {
    writeIndent();
    writeIndicator(":", true, false, true);
  }
  return Context::MappingValue;
}

void Emitter::afterNode() {
  if (!levels_.empty() && levels_.back().mapping) levels_.back().expectValue = !levels_.back().expectValue;
}

void Emitter::scalar(const Scalar& s) {
  // Only a str needs the analysis: the other kinds print as one-line plain scalars.
  if (s.kind() == Scalar::Kind::Str) str(s.text());
  else plainNode(s.text());
}

void Emitter::str(std::string_view s) {
  if (plainAtOnce(s)) plainNode(s);
  else analyzedStr(s);
}

void Emitter::plainNode(std::string_view text) {
  // The usual keys and values, written at once: what beforeNode(), writeIndent() and writePlain()
  // would write.
  if (!levels_.empty() && levels_.back().mapping) {
    Level& top = levels_.back();
    if (top.expectValue && top.simpleKey) {  // `: text`, on its key's line
      char* at = room(2 + text.size());
      at[0] = ':';
      at[1] = ' ';
      std::memcpy(at + 2, text.data(), text.size());
      column_ += static_cast<long>(2 + text.size());
      whitespace_ = false;
      indention_ = false;
      mappingContext_ = true;
      top.expectValue = false;
      return;
    }
    // A simple key after a value (not after a "- "): a line break, the indent, the text.
    if (!top.expectValue && !indention_ && text.size() <= 128 && indent_ >= 0 && indent_ < kMaxFastIndent) {
      const size_t spaces = static_cast<size_t>(indent_);
      char* at = room(1 + spaces + text.size());
      std::memcpy(at, kBreakThenSpaces.data(), 1 + spaces);
      std::memcpy(at + 1 + spaces, text.data(), text.size());
      column_ = static_cast<long>(spaces + text.size());
      whitespace_ = false;
      mappingContext_ = true;
      top.simpleKey = true;
      top.expectValue = true;
      return;
    }
  }
  // A plain scalar writes no indent, so it needs no increased one.
  beforeNode(&text, /*multiline=*/false);
  writePlain(text);
  afterNode();
}

void Emitter::analyzedStr(std::string_view text) {
  const Analysis analysis = analyze(text);
  const Context context = beforeNode(&text, analysis.multiline);
  const bool simpleKey = context == Context::MappingKey && levels_.back().simpleKey;
  const Style style = selectStyle(analysis, text.size(), simpleKey, resolvesToStr(text));
  // increaseIndent(flow, !indentless) for the scalar alone: its indent is restored right after.
  const int enclosingIndent = indent_;
  indent_ = indent_ < 0 ? kBestIndent : indent_ + kBestIndent;
  switch (style) {
    case Style::Plain: writePlain(text); break;
    case Style::SingleQuoted: writeSingleQuoted(text); break;
    case Style::DoubleQuoted: writeDoubleQuoted(text); break;
  }
  indent_ = enclosingIndent;
  afterNode();
}

void Emitter::beginSequence() {
  beforeNode(nullptr, false);
  increaseIndent(false, mappingContext_ && !indention_);
  levels_.push_back(Level{});
}

void Emitter::beginMapping() {
  beforeNode(nullptr, false);
  increaseIndent(false, false);
  levels_.push_back(Level{.mapping = true});
}

void Emitter::endSequence() {
  assert(!levels_.empty() && !levels_.back().mapping);
  levels_.pop_back();
  indent_ = indents_.back();
  indents_.pop_back();
  afterNode();
}

void Emitter::endMapping() {
  assert(!levels_.empty() && levels_.back().mapping && !levels_.back().expectValue);
  levels_.pop_back();
  indent_ = indents_.back();
  indents_.pop_back();
  afterNode();
}

void Emitter::emptySequence() {
  beforeNode(nullptr, false);
  writeIndicator("[", true, true, false);
  writeIndicator("]", false, false, false);
  afterNode();
}

void Emitter::emptyMapping() {
  beforeNode(nullptr, false);
  writeIndicator("{", true, true, false);
  writeIndicator("}", false, false, false);
  afterNode();
}

Emitter::ItemStart Emitter::itemStart() const {
  assert(!levels_.empty() && !levels_.back().mapping);
  return {size_, indent_};
}

Emitter::Item Emitter::item(const ItemStart& start) const {
  assert(!levels_.empty() && !levels_.back().mapping && indent_ == start.indent && size_ > start.offset);
  // beforeNode() writes an item's indent first: a line break when it started a new line.
  return Item{.begin = start.offset,
              .end = size_,
              .indent = start.indent,
              .newLine = out_[start.offset] == '\n',
              .column = column_,
              .whitespace = whitespace_,
              .indention = indention_,
              .mappingContext = mappingContext_};
}

bool Emitter::repeatItem(const Item& item) {
  if (!item.newLine || levels_.empty() || levels_.back().mapping || indent_ != item.indent || !breaksLine()) return false;
  const size_t n = item.end - item.begin;
  char* at = room(n);  // before reading the item's text: room() may move the output
  std::memcpy(at, out_.data() + item.begin, n);
  column_ = item.column;
  whitespace_ = item.whitespace;
  indention_ = item.indention;
  mappingContext_ = item.mappingContext;
  afterNode();
  return true;
}

std::string Emitter::finish() {
  assert(levels_.empty());
  writeIndent();  // the implicit document end
  out_.resize(size_);
  return std::move(out_);
}

}  // namespace opgen::support::pyyaml
