// ${generated_comment}
//
// The autograd of namespace ${namespace}, from its derivatives.yaml: a graph node per operator with
// formulas (what grad_fn shows; apply() evaluates the backward formulas) and the Autograd kernels that
// record them, below which the operators run as without autograd. In-place operators also get an
// ADInplaceOrView kernel that bumps the version counter of what they modify.

#include <algorithm>
#include <array>
#include <mutex>
#include <string>
#include <tuple>

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

// Forward mode (level 0): whether a tensor has a tangent, its tangent (zeros when it has none) and
// its primal value (NAME_t and NAME_p in forward formulas).
[[maybe_unused]] bool opgen_has_tangent(const at::Tensor& t) { return t.defined() && t._fw_grad(/*level=*/0).defined(); }
[[maybe_unused]] at::Tensor opgen_tangent(const at::Tensor& t) {
  const at::Tensor& tangent = t._fw_grad(/*level=*/0);
  return tangent.defined() ? tangent : at::zeros_like(t);
}
[[maybe_unused]] at::Tensor opgen_primal(const at::Tensor& t) { return t._fw_primal(/*level=*/0); }

${nodes}
${kernels}
${registrations}
} // namespace
} // namespace autograd
} // namespace ${namespace}

extern "C" void ${anchor}() {}
