// The kernels of stableops, on PyTorch's stable ABI only: torch::stable::Tensor, the stable ops
// (torch/csrc/stable/ops.h) and the header-only types; nothing of libtorch's C++ API.
#include <stableops/Functions.h>
#include <stableops/NativeFunctions.h>

#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/util/Exception.h>

#include <algorithm>
#include <tuple>
#include <vector>

namespace stableops::native {

namespace {

using torch::headeronly::ScalarType;
using torch::stable::Tensor;

void checkFloat(const Tensor& t, const char* op) {
  STD_TORCH_CHECK(t.scalar_type() == ScalarType::Float, op, ": float32 tensors only");
}

}  // namespace

Tensor scale_add_cpu(const Tensor& x, const Tensor& y, double alpha) {
  checkFloat(x, "scale_add");
  checkFloat(y, "scale_add");
  STD_TORCH_CHECK(x.numel() == y.numel(), "scale_add: x and y differ in size");
  const Tensor xc = torch::stable::contiguous(x), yc = torch::stable::contiguous(y);
  Tensor out = torch::stable::empty_like(xc);
  const float* a = xc.const_data_ptr<float>();
  const float* b = yc.const_data_ptr<float>();
  float* o = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < xc.numel(); ++i) o[i] = a[i] + static_cast<float>(alpha) * b[i];
  return out;
}

// Meta kernels run on fake tensors, whose sizes may be symbolic (torch.compile's dynamic shapes),
// which the stable ABI cannot read: they make their outputs without looking at sizes.
Tensor scale_add_meta(const Tensor& x, const Tensor& y, double alpha) { return torch::stable::empty_like(x); }

Tensor scale_add_out_cpu(const Tensor& x, const Tensor& y, double alpha, const Tensor& out) {
  STD_TORCH_CHECK(out.numel() == x.numel() && out.is_contiguous(), "scale_add.out: out must be contiguous, of x's size");
  Tensor result = scale_add_cpu(x, y, alpha);
  Tensor target = out;  // (a second handle of the same tensor)
  torch::stable::copy_(target, result);
  return out;
}

Tensor scale_add_out_meta(const Tensor& x, const Tensor& y, double alpha, const Tensor& out) { return out; }

Tensor scale_cpu_(const Tensor& self, double alpha) {
  checkFloat(self, "scale_");
  STD_TORCH_CHECK(self.is_contiguous(), "scale_: self must be contiguous");
  float* p = self.mutable_data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i) p[i] *= static_cast<float>(alpha);
  return self;
}

Tensor scale_meta_(const Tensor& self, double alpha) { return self; }

// Through the dispatcher, by the library's stable C++ API.
Tensor double_it(const Tensor& x) { return stableops::scale_add(x, x, 1.0); }

Tensor sum_all_cpu(torch::headeronly::HeaderOnlyArrayRef<Tensor> xs) {
  STD_TORCH_CHECK(!xs.empty(), "sum_all: no tensors");
  Tensor out = torch::stable::new_zeros(xs[0], xs[0].sizes());
  float* o = out.mutable_data_ptr<float>();
  for (const Tensor& x : xs) {
    checkFloat(x, "sum_all");
    STD_TORCH_CHECK(x.numel() == out.numel(), "sum_all: the tensors differ in size");
    const Tensor xc = torch::stable::contiguous(x);
    const float* a = xc.const_data_ptr<float>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] += a[i];
  }
  return out;
}

Tensor sum_all_meta(torch::headeronly::HeaderOnlyArrayRef<Tensor> xs) {
  STD_TORCH_CHECK(!xs.empty(), "sum_all: no tensors");
  return torch::stable::empty_like(xs[0]);
}

Tensor filled_like(const Tensor& like, torch::headeronly::HeaderOnlyArrayRef<int64_t> size, double value,
                   const std::optional<ScalarType>& dtype) {
  Tensor out = torch::stable::new_empty(like, size, dtype.value_or(like.scalar_type()));
  return torch::stable::fill_(out, value);
}

std::tuple<Tensor, Tensor> split_sign_cpu(const Tensor& x) {
  checkFloat(x, "split_sign");
  const Tensor xc = torch::stable::contiguous(x);
  Tensor pos = torch::stable::empty_like(xc), neg = torch::stable::empty_like(xc);
  const float* a = xc.const_data_ptr<float>();
  float* p = pos.mutable_data_ptr<float>();
  float* n = neg.mutable_data_ptr<float>();
  for (int64_t i = 0; i < xc.numel(); ++i) {
    p[i] = std::max(a[i], 0.0f);
    n[i] = std::min(a[i], 0.0f);
  }
  return {pos, neg};
}

std::tuple<Tensor, Tensor> split_sign_meta(const Tensor& x) {
  return {torch::stable::empty_like(x), torch::stable::empty_like(x)};
}

std::tuple<Tensor, int64_t> clamp_count_cpu(const Tensor& x, const std::optional<double>& min,
                                            const std::optional<double>& max) {
  checkFloat(x, "clamp_count");
  Tensor out = torch::stable::clone(torch::stable::contiguous(x));
  float* o = out.mutable_data_ptr<float>();
  int64_t changed = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    float v = o[i];
    if (min && v < *min) v = static_cast<float>(*min);
    if (max && v > *max) v = static_cast<float>(*max);
    changed += v != o[i];
    o[i] = v;
  }
  return {out, changed};
}

}  // namespace stableops::native
