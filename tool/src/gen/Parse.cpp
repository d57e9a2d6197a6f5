#include "gen/Parse.h"

#include <filesystem>

#include "model/Groups.h"
#include "model/Loader.h"
#include "support/OutputSink.h"

namespace opgen::gen {

namespace {

nlohmann::ordered_json nameOrNull(const model::NativeFunction* f) {
  return f ? nlohmann::ordered_json(f->func.name.str()) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json describeFunction(const model::NativeFunction& f, const model::Operators& ops) {
  nlohmann::ordered_json j;
  const std::string name = f.func.name.str();
  j["name"] = name;
  j["namespace"] = f.ns;
  j["func"] = f.funcText.empty() ? (f.explicitNamespace ? f.ns + "::" : std::string()) + f.func.str() : f.funcText;
  j["location"] = f.loc.str();
  j["generated"] = f.generated();
  j["kind"] = std::string(model::schemaKindName(f.func.kind()));
  nlohmann::ordered_json dispatch = nlohmann::ordered_json::object();
  for (const auto& index : ops.backendIndices()) {
    if (const auto* m = index.find(std::string_view(name))) {
      std::string kernel = m->cppNamespace == "at::native" ? m->kernel : m->cppNamespace + "::" + m->kernel;
      dispatch[std::string(model::dispatchKeyName(index.dispatchKey()))] = kernel;
    }
  }
  j["dispatch"] = dispatch;
  j["structured"] = f.structured;
  j["structured_delegate"] = f.structuredDelegate ? nlohmann::ordered_json(f.structuredDelegate->str()) : nullptr;
  j["tags"] = f.tags;  // std::set: sorted
  nlohmann::ordered_json variants = nlohmann::ordered_json::array();
  if (f.hasVariant(model::Variant::Function)) variants.push_back("function");
  if (f.hasVariant(model::Variant::Method)) variants.push_back("method");
  j["variants"] = variants;
  return j;
}

}  // namespace

std::optional<model::Operators> loadModel(const ParseOptions& options, support::Diagnostics& diags) {
  support::InputFiles inputs(diags);
  std::string tagsPath;
  if (options.tagsPath) {
    tagsPath = *options.tagsPath;
  } else {
    auto beside = std::filesystem::path(options.nativeFunctionsPath).parent_path() / "tags.yaml";
    if (std::filesystem::exists(beside)) tagsPath = beside.string();
  }
  std::set<std::string> tags;
  if (!tagsPath.empty()) {
    auto text = inputs.read(tagsPath);
    if (!text) return std::nullopt;
    auto loaded = model::loadTags(tagsPath, *text, diags);
    if (!loaded) return std::nullopt;
    tags = std::move(*loaded);
  }
  auto text = inputs.read(options.nativeFunctionsPath);
  if (!text) return std::nullopt;
  model::LoadOptions loadOptions;
  loadOptions.skipNativeFunctionsGen = options.skipNativeFunctionsGen;
  loadOptions.ignoreKeys = options.ignoreKeys;
  loadOptions.defaultKernelNamespace = options.defaultKernelNamespace;
  loadOptions.alongside = options.alongside;
  return model::loadNativeFunctions(options.nativeFunctionsPath, *text, tags, loadOptions, diags);
}

nlohmann::ordered_json describeModel(const model::Operators& ops) {

  nlohmann::ordered_json j;
  nlohmann::ordered_json functions = nlohmann::ordered_json::array();
  for (const model::NativeFunction* f : ops.functions()) functions.push_back(describeFunction(*f, ops));
  j["native_functions"] = std::move(functions);

  nlohmann::ordered_json groupList = nlohmann::ordered_json::array();
  for (const auto& item : ops.grouped()) {
    if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item)) {
      nlohmann::ordered_json e;
      e["functional"] = nameOrNull(g->functional);
      e["inplace"] = nameOrNull(g->inplace);
      e["mutable"] = nameOrNull(g->mutableFn);
      e["out"] = nameOrNull(g->out);
      e["structured"] = g->structured();
      groupList.push_back(std::move(e));
    }
  }
  nlohmann::ordered_json viewList = nlohmann::ordered_json::array();
  for (const auto& item : ops.groupedByView()) {
    if (const auto* g = std::get_if<model::NativeFunctionsViewGroup>(&item)) {
      nlohmann::ordered_json e;
      e["view"] = nameOrNull(g->view);
      e["view_inplace"] = nameOrNull(g->viewInplace);
      e["view_copy"] = nameOrNull(g->viewCopy);
      viewList.push_back(std::move(e));
    }
  }
  nlohmann::ordered_json counts;
  counts["native_functions"] = ops.functions().size();
  counts["groups"] = groupList.size();
  counts["view_groups"] = viewList.size();
  j["groups"] = std::move(groupList);
  j["view_groups"] = std::move(viewList);
  j["counts"] = std::move(counts);
  nlohmann::ordered_json indices = nlohmann::ordered_json::object();
  for (const auto& index : ops.backendIndices()) indices[std::string(model::dispatchKeyName(index.dispatchKey()))] = index.size();
  j["backend_indices"] = std::move(indices);
  return j;
}

}  // namespace opgen::gen
