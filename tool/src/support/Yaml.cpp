#include "support/Yaml.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <thread>

#include <yaml.h>

namespace opgen::support {

// --- YamlNode --------------------------------------------------------------------------------

YamlNode YamlNode::scalar(std::string text, bool plain, int line, int column) {
  YamlNode n(Kind::Scalar, line, column);
  n.text_ = std::move(text);
  n.plain_ = plain;
  return n;
}

const std::vector<YamlNode>& YamlNode::noChildren() {
  static const std::vector<YamlNode> none;
  return none;
}

const YamlNode& YamlNode::undefined() {
  static const YamlNode node;
  return node;
}

const YamlNode& YamlNode::operator[](std::string_view key) const {
  for (const auto& [k, value] : entries())
    if (k.isScalar() && k.text() == key) return value;
  return undefined();
}

// --- Reading ---------------------------------------------------------------------------------

namespace {

// libyaml's parser and event, released however the reading ends.
struct Parser {
  yaml_parser_t parser;
  Parser() { yaml_parser_initialize(&parser); }
  ~Parser() { yaml_parser_delete(&parser); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
};
struct Event {
  yaml_event_t event;
  ~Event() { yaml_event_delete(&event); }
};

std::string anchorOf(const yaml_char_t* anchor) { return anchor ? reinterpret_cast<const char*>(anchor) : std::string(); }

// The number of nodes of a tree.
size_t countNodes(const YamlNode& node) {
  size_t n = 1;
  if (node.isSequence())
    for (const YamlNode& item : node.items()) n += countNodes(item);
  else if (node.isMap())
    for (const auto& [key, value] : node.entries()) n += countNodes(key) + countNodes(value);
  return n;
}

// Builds the tree from libyaml's events: a stack of the open collections (and, for a mapping, its
// pending key), anchors resolved by copying the anchored node, as PyYAML's composer shares it.
// Resources stay proportional to the text: nesting is capped at kMaxYamlDepth (far below what the
// tree's recursive destructor or libyaml's quadratic flow scanning would make costly), and aliases
// may copy at most kMaxYamlAliasNodes nodes plus one per byte of the text ("billion laughs").
class TreeBuilder {
 public:
  // `firstLine`: the line `content` starts at in its file (0-based), for the nodes' positions.
  explicit TreeBuilder(int firstLine = 0) : firstLine_(firstLine) {}

  // libyaml's reader (control characters, invalid UTF-8) sets no position, only the byte offset of
  // the bad character and its value: the line and column from them (the column in characters, as
  // the parser counts), and the value in the message.
  void readerErrorPosition(std::string_view content, size_t offset, int value) {
    offset = std::min(offset, content.size());
    const std::string_view before = content.substr(0, offset);
    const size_t lineStart = before.find_last_of('\n') == std::string_view::npos ? 0 : before.find_last_of('\n') + 1;
    line = firstLine_ + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    column = static_cast<int>(std::count_if(before.begin() + static_cast<std::ptrdiff_t>(lineStart), before.end(),
                                            [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    if (value >= 0) {
      char hex[16];
      std::snprintf(hex, sizeof hex, value > 0xFF ? " (U+%04X)" : " (0x%02X)", static_cast<unsigned>(value));
      problem += hex;
    }
  }

  // Returns false with `problem` and its 0-based position set.
  bool read(std::string_view content, std::optional<YamlNode>& doc) {
    Parser p;
    yaml_parser_set_input_string(&p.parser, reinterpret_cast<const unsigned char*>(content.data()), content.size());
    int documents = 0;
    size_t aliasBudget = kMaxYamlAliasNodes + content.size();
    const auto fail = [&](std::string what, int l, int c) {
      problem = std::move(what);
      line = l;
      column = c;
      return false;
    };
    for (;;) {
      Event e;
      if (!yaml_parser_parse(&p.parser, &e.event)) {
        const yaml_mark_t& m = p.parser.problem_mark;
        problem = p.parser.problem ? p.parser.problem : "cannot parse";
        if (p.parser.context) problem = std::string(p.parser.context) + ": " + problem;
        line = firstLine_ + static_cast<int>(m.line);
        column = static_cast<int>(m.column);
        if (p.parser.error == YAML_READER_ERROR) readerErrorPosition(content, p.parser.problem_offset, p.parser.problem_value);
        return false;
      }
      const yaml_mark_t& at = e.event.start_mark;
      const int l = firstLine_ + static_cast<int>(at.line), c = static_cast<int>(at.column);
      switch (e.event.type) {
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
        case YAML_NO_EVENT: break;
        case YAML_STREAM_END_EVENT:
          if (!doc) doc = YamlNode::null(-1, -1);
          return true;
        case YAML_DOCUMENT_START_EVENT:
          if (++documents > 1) {  // PyYAML's yaml.load reads exactly one document
            problem = "expected a single document in the stream, but found another document";
            line = l;
            column = c;
            return false;
          }
          break;
        case YAML_ALIAS_EVENT: {
          const auto found = anchors_.find(anchorOf(e.event.data.alias.anchor));
          if (found == anchors_.end()) {
            problem = "found undefined alias '" + anchorOf(e.event.data.alias.anchor) + "'";
            line = l;
            column = c;
            return false;
          }
          if (found->second.nodes > aliasBudget)
            return fail("aliases expand to more than " + std::to_string(kMaxYamlAliasNodes + content.size()) +
                            " nodes (opgen's limit for a text of this size)",
                        l, c);
          aliasBudget -= found->second.nodes;
          YamlNode copy = found->second.node;
          finish(std::move(copy), {}, doc);
          break;
        }
        case YAML_SCALAR_EVENT: {
          const auto& s = e.event.data.scalar;
          std::string text(reinterpret_cast<const char*>(s.value), s.length);
          // A plain "", "~" or "null" is a null node (PyYAML's None), not a scalar.
          const bool plain = s.plain_implicit != 0 && s.style == YAML_PLAIN_SCALAR_STYLE;
          const bool null = plain && (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL");
          finish(null ? YamlNode::null(l, c) : YamlNode::scalar(std::move(text), plain, l, c), anchorOf(s.anchor), doc);
          break;
        }
        case YAML_SEQUENCE_START_EVENT:
          if (open_.size() >= kMaxYamlDepth)
            return fail("nested deeper than " + std::to_string(kMaxYamlDepth) + " levels (opgen's limit)", l, c);
          open_.push_back({YamlNode::sequence(l, c), anchorOf(e.event.data.sequence_start.anchor), {}, false});
          break;
        case YAML_MAPPING_START_EVENT:
          if (open_.size() >= kMaxYamlDepth)
            return fail("nested deeper than " + std::to_string(kMaxYamlDepth) + " levels (opgen's limit)", l, c);
          open_.push_back({YamlNode::map(l, c), anchorOf(e.event.data.mapping_start.anchor), {}, false});
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
          Open done = std::move(open_.back());
          open_.pop_back();
          finish(std::move(done.node), std::move(done.anchor), doc);
          break;
        }
      }
    }
  }

  std::string problem;
  int line = -1, column = -1;

 private:
  struct Open {
    YamlNode node;
    std::string anchor;
    YamlNode key;  // a mapping's key waiting for its value
    bool hasKey;
  };

  // A complete node goes into the innermost open collection, or becomes the document.
  void finish(YamlNode node, std::string anchor, std::optional<YamlNode>& doc) {
    if (!anchor.empty()) anchors_[std::move(anchor)] = Anchored{node, countNodes(node)};
    if (open_.empty()) {
      doc = std::move(node);
      return;
    }
    Open& top = open_.back();
    if (top.node.isSequence()) {
      top.node.push(std::move(node));
    } else if (!top.hasKey) {
      top.key = std::move(node);
      top.hasKey = true;
    } else {
      top.node.add(std::move(top.key), std::move(node));
      top.key = YamlNode();
      top.hasKey = false;
    }
  }

  int firstLine_;
  std::vector<Open> open_;
  struct Anchored {
    YamlNode node;
    size_t nodes;  // in the tree of `node`
  };
  std::map<std::string, Anchored> anchors_;
};


// Documents smaller than this are parsed in one piece.
constexpr size_t kSplitThreshold = 256 * 1024;

// Where a large document that is one block sequence at column 0 (a line starting with "- " before
// any other content line) can be cut in two pieces that parse to the halves of its items: the start
// of an item line past the middle. npos when the text has directives, document markers or '\r'
// (line counting), or is small.
size_t sequenceSplitPoint(std::string_view text) {
  if (text.size() < kSplitThreshold || text.find('\r') != std::string_view::npos) return std::string_view::npos;
  bool sawItem = false;
  size_t split = std::string_view::npos;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.starts_with('%') || line.starts_with("---") || line.starts_with("...")) return std::string_view::npos;
    const bool item = line.starts_with("- ");
    if (!sawItem && !item) {
      const size_t content = line.find_first_not_of(' ');
      if (content != std::string_view::npos && line[content] != '#') return std::string_view::npos;
    }
    sawItem = sawItem || item;
    if (item && split == std::string_view::npos && start >= text.size() / 2) split = start;
    start = end + 1;
  }
  return split;
}

// Parses text[0, split) and text[split, end) on two threads and appends the second list's items to
// the first's. Nothing when a piece does not parse to a list (an error, an alias of an anchor in
// the other piece): the caller then parses the whole text, for its diagnostics.
std::optional<YamlNode> parseSequenceInTwo(std::string_view text, size_t split) {
  std::optional<YamlNode> head, tail;
  bool tailOk = false;
  std::thread worker([&] {
    const int firstLine = static_cast<int>(std::count(text.begin(), text.begin() + split, '\n'));
    TreeBuilder builder(firstLine);
    tailOk = builder.read(text.substr(split), tail);
  });
  TreeBuilder builder;
  const bool headOk = builder.read(text.substr(0, split), head);
  worker.join();
  if (!headOk || !tailOk || !head->isSequence() || !tail->isSequence()) return std::nullopt;
  head->appendItems(std::move(*tail));
  return head;
}

}  // namespace

std::optional<YamlNode> parseYaml(std::string_view content, const std::string& path, Diagnostics& diags) {
  if (const size_t split = sequenceSplitPoint(content); split != std::string_view::npos)
    if (std::optional<YamlNode> doc = parseSequenceInTwo(content, split)) return doc;
  TreeBuilder builder;
  std::optional<YamlNode> doc;
  if (builder.read(content, doc)) return doc;
  diags.error(SourceLoc{path, builder.line + 1, builder.column + 1}, "invalid YAML: " + builder.problem);
  return std::nullopt;
}

std::optional<YamlNode> detail::readWithLibyaml(std::string_view text) {
  std::optional<YamlNode> doc;
  if (TreeBuilder().read(text, doc)) return doc;
  return std::nullopt;
}

SourceLoc locOf(const YamlNode& node, const std::string& path) {
  if (node.line() < 0) return SourceLoc{path, 0, 0};
  return SourceLoc{path, node.line() + 1, node.column() + 1};
}

namespace {

bool matches(const std::string& s, const std::regex& re) { return std::regex_match(s, re); }

}  // namespace

ScalarKind scalarKind(const YamlNode& node) {
  if (node.isNull()) return ScalarKind::Null;
  if (!node.isScalar()) return ScalarKind::Collection;
  if (!node.isPlain()) return ScalarKind::String;
  const std::string& s = node.text();
  if (s.size() <= 4 && (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")) return ScalarKind::Null;
  // The bools are 2 to 5 letters long and start with one of these: most strings are not looked up.
  if (s.size() <= 5 && std::string_view("yYnNtTfFoO").find(s[0]) != std::string_view::npos) {
    static constexpr std::string_view bools[] = {"yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE",
                                                 "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"};
    for (std::string_view b : bools)
      if (s == b) return ScalarKind::Bool;
  }
  // Numbers start with a digit or a dot, after an optional sign, and hold only letters, digits and
  // "_.:+-"; only those pay for the regular expressions (formulas such as "-grad * self" or "-0.5 *
  // grad" do not).
  const size_t afterSign = s[0] == '+' || s[0] == '-' ? 1 : 0;
  if (afterSign >= s.size() || std::string_view("0123456789.").find(s[afterSign]) == std::string_view::npos)
    return ScalarKind::String;
  const auto numberChar = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' ||
           c == ':' || c == '+' || c == '-';
  };
  if (!std::all_of(s.begin(), s.end(), numberChar)) return ScalarKind::String;
  // Compiled on first use (here, not above: what is decided without them never compiles them).
  static const std::regex intRe(
      "[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+");
  static const std::regex floatRe(
      "[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|\\.[0-9_]+(?:[eE][-+][0-9]+)?|"
      "[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)");
  if (matches(s, intRe)) return ScalarKind::Int;
  if (matches(s, floatRe)) return ScalarKind::Float;
  return ScalarKind::String;
}

bool scalarBool(const YamlNode& node) {
  const std::string& s = node.text();
  return s == "yes" || s == "Yes" || s == "YES" || s == "true" || s == "True" || s == "TRUE" || s == "on" ||
         s == "On" || s == "ON";
}

std::string describeNode(const YamlNode& node) {
  if (node.isMap()) return "a mapping";
  if (node.isSequence()) return "a list";
  switch (scalarKind(node)) {
    case ScalarKind::Null: return "null";
    case ScalarKind::Bool: return "a bool";
    case ScalarKind::Int: return "an int";
    case ScalarKind::Float: return "a float";
    case ScalarKind::String: return "a string";
    case ScalarKind::Collection: break;
  }
  return "a value";
}

}  // namespace opgen::support
