// The kernels of the diffops library (declared in the generated <diffops/NativeFunctions.h>). They
// run below autograd: the gradients come from derivatives.yaml.
#include <diffops/NativeFunctions.h>

#include <ATen/ATen.h>

namespace diffops::native {

at::Tensor mul_add(const at::Tensor& self, const at::Tensor& other, const at::Tensor& bias) { return self * other + bias; }
at::Tensor cube(const at::Tensor& self) { return self * self * self; }
at::Tensor& cube_(at::Tensor& self) { return self.mul_(self * self); }
at::Tensor cube_backward(const at::Tensor& grad, const at::Tensor& self) { return grad * 3 * self * self; }
at::Tensor exp2x(const at::Tensor& self) { return at::exp(2 * self); }
at::Tensor& exp2x_(at::Tensor& self) { return self.mul_(2).exp_(); }
at::Tensor scale(const at::Tensor& self, double factor) { return self * factor; }
at::Tensor& scale_(at::Tensor& self, double factor) { return self.mul_(factor); }
at::Tensor& mul_by_(at::Tensor& self, const at::Tensor& other) { return self.mul_(other); }
at::Tensor power(const at::Tensor& self, int64_t exponent) { return self.pow(exponent); }
std::tuple<at::Tensor, at::Tensor> max_along(const at::Tensor& self, int64_t dim) {
  auto [values, indices] = at::max(self, dim);
  return {values, indices};
}
at::Tensor hypot2(const at::Tensor& self, const at::Tensor& other) { return at::sqrt(self * self + other * other); }
std::tuple<at::Tensor, at::Tensor> hypot2_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& other,
                                                   const at::Tensor& result, std::array<bool, 2> output_mask) {
  at::Tensor self_grad, other_grad;  // undefined: no gradient
  if (!grad.defined()) return {self_grad, other_grad};
  if (output_mask[0]) self_grad = grad * self / result;
  if (output_mask[1]) other_grad = grad * other / result;
  return {self_grad, other_grad};
}
at::Tensor lerp_by(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight) { return self + weight * (end - self); }
at::Tensor sign_log(const at::Tensor& self) { return at::sign(self) * at::log1p(at::abs(self)); }
at::Tensor square_wrong(const at::Tensor& self) { return self * self; }
at::Tensor plain(const at::Tensor& self) { return self + 1; }
at::Tensor mul_maybe(const at::Tensor& self, const c10::optional<at::Tensor>& weight) {  // std::optional since PyTorch 2
  return weight.has_value() && weight->defined() ? self * *weight : self.clone();
}
at::Tensor stack_scaled(at::TensorList tensors, const at::Tensor& scale) { return at::stack(tensors) * scale; }
at::Tensor masked_scale(const at::Tensor& self, const c10::optional<at::Tensor>& mask) { return mul_maybe(self, mask); }
at::Tensor weighted_sum(at::TensorList tensors, const at::Tensor& weights) {
  at::Tensor sum = at::zeros_like(tensors[0]);
  for (std::size_t i = 0; i < tensors.size(); ++i) sum = sum + tensors[i] * weights[static_cast<int64_t>(i)];
  return sum;
}
std::tuple<std::vector<at::Tensor>, at::Tensor> weighted_sum_backward(const at::Tensor& grad, at::TensorList tensors,
                                                                      const at::Tensor& weights, std::array<bool, 2> output_mask) {
  std::vector<at::Tensor> tensors_grad(tensors.size());  // undefined: no gradient
  at::Tensor weights_grad;
  if (!grad.defined()) return {tensors_grad, weights_grad};
  std::vector<at::Tensor> products;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (output_mask[0]) tensors_grad[i] = grad * weights[static_cast<int64_t>(i)];
    products.push_back((grad * tensors[i]).sum());
  }
  if (output_mask[1]) weights_grad = at::stack(products);
  return {tensors_grad, weights_grad};
}
at::Tensor swap01(const at::Tensor& self) { return self.transpose(0, 1); }
at::Tensor swap01_copy(const at::Tensor& self) { return self.transpose(0, 1).clone(); }
// swap01's inverse, for functionalization (torch.compile): the base of a view mutated_view of it. The
// transposition is its own inverse, so the base's content is mutated_view swapped back (a view of it
// where a view may be returned).
at::Tensor swap01_inverse(const at::Tensor& base, const at::Tensor& mutated_view, InverseReturnMode inverse_return_mode) {
  (void)base;
  at::Tensor swapped = mutated_view.transpose(0, 1);
  return inverse_return_mode == InverseReturnMode::NeverView ? swapped.clone() : swapped;
}
std::tuple<at::Tensor, at::Tensor> sincos(const at::Tensor& self) { return {at::sin(self), at::cos(self)}; }
at::Tensor& mul_add_out(const at::Tensor& self, const at::Tensor& other, const at::Tensor& bias, at::Tensor& out) {
  return at::add_out(out, self * other, bias);
}

at::Tensor scale_by_name(const at::Tensor& self, c10::string_view mode) {
  TORCH_CHECK(mode == "double" || mode == "triple", "diffops::scale_by_name: mode is 'double' or 'triple'");
  return self * (mode == "triple" ? 3 : 2);
}

at::Tensor argmax_flat(const at::Tensor& self) { return self.flatten().argmax(); }

}  // namespace diffops::native
