// Declarations of the kernels a build provides: the at::meta::structured_NAME classes of structured
// operators (NativeMetaFunctions.h, ops/{op}_meta.h) and the at::native:: kernels of every backend
// (NativeFunctions.h, ops/{op}_native.h). torchgen gen.py: compute_meta_function_declaration,
// get_native_function_declarations; torchgen/dest/native_functions.py.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "api/Types.h"
#include "dest/common/Emit.h"
#include "support/Expected.h"

namespace opgen::dest {

// `struct TORCH_API structured_NAME : public PARENT { ... meta(...); };` for a structured group
// (with the precompute_out template when the out= function declares `precomputed:`).
// Types are spelled for `libtorch`.
support::Expected<std::string> metaFunctionDeclaration(const model::NativeFunctionsGroup& g,
                                                       const api::LibtorchFacts& libtorch = {});

// The meta declarations of the structured groups among `groups`, in order (errors reported).
std::vector<std::string> metaFunctionDeclarations(const std::vector<const model::NativeFunctionsGroup*>& groups,
                                                  support::Diagnostics& diags,
                                                  const api::LibtorchFacts& libtorch = {});

// The declarations of one function's (or group's) kernels for one backend: TORCH_API (static for
// external backends) kernel prototypes, or the structured_KERNEL class of a structured kernel, which
// derives from the group's meta class in `metaNamespace`.
support::Expected<std::vector<std::string>> nativeFunctionDeclarations(const model::FunctionOrGroup& item,
                                                                       const model::BackendIndex& index,
                                                                       std::string_view metaNamespace = "at::meta",
                                                                       const api::LibtorchFacts& libtorch = {});

// The kernels of these functions and groups for every backend, grouped by kernel namespace, each
// namespace's block split into lines (torchgen's get_native_function_declarations). Errors are reported.
class NativeDeclarations {
 public:
  // `backends`: every backend index in torchgen's order (the vector must outlive this object).
  // `extraEmptyIndex`: torchgen also iterates an index without kernels (a key it looked up in its
  // defaultdict of indices).
  NativeDeclarations(const model::Operators& ops, const std::vector<model::BackendIndex>& backends,
                     bool extraEmptyIndex);

  std::vector<std::string> lines(const std::vector<const model::FunctionOrGroup*>& items,
                                 support::Diagnostics& diags) const;

 private:
  const std::vector<model::BackendIndex>& backends_;
  bool extraEmptyIndex_;
  // Each function's kernel in each index (row-major, nullptr where there is none), and its row.
  std::unordered_map<const model::NativeFunction*, std::size_t> rows_;
  std::vector<const model::BackendMetadata*> kernels_;
};

// Whether torchgen's native declarations see an index without kernels beyond the model's: a static
// dispatch key without kernels (looked up before any phase), or, when the run generates sources
// (they come before the headers), a dispatch key without kernels. The headers phase itself looks the
// dispatch keys up only after computing the native declarations. (An index without kernels adds an
// empty `at::native` block to NativeFunctions.h and {op}_native.h when every kernel of an operator
// is in another namespace.)
bool nativeDeclarationsSeeEmptyIndex(const EmitContext& ctx);

}  // namespace opgen::dest
