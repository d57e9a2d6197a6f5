#include "gen/Selector.h"

#include <algorithm>

#include "support/OutputSink.h"
#include "support/Strings.h"
#include "support/Yaml.h"

namespace opgen::gen {

namespace {

using support::ScalarKind;

// "'KEY' must be WHAT, not DESCRIPTION".
std::string mustBe(std::string_view key, std::string_view what, const support::YamlNode& n) {
  std::string out = "'";
  out.append(key).append("' must be ").append(what).append(", not ").append(support::describeNode(n));
  return out;
}

// Python's str() of a YAML scalar as PyYAML's safe loader types it.
std::string pyStr(const support::YamlNode& n) {
  switch (support::scalarKind(n)) {
    case ScalarKind::Null: return "None";
    case ScalarKind::Bool: return support::scalarBool(n) ? "True" : "False";
    default: return n.isScalar() ? n.text() : "";
  }
}

// What a selection file holds: torchgen checks every field, and opgen with it; the selector keeps
// what the emitters ask (whether everything is selected, and the operators).
struct SelectiveBuilderParts {
  bool includeAllOperators = false;
  bool includeAllNonOpSelectives = false;
  std::optional<std::vector<std::string>> debugInfo;
  std::map<std::string, SelectiveBuildOperator, std::less<>> operators;
  std::map<std::string, std::vector<std::string>> kernelMetadata;
  std::map<std::string, std::vector<std::string>> etKernelMetadata;
  std::set<std::string> customClasses;
  std::set<std::string> buildFeatures;
};

// Reads one selection file; every check reports at the offending node.
class SelectionReader {
 public:
  SelectionReader(const std::string& path, support::Diagnostics& diags) : path_(path), diags_(diags) {}

  bool read(const support::YamlNode& doc, SelectiveBuilderParts& out);

 private:
  bool fail(const support::YamlNode& at, const std::string& message) {
    diags_.error(support::locOf(at, path_), message);
    return false;
  }
  bool getBool(const support::YamlNode& map, std::string_view key, bool def, bool& out, std::string_view where);
  bool getStringList(const support::YamlNode& n, std::string_view what, std::vector<std::string>& out);
  bool getStringSet(const support::YamlNode& n, std::string_view what, std::set<std::string>& out);
  bool readOperator(const std::string& name, const support::YamlNode& info, SelectiveBuildOperator& op);

  const std::string& path_;
  support::Diagnostics& diags_;
};

const support::YamlNode& child(const support::YamlNode& map, std::string_view key) { return map[key]; }

bool SelectionReader::getBool(const support::YamlNode& map, std::string_view key, bool def, bool& out,
                              std::string_view where) {
  const support::YamlNode& n = child(map, key);
  if (!n.isDefined()) {
    out = def;
    return true;
  }
  if (support::scalarKind(n) != ScalarKind::Bool)
    return fail(n, std::string(where) + "'" + std::string(key) + "' must be a bool, not " + support::describeNode(n));
  out = support::scalarBool(n);
  return true;
}

bool SelectionReader::getStringList(const support::YamlNode& n, std::string_view what, std::vector<std::string>& out) {
  if (!n.isSequence()) return fail(n, mustBe(what, "a list", n));
  for (const support::YamlNode& item : n.items()) out.push_back(pyStr(item));
  return true;
}

// Python's set(ITERABLE): a list's items, a mapping's keys, a string's characters.
bool SelectionReader::getStringSet(const support::YamlNode& n, std::string_view what, std::set<std::string>& out) {
  if (n.isSequence()) {
    for (const support::YamlNode& item : n.items()) out.insert(pyStr(item));
  } else if (n.isMap()) {
    for (const auto& kv : n.entries()) out.insert(pyStr(kv.key));
  } else if (support::scalarKind(n) == ScalarKind::String) {
    for (char c : n.text()) out.insert(std::string(1, c));
  } else {
    return fail(n, mustBe(what, "a list", n));
  }
  return true;
}

bool SelectionReader::readOperator(const std::string& name, const support::YamlNode& info, SelectiveBuildOperator& op) {
  if (!info.isMap()) return fail(info, "operator '" + name + "' must map to a mapping, not " + support::describeNode(info));
  static const std::vector<std::string_view> kKeys = {"name", "is_root_operator", "is_used_for_training",
                                                      "include_all_overloads", "debug_info"};
  for (const auto& kv : info.entries())
    if (!kv.key.isScalar() || std::find(kKeys.begin(), kKeys.end(), kv.key.text()) == kKeys.end())
      return fail(kv.key, "operator '" + name + "': unexpected key '" + pyStr(kv.key) + "'");
  op.name = name;
  if (const support::YamlNode& n = child(info, "name"); n.isDefined() && pyStr(n) != name)
    return fail(n, "operator '" + name + "': name mismatch: " + name + " != " + pyStr(n));
  const std::string where = "operator '" + name + "': ";
  if (!getBool(info, "is_root_operator", true, op.isRootOperator, where) ||
      !getBool(info, "is_used_for_training", true, op.isUsedForTraining, where) ||
      !getBool(info, "include_all_overloads", true, op.includeAllOverloads, where))
    return false;
  if (const support::YamlNode& n = child(info, "debug_info"); n.isDefined()) {
    op.debugInfo.emplace();
    if (!getStringList(n, "debug_info", *op.debugInfo)) return false;
  }
  return true;
}

bool SelectionReader::read(const support::YamlNode& doc, SelectiveBuilderParts& out) {
  if (!doc.isMap()) return fail(doc, "an operator selection file must be a mapping, not " + support::describeNode(doc));
  static const std::vector<std::string_view> kKeys = {
      "include_all_non_op_selectives", "include_all_operators", "debug_info", "operators", "kernel_metadata",
      "et_kernel_metadata", "custom_classes", "build_features"};
  for (const auto& kv : doc.entries())
    if (!kv.key.isScalar() || std::find(kKeys.begin(), kKeys.end(), kv.key.text()) == kKeys.end())
      return fail(kv.key, "unexpected top level key '" + pyStr(kv.key) + "'");
  if (!getBool(doc, "include_all_operators", false, out.includeAllOperators, "") ||
      !getBool(doc, "include_all_non_op_selectives", false, out.includeAllNonOpSelectives, ""))
    return false;
  if (const support::YamlNode& n = child(doc, "debug_info"); n.isDefined()) {
    out.debugInfo.emplace();
    if (!getStringList(n, "debug_info", *out.debugInfo)) return false;
  }
  if (const support::YamlNode& n = child(doc, "operators"); n.isDefined()) {
    if (!n.isMap()) return fail(n, "'operators' must be a mapping, not " + support::describeNode(n));
    for (const auto& kv : n.entries()) {
      SelectiveBuildOperator op;
      if (!readOperator(pyStr(kv.key), kv.value, op)) return false;
      out.operators.insert_or_assign(op.name, std::move(op));
    }
  }
  for (auto [key, into] : {std::pair{"kernel_metadata", &out.kernelMetadata},
                           std::pair{"et_kernel_metadata", &out.etKernelMetadata}}) {
    const support::YamlNode& n = child(doc, key);
    if (!n.isDefined()) continue;
    if (!n.isMap()) return fail(n, "'" + std::string(key) + "' must be a mapping, not " + support::describeNode(n));
    for (const auto& kv : n.entries()) {
      std::vector<std::string> values;
      if (!getStringList(kv.value, key, values)) return false;
      (*into)[pyStr(kv.key)] = std::move(values);
    }
  }
  if (const support::YamlNode& n = child(doc, "custom_classes"); n.isDefined() && !getStringSet(n, "custom_classes", out.customClasses))
    return false;
  if (const support::YamlNode& n = child(doc, "build_features"); n.isDefined() && !getStringSet(n, "build_features", out.buildFeatures))
    return false;
  return true;
}

}  // namespace

std::string_view stripOverloadName(std::string_view name) { return name.substr(0, name.find('.')); }

SelectiveBuilder SelectiveBuilder::selectAll() {
  SelectiveBuilder s;
  s.includeAllOperators_ = true;
  return s;
}

SelectiveBuilder SelectiveBuilder::fromLegacyAllowList(const std::vector<std::string>& names, bool isRootOperator,
                                                       bool isUsedForTraining) {
  SelectiveBuilder s;
  for (const std::string& name : names)
    s.operators_.insert_or_assign(name, SelectiveBuildOperator{name, isRootOperator, isUsedForTraining, true, {}});
  return s;
}

std::optional<SelectiveBuilder> SelectiveBuilder::fromYamlFile(const std::string& path, support::Diagnostics& diags) {
  support::InputFiles inputs(diags);
  auto text = inputs.read(path, "operator selection file");
  if (!text) return std::nullopt;
  return fromYamlText(*text, path, diags);
}

std::optional<SelectiveBuilder> SelectiveBuilder::fromYamlText(std::string_view text, const std::string& path,
                                                               support::Diagnostics& diags) {
  auto doc = support::parseYaml(text, path, diags);
  if (!doc) return std::nullopt;
  SelectiveBuilderParts parts;
  if (!SelectionReader(path, diags).read(*doc, parts)) return std::nullopt;
  SelectiveBuilder s;
  s.includeAllOperators_ = parts.includeAllOperators;
  s.operators_ = std::move(parts.operators);
  return s;
}

const SelectiveBuildOperator* SelectiveBuilder::find(std::string_view name) const {
  auto it = operators_.find(name);
  return it == operators_.end() ? nullptr : &it->second;
}

bool SelectiveBuilder::isOperatorSelected(std::string_view name) const {
  if (includeAllOperators_ || find(name) != nullptr) return true;
  const SelectiveBuildOperator* base = find(stripOverloadName(name));
  return base != nullptr && base->includeAllOverloads;
}

}  // namespace opgen::gen
