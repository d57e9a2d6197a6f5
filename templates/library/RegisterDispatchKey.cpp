// ${generated_comment}
//
// The ${dispatch_key} kernels of namespace ${namespace}: a wrapper per operator (device checks and
// guards; for structured operators the meta() and impl() steps) registered with the dispatcher.

#include <ATen/DeviceGuard.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/op_registration/adaption.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_copy_from_and_resize.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Optional.h>
#include <torch/library.h>
${extra_includes}

#include <${namespace}/NativeFunctions.h>

// The wrappers are written against ATen's names (Tensor, IntArrayRef, ...), so they live inside at::,
// in an anonymous namespace (nothing here is visible outside this file) within one of this file's own
// (a unity build may compile several registration files as one translation unit).
namespace at {
namespace ${unit} {
namespace {
${helpers}
${definitions}

TORCH_LIBRARY_IMPL(${namespace}, ${dispatch_key}, m) {
  ${registrations}
}
${autograd_registrations}
} // namespace
} // namespace ${unit}
} // namespace at

extern "C" void ${anchor}() {}
