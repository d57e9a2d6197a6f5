// torchgen's native_function_generation: the functional and out= variants that an operator family
// gets automatically (so that every mutable/in-place operator can be grouped and functionalized).
#pragma once

#include <memory>
#include <vector>

#include "model/NativeFunction.h"
#include "support/Diagnostics.h"

namespace opgen::model {

// The backend indices while they are being built: one per dispatch key, in first-use order.
class BackendIndices {
 public:
  // false when the operator already had a kernel for the key.
  bool add(DispatchKey key, const OperatorName& op, BackendMetadata m);
  std::vector<BackendIndex> take() { return std::move(indices_); }

 private:
  std::vector<BackendIndex> indices_;
};

// What an operator with a kernel that cannot get an out= variant (it returns no tensor) is:
// torchgen's error; a warning in a legacy file (see LoadOptions::Edition); nothing in an operator
// library, whose operators need no out= variant unless `autogen:` asks for one.
enum class MissingOutVariant { Error, Warning, Allowed };

// Appends the generated functions to `functions` and their kernels to `indices`. The kernels are in NS::native, NS being `kernelNamespace` or, when it is empty, the operator's own
// namespace (LoadOptions::defaultKernelNamespace: at::native for ATen, myops::native for a library).
bool addGeneratedNativeFunctions(std::vector<std::unique_ptr<const NativeFunction>>& functions,
                                 BackendIndices& indices, MissingOutVariant missingOut, std::string_view kernelNamespace,
                                 support::Diagnostics& diags);

}  // namespace opgen::model
