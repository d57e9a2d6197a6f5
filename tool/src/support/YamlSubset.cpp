// The subset reader (see support::detail::readSubset in Yaml.h): a line-oriented reader for the
// block YAML that native_functions.yaml files are written in. It declines (nullopt) at the first
// thing outside the subset; whatever it accepts, libyaml reads to the same tree (Yaml_test compares
// the two on real and made-up files).
//
// The subset:
//   - the document is a block sequence at column 0 whose items are block mappings starting on the
//     item's line (`- key: value`);
//   - a mapping's keys are plain, on one line, of letters, digits, '_', ',' and ' ' (1024 at most);
//   - a value is on its key's line: a plain scalar that starts with a letter, digit, '_', '(' or
//     '.'; a single-quoted scalar; a double-quoted one without escapes; `[...]` of plain words and
//     such quoted scalars; `{}`; or nothing, and then a block mapping indented under the key or a
//     sequence of plain scalars at the key's column (`- item` lines);
//   - comments, blank lines; only printable ASCII and '\n' (no tab, '\r', control or 8-bit byte).
#include <algorithm>
#include <cstring>

#include "support/Yaml.h"

namespace opgen::support::detail {

namespace {

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

class SubsetReader {
 public:
  SubsetReader(std::string_view text, int firstLine) : text_(text), firstLine_(firstLine) {}

  std::optional<YamlNode> read() {
    for (unsigned char c : text_)
      if ((c < 0x20 && c != '\n') || c >= 0x7f) return std::nullopt;
    splitLines();
    size_t at = nextContent(0);
    if (at >= lines_.size() || !isItemLine(at, 0)) return std::nullopt;
    YamlNode doc = YamlNode::sequence(lineNumber(at), 0);
    while (at < lines_.size()) {
      if (!isItemLine(at, 0)) return std::nullopt;
      // "- key: value": the mapping starts at the key.
      const std::string_view line = lines_[at];
      const size_t keyColumn = line.find_first_not_of(' ', 1);
      if (keyColumn == std::string_view::npos || line[keyColumn] == '#') return std::nullopt;
      std::optional<YamlNode> item = mapping(at, keyColumn);
      if (!item) return std::nullopt;
      doc.push(std::move(*item));
    }
    return doc;
  }

 private:
  void splitLines() {
    lines_.reserve(static_cast<size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1);
    for (size_t start = 0; start <= text_.size();) {
      const void* nl = std::memchr(text_.data() + start, '\n', text_.size() - start);
      const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text_.data()) : text_.size();
      lines_.push_back(text_.substr(start, end - start));
      start = end + 1;
    }
  }

  int lineNumber(size_t index) const { return firstLine_ + static_cast<int>(index); }

  static size_t indentOf(std::string_view line) {
    const size_t n = line.find_first_not_of(' ');
    return n == std::string_view::npos ? line.size() : n;
  }

  // The first line from `at` on with content (not blank, not only a comment).
  size_t nextContent(size_t at) const {
    for (; at < lines_.size(); ++at) {
      const std::string_view line = lines_[at];
      const size_t n = indentOf(line);
      if (n < line.size() && line[n] != '#') break;
    }
    return at;
  }

  // "- ..." at `column`.
  bool isItemLine(size_t at, size_t column) const {
    const std::string_view line = lines_[at];
    return indentOf(line) == column && line.size() > column + 1 && line[column] == '-' && line[column + 1] == ' ';
  }

  // Nothing but spaces, or spaces and then a comment, from `pos` on.
  static bool onlyCommentFrom(std::string_view line, size_t pos) {
    const size_t n = line.find_first_not_of(' ', pos);
    return n == std::string_view::npos || (line[n] == '#' && n > pos);
  }

  static YamlNode scalar(std::string text, bool plain, int line, int column) {
    const bool null = plain && (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL");
    return null ? YamlNode::null(line, column) : YamlNode::scalar(std::move(text), plain, line, column);
  }

  // The block mapping whose first key is at (lines_[at], column); `at` ends past it.
  std::optional<YamlNode> mapping(size_t& at, size_t column) {
    YamlNode map = YamlNode::map(lineNumber(at), static_cast<int>(column));
    for (;;) {
      if (!entry(at, column, map)) return std::nullopt;
      if (at >= lines_.size()) return map;
      const size_t indent = indentOf(lines_[at]);
      if (indent < column) return map;
      if (indent > column || lines_[at][indent] == '-') return std::nullopt;
    }
  }

  // One "key: value" entry at (lines_[at], column), added to `map`; `at` ends at the next content line.
  bool entry(size_t& at, size_t column, YamlNode& map) {
    const std::string_view line = lines_[at];
    size_t colon = column;
    while (colon < line.size() && (isWordChar(line[colon]) || line[colon] == ',' || line[colon] == ' ')) ++colon;
    // (libyaml takes an implicit key of at most 1024 characters.)
    if (colon == column || colon >= line.size() || line[colon] != ':' || !isWordChar(line[column]) ||
        line[colon - 1] == ' ' || colon - column > 1024)
      return false;
    const int number = lineNumber(at);
    YamlNode key = scalar(std::string(line.substr(column, colon - column)), true, number, static_cast<int>(column));
    if (!key.isScalar()) return false;  // a key spelled like null
    const size_t valueStart = line.find_first_not_of(' ', colon + 1);
    if (colon + 1 < line.size() && line[colon + 1] != ' ') return false;  // "key:value" is one scalar
    if (valueStart == std::string_view::npos || line[valueStart] == '#') {
      // Nothing on the line: a block below the key.
      const size_t next = nextContent(at + 1);
      if (next >= lines_.size()) return false;
      const size_t indent = indentOf(lines_[next]);
      if (indent > column && lines_[next][indent] != '-') {
        at = next;
        std::optional<YamlNode> value = mapping(at, indent);
        if (!value) return false;
        map.add(std::move(key), std::move(*value));
        return true;
      }
      if (indent == column && column > 0 && isItemLine(next, column)) {
        at = next;
        std::optional<YamlNode> value = scalarSequence(at, column);
        if (!value) return false;
        map.add(std::move(key), std::move(*value));
        return true;
      }
      return false;  // an empty value (null), or a block this reader does not take
    }
    std::optional<YamlNode> value = inlineValue(line, valueStart, number);
    if (!value) return false;
    map.add(std::move(key), std::move(*value));
    at = nextContent(at + 1);
    return true;
  }

  // "- plain" lines at `column`: a sequence of plain scalars; `at` ends at the next content line.
  std::optional<YamlNode> scalarSequence(size_t& at, size_t column) {
    YamlNode seq = YamlNode::sequence(lineNumber(at), static_cast<int>(column));
    while (at < lines_.size() && isItemLine(at, column)) {
      const std::string_view line = lines_[at];
      const size_t start = line.find_first_not_of(' ', column + 1);
      if (start == std::string_view::npos) return std::nullopt;
      std::optional<YamlNode> item = plainScalar(line, start, lineNumber(at));
      if (!item) return std::nullopt;
      seq.push(std::move(*item));
      at = nextContent(at + 1);
    }
    if (at < lines_.size() && indentOf(lines_[at]) > column) return std::nullopt;
    return seq;
  }

  // The value that starts at line[start] and ends the line.
  std::optional<YamlNode> inlineValue(std::string_view line, size_t start, int number) {
    const int column = static_cast<int>(start);
    switch (line[start]) {
      case '[': return flowSequence(line, start, number);
      case '{':
        if (line.compare(start, 2, "{}") != 0 || !onlyCommentFrom(line, start + 2)) return std::nullopt;
        return YamlNode::map(number, column);
      case '\'': {
        size_t end = start;
        std::optional<std::string> text = singleQuoted(line, end);
        if (!text || !onlyCommentFrom(line, end)) return std::nullopt;
        return YamlNode::scalar(std::move(*text), false, number, column);
      }
      case '"': {
        size_t end = start;
        std::optional<std::string> text = doubleQuoted(line, end);
        if (!text || !onlyCommentFrom(line, end)) return std::nullopt;
        return YamlNode::scalar(std::move(*text), false, number, column);
      }
      default: return plainScalar(line, start, number);
    }
  }

  // A plain scalar from line[start] to the end of the line or a comment.
  static std::optional<YamlNode> plainScalar(std::string_view line, size_t start, int number) {
    const char first = line[start];
    if (!isWordChar(first) && first != '(' && first != '.') return std::nullopt;
    size_t end = line.find(" #", start);
    if (end == std::string_view::npos) end = line.size();
    while (end > start && line[end - 1] == ' ') --end;
    const std::string_view text = line.substr(start, end - start);
    if (text.find(": ") != std::string_view::npos || text.back() == ':') return std::nullopt;
    return scalar(std::string(text), true, number, static_cast<int>(start));
  }

  // 'text' with '' for a quote, from line[at] (the opening quote); `at` ends past the closing one.
  static std::optional<std::string> singleQuoted(std::string_view line, size_t& at) {
    std::string text;
    for (size_t i = at + 1; i < line.size(); ++i) {
      if (line[i] != '\'') {
        text += line[i];
      } else if (i + 1 < line.size() && line[i + 1] == '\'') {
        text += '\'';
        ++i;
      } else {
        at = i + 1;
        return text;
      }
    }
    return std::nullopt;  // not closed on this line
  }

  // "text" without escapes, from line[at] (the opening quote); `at` ends past the closing one.
  static std::optional<std::string> doubleQuoted(std::string_view line, size_t& at) {
    const size_t close = line.find('"', at + 1);
    if (close == std::string_view::npos) return std::nullopt;  // not closed on this line
    const std::string_view text = line.substr(at + 1, close - at - 1);
    if (text.find('\\') != std::string_view::npos) return std::nullopt;
    at = close + 1;
    return std::string(text);
  }

  // [a, 'b', "c", ...] from line[start] to the end of the line or a comment.
  static std::optional<YamlNode> flowSequence(std::string_view line, size_t start, int number) {
    YamlNode seq = YamlNode::sequence(number, static_cast<int>(start));
    size_t at = line.find_first_not_of(' ', start + 1);
    if (at != std::string_view::npos && line[at] == ']') return onlyCommentFrom(line, at + 1) ? std::optional(seq) : std::nullopt;
    for (;;) {
      if (at == std::string_view::npos) return std::nullopt;
      const int column = static_cast<int>(at);
      if (line[at] == '\'' || line[at] == '"') {
        std::optional<std::string> text = line[at] == '"' ? doubleQuoted(line, at) : singleQuoted(line, at);
        if (!text) return std::nullopt;
        seq.push(YamlNode::scalar(std::move(*text), false, number, column));
      } else {
        const size_t begin = at;
        while (at < line.size() && (isWordChar(line[at]) || line[at] == '.')) ++at;
        if (at == begin) return std::nullopt;
        seq.push(scalar(std::string(line.substr(begin, at - begin)), true, number, column));
      }
      at = line.find_first_not_of(' ', at);
      if (at == std::string_view::npos) return std::nullopt;
      if (line[at] == ']') return onlyCommentFrom(line, at + 1) ? std::optional(seq) : std::nullopt;
      if (line[at] != ',') return std::nullopt;
      at = line.find_first_not_of(' ', at + 1);
    }
  }

  std::string_view text_;
  int firstLine_;
  std::vector<std::string_view> lines_;
};

}  // namespace

std::optional<YamlNode> readSubset(std::string_view text, int firstLine) { return SubsetReader(text, firstLine).read(); }

}  // namespace opgen::support::detail
