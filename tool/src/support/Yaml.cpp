#include "support/Yaml.h"

#include <algorithm>
#include <regex>
#include <thread>

namespace opgen::support {

namespace {

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
    const size_t content = line.find_first_not_of(' ');
    const bool item = line.starts_with("- ");
    if (!sawItem && content != std::string_view::npos && line[content] != '#' && !item) return std::string_view::npos;
    sawItem = sawItem || item;
    if (item && split == std::string_view::npos && start >= text.size() / 2) split = start;
    start = end + 1;
  }
  return split;
}

std::optional<YAML::Node> loadOrNothing(const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

// Parses text[0, split) and text[split, end) on two threads and appends the second list's items to
// the first's. The second piece is preceded by as many empty lines as the first has, so that its
// nodes keep their lines. Nothing when a piece does not parse to a list (the caller then parses the
// whole text, for its diagnostics).
std::optional<YAML::Node> parseSequenceInTwo(std::string_view text, size_t split) {
  std::string second(static_cast<size_t>(std::count(text.begin(), text.begin() + split, '\n')), '\n');
  second.append(text.substr(split));
  std::optional<YAML::Node> tail;
  std::thread worker([&] { tail = loadOrNothing(second); });
  std::optional<YAML::Node> head = loadOrNothing(std::string(text.substr(0, split)));
  worker.join();
  if (!head || !tail || !head->IsSequence() || !tail->IsSequence()) return std::nullopt;
  for (const YAML::Node& item : *tail) head->push_back(item);
  return head;
}

}  // namespace

std::optional<YAML::Node> parseYaml(std::string_view content, const std::string& path, Diagnostics& diags) {
  if (const size_t split = sequenceSplitPoint(content); split != std::string_view::npos)
    if (std::optional<YAML::Node> doc = parseSequenceInTwo(content, split)) return doc;
  try {
    return YAML::Load(std::string(content));
  } catch (const YAML::Exception& e) {
    SourceLoc loc{path, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1};
    diags.error(loc, "invalid YAML: " + e.msg);
    return std::nullopt;
  }
}

SourceLoc locOf(const YAML::Node& node, const std::string& path) {
  YAML::Mark m = node.Mark();
  if (m.is_null()) return SourceLoc{path, 0, 0};
  return SourceLoc{path, m.line + 1, m.column + 1};
}

namespace {

bool isPlain(const YAML::Node& node) { return node.Tag() == "?"; }

bool matches(const std::string& s, const std::regex& re) { return std::regex_match(s, re); }

}  // namespace

ScalarKind scalarKind(const YAML::Node& node) {
  if (node.IsNull()) return ScalarKind::Null;
  if (!node.IsScalar()) return ScalarKind::Collection;
  if (!isPlain(node)) return ScalarKind::String;
  const std::string& s = node.Scalar();
  static const std::regex intRe(
      "[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+");
  static const std::regex floatRe(
      "[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|\\.[0-9_]+(?:[eE][-+][0-9]+)?|"
      "[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return ScalarKind::Null;
  static const char* const bools[] = {"yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE",
                                      "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"};
  for (const char* b : bools)
    if (s == b) return ScalarKind::Bool;
  // Numbers start with a digit, a sign or a dot; only those pay for the regular expressions.
  if (std::string_view("0123456789+-.").find(s[0]) == std::string_view::npos) return ScalarKind::String;
  if (matches(s, intRe)) return ScalarKind::Int;
  if (matches(s, floatRe)) return ScalarKind::Float;
  return ScalarKind::String;
}

bool scalarBool(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  return s == "yes" || s == "Yes" || s == "YES" || s == "true" || s == "True" || s == "TRUE" || s == "on" ||
         s == "On" || s == "ON";
}

std::string describeNode(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
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
