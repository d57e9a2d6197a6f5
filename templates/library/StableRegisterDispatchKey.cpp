// ${generated_comment}
//
// The ${dispatch_key} kernels of namespace ${namespace}, registered boxed through the stable ABI
// (STABLE_ABI ${stable_abi}).

#include <torch/csrc/stable/library.h>
${extra_includes}
#include <${namespace}/NativeFunctions.h>

// In a namespace of this file's own (a unity build may compile several registration files as one
// translation unit), anonymous: nothing here is visible outside this file.
namespace opgen_${unit} {
namespace {
${definitions}
} // namespace
} // namespace opgen_${unit}

STABLE_TORCH_LIBRARY_IMPL(${namespace}, ${dispatch_key}, m) {
  ${registrations}
}

extern "C" void ${anchor}() {}
