#include "support/Yaml.h"

#include <regex>

namespace opgen::support {

std::optional<YAML::Node> parseYaml(std::string_view content, const std::string& path, Diagnostics& diags) {
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
