// deprecated.yaml: Python signatures kept for old call forms (torchgen's load_deprecated_signatures).
// Each entry's schema lacks some type information; it is completed from the ATen function that its
// `aten:` call names, matched by the types and alias annotations of the arguments it passes.
#include <algorithm>
#include <map>

#include "api/Python.h"
#include "support/Strings.h"
#include "support/Yaml.h"

namespace opgen::api::python {

using support::SourceLoc;

namespace {

// torchgen's split_name_params: "name(.overload)?(a, b)" -> name, ["a", "b"].
bool splitNameParams(const std::string& text, std::string& name, std::vector<std::string>& params) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); };
  size_t i = 0;
  while (i < text.size() && word(text[i])) ++i;
  if (i == 0) return false;
  name = text.substr(0, i);
  if (i < text.size() && text[i] == '.') {
    size_t j = i + 1;
    while (j < text.size() && word(text[j])) ++j;
    if (j > i + 1) i = j;
  }
  const size_t close = text.rfind(')');
  if (i >= text.size() || text[i] != '(' || close == std::string::npos || close < i) return false;
  const std::string inner = text.substr(i + 1, close - i - 1);
  params.clear();
  size_t start = 0;
  for (size_t pos; (pos = inner.find(", ", start)) != std::string::npos; start = pos + 2)
    params.push_back(inner.substr(start, pos - start));
  params.push_back(inner.substr(start));
  return true;
}

std::optional<std::string> stringField(const support::YamlNode& entry, const char* key, const std::string& path,
                                       support::Diagnostics& diags) {
  const support::YamlNode& v = entry[key];
  if (!v.isScalar()) {
    diags.error(support::locOf(v.isDefined() ? v : entry, path),
                std::string("a deprecated signature needs '") + key + "': a string" +
                    (v.isDefined() ? ", not " + support::describeNode(v) : ""));
    return std::nullopt;
  }
  return v.text();
}

// Does the ATen schema accept the deprecated entry's call (torchgen's is_schema_compatible)?
bool isSchemaCompatible(const DeprecatedEntry& e, const std::map<std::string, const model::Argument*>& byName,
                        const model::FunctionSchema& aten) {
  std::vector<const model::Argument*> args;
  if (e.isOut) {
    for (const auto& a : aten.arguments.out) args.push_back(&a);
    for (const model::Argument* a : aten.arguments.flatNonOut()) args.push_back(a);
  } else {
    args = aten.arguments.flatAll();
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (i >= e.callArgs.size()) {
      if (!args[i]->defaultValue) return false;
      continue;
    }
    const std::string& name = e.callArgs[i];
    if (name == "1") {  // torchgen's known constants
      if (!(args[i]->type == model::Type::base(model::BaseTy::Scalar)) || args[i]->annotation) return false;
      continue;
    }
    const model::Argument& mine = *byName.at(name);
    if (!(mine.type == args[i]->type) || mine.annotation != args[i]->annotation) return false;
  }
  return e.schema.returns == aten.returns;
}

}  // namespace

std::optional<std::vector<DeprecatedEntry>> loadDeprecated(const std::string& path, std::string_view content,
                                                           support::Diagnostics& diags) {
  auto doc = support::parseYaml(content, path, diags);
  if (!doc) return std::nullopt;
  if (!doc->isSequence()) {
    diags.error(support::locOf(*doc, path), "deprecated signatures must be a list, not " + support::describeNode(*doc));
    return std::nullopt;
  }
  std::vector<DeprecatedEntry> entries;
  bool ok = true;
  for (const support::YamlNode& node : doc->items()) {
    if (!node.isMap()) {
      diags.error(support::locOf(node, path), "a deprecated signature must be a mapping, not " + support::describeNode(node));
      ok = false;
      continue;
    }
    auto name = stringField(node, "name", path, diags);
    auto aten = stringField(node, "aten", path, diags);
    if (!name || !aten) {
      ok = false;
      continue;
    }
    auto schema = model::FunctionSchema::parse(*name);
    if (!schema) {
      diags.error(support::locOf(node["name"], path).shifted(std::max(0, schema.error().offset)), schema.error().message);
      ok = false;
      continue;
    }
    DeprecatedEntry e{*schema, {}, false, {}, support::locOf(node, path)};
    if (!splitNameParams(*aten, e.atenName, e.callArgs)) {
      diags.error(support::locOf(node["aten"], path), "Unsupported function schema: " + *aten);
      ok = false;
      continue;
    }
    e.isOut = e.atenName.ends_with("_out");
    if (e.isOut) e.atenName = support::replaceAll(e.atenName, "_out", "");
    for (const std::string& arg : e.callArgs) {
      const auto all = e.schema.arguments.flatAll();
      const bool known = arg == "1" || std::any_of(all.begin(), all.end(), [&](const model::Argument* a) { return a->name == arg; });
      if (!known) {
        diags.error(support::locOf(node["aten"], path), "deprecation definition: Unrecognized value " + arg);
        ok = false;
        break;
      }
    }
    entries.push_back(std::move(e));
  }
  if (!ok) return std::nullopt;
  return entries;
}

std::optional<std::vector<SignaturePair>> deprecatedSignatures(const std::vector<SignaturePair>& pairs,
                                                               const std::vector<DeprecatedEntry>& entries,
                                                               bool method, support::Diagnostics& diags) {
  std::map<std::string, std::vector<const SignaturePair*>> byName;
  for (const SignaturePair& p : pairs) byName[p.signature.name].push_back(&p);
  std::vector<SignaturePair> results;
  bool ok = true;
  for (const DeprecatedEntry& e : entries) {
    std::map<std::string, const model::Argument*> args;
    for (const model::Argument* a : e.schema.arguments.flatAll()) args.emplace(a->name, a);
    bool found = false;
    auto candidates = byName.find(e.atenName);
    if (candidates != byName.end()) {
      for (const SignaturePair* p : candidates->second) {
        if (!isSchemaCompatible(e, args, p->function->func)) continue;
        found = true;
        auto sig = signatureFromSchema(e.schema, p->function->categoryOverride, method);
        if (!sig) {
          diags.error(e.loc, sig.error().message);
          return std::nullopt;
        }
        sig->deprecated = std::make_shared<const DeprecatedSignature>(DeprecatedSignature{e.schema, e.callArgs});
        results.push_back({sig.take(), p->function});
      }
    }
    if (!found) {
      diags.error(e.loc, "No native function with name " + e.atenName + " matched signature: " + e.schema.str());
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return results;
}

}  // namespace opgen::api::python
