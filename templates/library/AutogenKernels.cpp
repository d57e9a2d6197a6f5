// ${generated_comment}
//
// The kernels of the operators that `autogen:` entries add to namespace ${namespace}, declared in
// NativeFunctions.h and registered as CompositeExplicitAutograd kernels: a generated functional
// operator runs its in-place (or mutable) operator on copies of the tensors that one modifies and
// returns them; a generated out= operator runs the functional operator, then resizes each out tensor
// to the result and copies the result into it.

#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <c10/util/Exception.h>

#include <cstddef>
#include <vector>

#include <${namespace}/NativeFunctions.h>
#include <${namespace}/Operators.h>

namespace ${namespace}::native {
// What the kernels below call (in a namespace of this file alone, also in a unity build).
namespace autogen_helpers {
namespace {

// The copy that a generated functional operator modifies in place of its argument.
[[maybe_unused]] at::Tensor clone_arg(const at::Tensor& t) { return t.clone(); }
[[maybe_unused]] std::vector<at::Tensor> clone_arg(at::TensorList ts) {
  std::vector<at::Tensor> copies;
  copies.reserve(ts.size());
  for (const at::Tensor& t : ts) copies.push_back(t.clone());
  return copies;
}

// An out tensor takes the result's shape (resize_output: with a warning when it had elements and
// another shape) ...
[[maybe_unused]] void resize_out_helper(const at::Tensor& out, const at::Tensor& result) {
  at::native::resize_output(out, result.sizes());
}
[[maybe_unused]] void resize_out_helper(at::TensorList outs, at::TensorList results) {
  TORCH_INTERNAL_ASSERT(outs.size() == results.size());
  for (std::size_t i = 0; i < outs.size(); ++i) resize_out_helper(outs[i], results[i]);
}

// ... and its values, when it has the result's dtype and device.
[[maybe_unused]] void copy_arg(const at::Tensor& out, const at::Tensor& result) {
  TORCH_CHECK(out.dtype() == result.dtype(), "the out tensor has dtype ", out.dtype(), ", but the result has dtype ",
              result.dtype());
  TORCH_CHECK(out.device() == result.device(), "the out tensor is on device ", out.device(),
              ", but the result is on device ", result.device());
  out.copy_(result);
}
[[maybe_unused]] void copy_arg(at::TensorList outs, at::TensorList results) {
  TORCH_INTERNAL_ASSERT(outs.size() == results.size());
  for (std::size_t i = 0; i < outs.size(); ++i) copy_arg(outs[i], results[i]);
}

} // namespace
} // namespace autogen_helpers
${definitions}
} // namespace ${namespace}::native
