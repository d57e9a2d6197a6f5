// The one way every command loads its operators: a native_functions.yaml and its tags.yaml, read
// with torchgen's rules (model/Loader.h) into an immutable model::Operators.
#pragma once

#include <optional>
#include <string>

#include "model/Derivatives.h"
#include "model/Loader.h"
#include "model/Operators.h"
#include "support/Diagnostics.h"

namespace opgen::gen {

struct ModelFiles {
  std::string nativeFunctions;
  // Defaults to tags.yaml beside the native functions file, when there is one.
  std::optional<std::string> tags;

  // The tags file a run reads: `tags`, or the one beside the native functions, or none ("").
  std::string tagsPath() const;
};

// Reads the files and builds the model; nullopt (with diagnostics) on any error.
std::optional<model::Operators> loadModel(const ModelFiles& files, const model::LoadOptions& options,
                                          support::Diagnostics& diags);

// Reads a library's derivatives.yaml against its operators (api/DifferentiabilityInfo.h's one reader);
// nullopt (with diagnostics) on any error.
std::optional<model::Derivatives> loadDerivatives(const std::string& path, const model::Operators& ops,
                                                  const std::string& ns, support::Diagnostics& diags);

}  // namespace opgen::gen
