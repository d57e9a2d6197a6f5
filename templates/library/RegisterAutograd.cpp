// ${generated_comment}
//
// The autograd of namespace ${namespace}, from its derivatives.yaml: a graph node per operator with
// formulas (what grad_fn shows; apply() evaluates the backward formulas) and the Autograd kernels that
// record them, below which the operators run as without autograd. In-place and out= operators also get
// an ADInplaceOrView kernel that bumps the version counter of what they modify; out= operators are not
// differentiable (their Autograd kernel refuses arguments that require grad, as PyTorch's); the
// ADInplaceOrView kernel of a view operator makes its output a view of its base.

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/VariableTypeUtils.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/library.h>

#include <${namespace}/Functions.h>
#include <${namespace}/Operators.h>

namespace ${namespace} {
namespace autograd {
namespace {

// The formula `not_implemented("NAME")`: the gradient fails when it is needed.
[[maybe_unused]] at::Tensor not_implemented(const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, "the derivative for '", name, "' is not implemented.");
  return {};
}

// Whether any gradient reached a node: a formula of one tensor input gives an undefined gradient
// when none did (as torchgen's).
[[maybe_unused]] bool opgen_any_defined(const torch::autograd::variable_list& grads) {
  return std::any_of(grads.begin(), grads.end(), [](const at::Tensor& g) { return g.defined(); });
}

// A Tensor? argument as a tensor, undefined when absent.
[[maybe_unused]] const at::Tensor& opgen_tensor(const at::Tensor& t) { return t; }
template <class OptionalTensor>
at::Tensor opgen_tensor(const OptionalTensor& t) { return t.has_value() ? *t : at::Tensor(); }

// A saved tensor list, unless the node released it (then backward runs a second time: an error).
[[maybe_unused]] std::vector<at::Tensor> opgen_unpack_list(const std::vector<torch::autograd::SavedVariable>& saved, bool released) {
  TORCH_CHECK(!released, torch::autograd::ERR_BACKWARD_TWICE);
  std::vector<at::Tensor> out;
  out.reserve(saved.size());
  for (const torch::autograd::SavedVariable& v : saved) out.push_back(v.unpack());
  return out;
}

// The gradient of a tensor input, or the gradients of a tensor list input, in its place among the
// node's gradients.
[[maybe_unused]] void opgen_copy_range(torch::autograd::variable_list& out, torch::autograd::IndexRange range, const at::Tensor& grad) {
  out[range.first] = grad;
}
[[maybe_unused]] void opgen_copy_range(torch::autograd::variable_list& out, torch::autograd::IndexRange range,
                                       const std::vector<at::Tensor>& grads) {
  TORCH_CHECK(grads.size() == range.second - range.first, "a formula gave ", grads.size(),
              " gradients for a list of ", range.second - range.first, " tensors");
  std::copy(grads.begin(), grads.end(), out.begin() + static_cast<std::ptrdiff_t>(range.first));
}

// Forward mode (level 0): whether a tensor (or a tensor of a list) has a tangent, its tangent (zeros
// when it has none, undefined for an undefined tensor) and its primal value (NAME_t and NAME_p in
// forward formulas); the tangent of an output, when the formula gave one.
[[maybe_unused]] bool opgen_has_tangent(const at::Tensor& t) { return t.defined() && t._fw_grad(/*level=*/0).defined(); }
[[maybe_unused]] bool opgen_has_tangent(at::TensorList ts) {
  return std::any_of(ts.begin(), ts.end(), [](const at::Tensor& t) { return opgen_has_tangent(t); });
}
[[maybe_unused]] at::Tensor opgen_tangent(const at::Tensor& t) {
  if (!t.defined()) return t;
  const at::Tensor& tangent = t._fw_grad(/*level=*/0);
  return tangent.defined() ? tangent : at::zeros_like(t);
}
[[maybe_unused]] std::vector<at::Tensor> opgen_tangent(at::TensorList ts) {
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : ts) out.push_back(opgen_tangent(t));
  return out;
}
[[maybe_unused]] at::Tensor opgen_primal(const at::Tensor& t) { return t.defined() ? t._fw_primal(/*level=*/0) : t; }
[[maybe_unused]] std::vector<at::Tensor> opgen_primal(at::TensorList ts) {
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : ts) out.push_back(opgen_primal(t));
  return out;
}
[[maybe_unused]] void opgen_set_tangent(const at::Tensor& output, const at::Tensor& tangent, bool is_inplace_op) {
  if (output.defined() && tangent.defined()) output._set_fw_grad(tangent, /*level=*/0, is_inplace_op);
}
${view_helpers}
${nodes}
${kernels}
${registrations}
} // namespace
} // namespace autograd
} // namespace ${namespace}

extern "C" void ${anchor}() {}
