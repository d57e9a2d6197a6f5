// An out-of-tree backend's YAML (torchgen's gen_backend_stubs input): which ATen operators a device
// implements, read with torchgen 2.14.1's rules (parse_backend_yaml) against a loaded
// native_functions.yaml. Every refusal is one "FILE:LINE:COL: error: ..." at the key or list entry at
// fault. Beyond torchgen: list entries may carry per-operator options (`- maximum.out: {structured:
// true}`), and operators the native_functions.yaml lacks may be skipped with a warning.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/Operators.h"
#include "support/Diagnostics.h"

namespace opgen::model {

// One entry of `supported:`, `full_codegen:` or `autograd:`.
struct BackendOperator {
  const NativeFunction* function = nullptr;  // in the native functions
  support::SourceLoc loc;                    // the list entry
  bool symint = false;                       // listed under `symint:` (the kernel takes SymInts)
  bool structured = false;                   // `- op: {structured: true}`: a meta/impl kernel
};

struct BackendYaml {
  std::string path;
  std::string backend;  // as written
  support::SourceLoc backendLoc;
  std::optional<std::string> className;
  std::string cppNamespace;
  support::SourceLoc cppNamespaceLoc;
  bool useOutAsPrimary = false;
  bool deviceGuard = false;
  // `supported:` then `full_codegen:` (torchgen registers both), and `autograd:`, in file order.
  std::vector<BackendOperator> supported;
  std::vector<BackendOperator> autograd;
  // The dispatch keys: set when the lists are not empty (torchgen parses `backend` only then).
  std::optional<DispatchKey> backendKey;
  std::optional<DispatchKey> autogradKey;
  // The operators skipped because the native functions lack them (--skip-missing-operators).
  std::vector<std::string> skipped;

  // torchgen's class name: `class_name`, else "<Key>NativeFunctions" (needs backendKey).
  std::string effectiveClassName() const;
};

struct BackendYamlOptions {
  // Warn about and skip listed operators that the native functions lack (torchgen: an error).
  bool skipMissingOperators = false;
};

// Reads the backend YAML `content` (from `path`); nullopt when an error was reported.
std::optional<BackendYaml> loadBackendYaml(const std::string& path, std::string_view content, const Operators& ops,
                                           const BackendYamlOptions& options, support::Diagnostics& diags);

}  // namespace opgen::model
