// The kernels of ops.yaml.
#include <aotiops/NativeFunctions.h>

#include <ATen/ATen.h>

namespace aotiops::native {

at::Tensor scaled_add_cpu(const at::Tensor& x, const at::Tensor& y, double alpha) {
  TORCH_CHECK(x.sizes() == y.sizes(), "scaled_add: x and y differ in shape");
  return x + alpha * y;
}

at::Tensor scaled_add_meta(const at::Tensor& x, const at::Tensor& y, double alpha) {
  TORCH_CHECK(x.sizes() == y.sizes(), "scaled_add: x and y differ in shape");
  return at::empty_like(x);
}

std::tuple<at::Tensor, at::Tensor> row_minmax_cpu(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 2, "row_minmax: x must be a matrix");
  return {std::get<0>(x.min(1)), std::get<0>(x.max(1))};
}

std::tuple<at::Tensor, at::Tensor> row_minmax_meta(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 2, "row_minmax: x must be a matrix");
  return {x.new_empty({x.size(0)}), x.new_empty({x.size(0)})};
}

at::Tensor pick_columns(const at::Tensor& x, at::IntArrayRef index, const std::optional<at::Tensor>& bias) {
  std::vector<at::Tensor> columns;
  for (int64_t i : index) columns.push_back(x.select(1, i));
  at::Tensor out = at::stack(columns, 1);
  return bias ? out + *bias : out;
}

at::Tensor& scale_(at::Tensor& self, double factor) { return self.mul_(factor); }

}  // namespace aotiops::native
