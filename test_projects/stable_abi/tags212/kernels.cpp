// The kernels of stabletags, on PyTorch's stable ABI of 2.12.
#include <stabletags/NativeFunctions.h>

#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/util/Exception.h>

namespace stabletags::native {

using torch::stable::Tensor;

Tensor scale_cpu_(const Tensor& self, double alpha) {
  STD_TORCH_CHECK(self.scalar_type() == torch::headeronly::ScalarType::Float && self.is_contiguous(),
                  "scale_: contiguous float32 tensors only");
  float* p = self.mutable_data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i) p[i] *= static_cast<float>(alpha);
  return self;
}

Tensor scale_meta_(const Tensor& self, double alpha) { return self; }

Tensor scale_cpu(const Tensor& self, double alpha) { return scale_cpu_(torch::stable::clone(self), alpha); }

Tensor scale_meta(const Tensor& self, double alpha) { return torch::stable::empty_like(self); }

Tensor scale_out_cpu(const Tensor& self, double alpha, const Tensor& out) {
  Tensor target = out;  // (a second handle of the same tensor)
  torch::stable::copy_(target, self);
  return scale_cpu_(out, alpha);
}

Tensor scale_out_meta(const Tensor& self, double alpha, const Tensor& out) { return out; }

}  // namespace stabletags::native
