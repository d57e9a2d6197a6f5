#include "dest/aten/DefinitionsTemplate.h"

#include <algorithm>
#include <cstring>

namespace opgen::dest {

namespace {

// The text is built line by line, the empty lines left out as they come.

// No byte on which Python's str.splitlines or str.isspace differ from '\n', ' ' and '\t': a control
// other than '\n' and '\t', or a byte of a non-ASCII character. Every byte of the definitions passes
// here: the loop has no early exit and its flag is a byte (not a bool), which GCC vectorizes.
bool isPlainText(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  unsigned char special = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = p[i];
    special |= static_cast<unsigned char>((c >= 0x80) | ((c < 0x20) & (c != '\n') & (c != '\t')));
  }
  return special == 0;
}

// Calls fn(line) for each line of `text` split at '\n' (a last '\n' ends the last line), and
// fn(std::nullopt) for each '\n'.
template <class Fn>
void forEachLineAndBreak(std::string_view text, Fn fn) {
  while (!text.empty()) {
    const void* found = std::memchr(text.data(), '\n', text.size());
    if (found == nullptr) {
      fn(std::optional<std::string_view>(text));
      return;
    }
    const size_t end = static_cast<size_t>(static_cast<const char*>(found) - text.data());
    fn(std::optional<std::string_view>(text.substr(0, end)));
    fn(std::optional<std::string_view>());
    text.remove_prefix(end + 1);
  }
}

// Lines written into a buffer reserved for them, of which the empty ones are dropped (joined by '\n',
// no '\n' after the last). Definitions have some 375,000 lines a run: a line costs two copies and
// a comparison, not std::string's capacity checks.
class LineWriter {
 public:
  explicit LineWriter(char* buffer) : begin_(buffer), pos_(buffer), lineStart_(buffer) {}
  void append(std::string_view s) {  // without '\n'
    std::memcpy(pos_, s.data(), s.size());
    pos_ += s.size();
  }
  void endLine() {
    if (pos_ == lineStart_) return;  // an empty line
    *pos_++ = '\n';
    lineStart_ = pos_;
  }
  // The length written.
  size_t finish() {
    if (pos_ == lineStart_ && pos_ != begin_) --pos_;  // the '\n' of the last line kept
    return static_cast<size_t>(pos_ - begin_);
  }

 private:
  char* begin_;
  char* pos_;
  char* lineStart_;
};

// Block substitution of plain items (support::CodeTemplate's rules): the lines of every item, each
// right-stripped and, unless blank, indented, joined by '\n', the whole right-stripped. The block's
// first line continues the current line; a break before a later line is only written when a line
// that is not empty follows (the empty ones are dropped, and the whole's right strip drops the last
// breaks).
void writeBlock(LineWriter& out, std::string_view indent, std::span<const std::string> items) {
  bool firstLine = true;
  bool pendingBreak = false;
  for (const std::string& item : items) {
    std::string_view rest = item;
    while (!rest.empty()) {
      const void* found = std::memchr(rest.data(), '\n', rest.size());
      const size_t end = found != nullptr ? static_cast<size_t>(static_cast<const char*>(found) - rest.data()) : rest.size();
      std::string_view line = rest.substr(0, end);
      rest.remove_prefix(found != nullptr ? end + 1 : end);
      if (!firstLine) pendingBreak = true;
      firstLine = false;
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      if (line.empty()) continue;
      if (pendingBreak) out.endLine();
      pendingBreak = false;
      if (!indent.empty()) out.append(indent);
      out.append(line);
    }
  }
}

}  // namespace

std::optional<DefinitionsTemplate> DefinitionsTemplate::reduce(Writer& templates, std::string_view dispatchNamespace) {
  // Each item variable is a list of two markers, "\x01" + letter + 'a' and 'b': a block renders them
  // on two lines with the same indentation, an inline placeholder joins them with ", ".
  constexpr char kMarker = '\x01';
  auto marker = [](int variable, char which) { return std::string{kMarker, static_cast<char>('A' + variable), which}; };
  support::TemplateEnv env;
  const char* const names[kVariables] = {"ns_prologue", "dispatch_anonymous_definitions",
                                         "static_init_dispatch_registrations", "dispatch_namespaced_definitions",
                                         "ns_epilogue"};
  for (int v = 0; v < kVariables; ++v) env.set(names[v], std::vector<std::string>{marker(v, 'a'), marker(v, 'b')});
  env.set("deferred_dispatch_registrations", "");
  env.set("dispatch_namespace", std::string(dispatchNamespace));
  const std::optional<std::string> probe = templates.renderTemplate(kTemplateName, std::move(env));
  if (!probe) return std::nullopt;

  DefinitionsTemplate reduced;
  const std::string_view text = *probe;
  size_t literalStart = 0;
  for (size_t at = text.find(kMarker); at != std::string_view::npos; at = text.find(kMarker, literalStart)) {
    if (at + 3 > text.size() || text[at + 2] != 'a') return std::nullopt;
    const int variable = text[at + 1] - 'A';
    if (variable < 0 || variable >= kVariables) return std::nullopt;
    const size_t newline = text.rfind('\n', at);
    const size_t lineStart = newline == std::string_view::npos ? 0 : newline + 1;
    const std::string_view indent = text.substr(lineStart, at - lineStart);
    if (lineStart < literalStart || indent.find_first_not_of(" \t") != std::string_view::npos) return std::nullopt;
    const std::string second = std::string("\n").append(indent).append(marker(variable, 'b'));
    if (text.substr(at + 3, second.size()) != second) return std::nullopt;  // inline
    reduced.pieces_.push_back({std::string(text.substr(literalStart, lineStart - literalStart)),
                               static_cast<Variable>(variable), std::string(indent)});
    literalStart = at + 3 + second.size();
  }
  reduced.pieces_.push_back({std::string(text.substr(literalStart)), kVariables, {}});
  for (const Piece& piece : reduced.pieces_) reduced.literalSize_ += piece.literal.size();
  return reduced;
}

std::optional<std::string> DefinitionsTemplate::lines(const Values& values) const {
  // What the lines can take: the literal, and each block's items with a break and an indentation a line.
  size_t size = literalSize_;
  for (const Piece& piece : pieces_) {
    if (piece.variable == kVariables) continue;
    for (const std::string& item : values[piece.variable]) size += (item.size() + 1) * (1 + piece.indent.size());
  }
  // Written into a buffer kept from item to item (a string's room would be filled with zeros first),
  // then copied into a string of the lines' exact size.
  if (buffer_.size() < size) buffer_.resize(std::max(size, 2 * buffer_.size()));
  LineWriter out(buffer_.data());
  for (const Piece& piece : pieces_) {
    forEachLineAndBreak(piece.literal, [&](std::optional<std::string_view> line) {
      if (line) {
        out.append(*line);
      } else {
        out.endLine();
      }
    });
    if (piece.variable != kVariables) writeBlock(out, piece.indent, values[piece.variable]);
  }
  const std::string_view text(buffer_.data(), out.finish());
  // A value that is not plain may have been split or stripped otherwise; `"""` may be respaced. (The
  // lines left out and the blanks stripped are whitespace: the checks see what the template's text has.)
  if (!isPlainText(text) || text.find(R"(""")") != std::string_view::npos) return std::nullopt;
  return std::string(text);
}


}  // namespace opgen::dest
