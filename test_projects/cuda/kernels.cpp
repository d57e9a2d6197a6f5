// The CPU kernels (kernels.cu has the CUDA ones), the meta function both devices share, and the
// composite.
#include <cudaops/Functions.h>
#include <cudaops/NativeFunctions.h>

#include <ATen/ATen.h>

namespace cudaops::meta {

TORCH_META_FUNC(axpby)(const at::Tensor& self, const at::Tensor& other, double a, double b) {
  TORCH_CHECK(self.sizes() == other.sizes(), "cudaops::axpby: self and other must have the same shape, got ",
              self.sizes(), " and ", other.sizes());
  TORCH_CHECK(self.device() == other.device(), "cudaops::axpby: self and other must be on the same device, got ",
              self.device(), " and ", other.device());
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "cudaops::axpby: self and other must have the same dtype");
  (void)a;
  (void)b;
  set_output_raw_strided(0, self.sizes(), {}, self.options());
}

}  // namespace cudaops::meta

namespace cudaops::native {

TORCH_IMPL_FUNC(axpby_out_cpu)(const at::Tensor& self, const at::Tensor& other, double a, double b,
                               const at::Tensor& out) {
  TORCH_CHECK(self.device().is_cpu(), "cudaops::axpby: the CPU kernel got a tensor on ", self.device());
  out.copy_(self * a + other * b);
}

at::Tensor& clip_cpu_(at::Tensor& self, double limit) {
  TORCH_CHECK(limit >= 0, "cudaops::clip_: limit must not be negative, got ", limit);
  return self.clamp_(-limit, limit);
}

at::Tensor lerp_to(const at::Tensor& self, const at::Tensor& end, double weight) {
  return cudaops::axpby(self, end, 1.0 - weight, weight);
}

}  // namespace cudaops::native
