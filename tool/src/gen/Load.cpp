#include "gen/Load.h"

#include <filesystem>

#include "api/DifferentiabilityInfo.h"
#include "support/OutputSink.h"

namespace opgen::gen {

std::string ModelFiles::tagsPath() const {
  if (tags) return *tags;
  const std::filesystem::path beside = std::filesystem::path(nativeFunctions).parent_path() / "tags.yaml";
  std::error_code ec;
  return std::filesystem::exists(beside, ec) ? beside.string() : std::string();
}

std::optional<model::Operators> loadModel(const ModelFiles& files, const model::LoadOptions& options,
                                          support::Diagnostics& diags) {
  support::InputFiles inputs(diags);
  std::set<std::string> tags;
  if (const std::string tagsPath = files.tagsPath(); !tagsPath.empty()) {
    auto text = inputs.read(tagsPath);
    if (!text) return std::nullopt;
    auto loaded = model::loadTags(tagsPath, *text, diags);
    if (!loaded) return std::nullopt;
    tags = std::move(*loaded);
  }
  auto text = inputs.read(files.nativeFunctions);
  if (!text) return std::nullopt;
  return model::loadNativeFunctions(files.nativeFunctions, *text, tags, options, diags);
}

std::optional<model::Derivatives> loadDerivatives(const std::string& path, const model::Operators& ops,
                                                  const std::string& ns, support::Diagnostics& diags) {
  support::InputFiles inputs(diags);
  auto text = inputs.read(path);
  if (!text) return std::nullopt;
  return api::autograd::libraryDerivatives(path, *text, ops, ns, diags);
}

}  // namespace opgen::gen
