// `opgen parse`: load a native_functions.yaml (and its tags.yaml) and describe the model as JSON.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "model/Operators.h"
#include "support/Diagnostics.h"

namespace opgen::gen {

struct ParseOptions {
  std::string nativeFunctionsPath;
  // Defaults to tags.yaml beside the native functions file, when there is one.
  std::optional<std::string> tagsPath;
  bool skipNativeFunctionsGen = false;
  // Dispatch keys whose kernels are dropped while loading (torchgen.gen's ignore_keys).
  std::set<model::DispatchKey> ignoreKeys;
  // Namespace of kernels named without one (model::LoadOptions::defaultKernelNamespace).
  std::string defaultKernelNamespace = "at";
  // model::LoadOptions::alongside.
  std::function<void(const model::NativeFunction&)> alongside;
};

// Reads the inputs and builds the model; nullopt (with diagnostics) on any error.
std::optional<model::Operators> loadModel(const ParseOptions& options, support::Diagnostics& diags);

// The model as documented in README.md: native_functions, groups, view_groups, counts, backend_indices.
nlohmann::ordered_json describeModel(const model::Operators& ops);

}  // namespace opgen::gen
