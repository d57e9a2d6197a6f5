// The stableops operators from C++, through the library's stable C++ API (stableops/Functions.h:
// torch_call_dispatcher), with stable tensors only.
#include <stableops/Functions.h>

#include <torch/csrc/stable/ops.h>

#include <gtest/gtest.h>

#include <vector>

namespace {

using torch::headeronly::ScalarType;
using torch::stable::Tensor;

Tensor tensorOf(const std::vector<float>& values) {
  Tensor t = torch::stable::empty({static_cast<int64_t>(values.size())}, ScalarType::Float);
  float* p = t.mutable_data_ptr<float>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

std::vector<float> valuesOf(const Tensor& t) {
  const Tensor c = torch::stable::contiguous(t);
  const float* p = c.const_data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

TEST(StableOps, ScaleAdd) {
  EXPECT_EQ(valuesOf(stableops::scale_add(tensorOf({1, 2}), tensorOf({10, 20}), 0.5)), (std::vector<float>{6, 12}));
}

TEST(StableOps, OutAndInplace) {
  Tensor out = tensorOf({0, 0});
  Tensor r = stableops::scale_add_outf(tensorOf({1, 2}), tensorOf({1, 1}), 2.0, out);
  EXPECT_EQ(valuesOf(out), (std::vector<float>{3, 4}));
  EXPECT_EQ(r.data_ptr(), out.data_ptr());
  Tensor s = tensorOf({1, -2});
  stableops::scale_(s, 3.0);
  EXPECT_EQ(valuesOf(s), (std::vector<float>{3, -6}));
}

TEST(StableOps, CompositeListsAndTuples) {
  EXPECT_EQ(valuesOf(stableops::double_it(tensorOf({1, 2}))), (std::vector<float>{2, 4}));
  EXPECT_EQ(valuesOf(stableops::sum_all({tensorOf({1, 2}), tensorOf({3, 4}), tensorOf({5, 6})})),
            (std::vector<float>{9, 12}));
  Tensor f = stableops::filled_like(tensorOf({0}), {2, 3}, 1.5, ScalarType::Double);
  EXPECT_EQ(f.scalar_type(), ScalarType::Double);
  EXPECT_EQ(f.numel(), 6);
  EXPECT_EQ(f.const_data_ptr<double>()[5], 1.5);
  auto [pos, neg] = stableops::split_sign(tensorOf({-1, 2}));
  EXPECT_EQ(valuesOf(pos), (std::vector<float>{0, 2}));
  EXPECT_EQ(valuesOf(neg), (std::vector<float>{-1, 0}));
  // (clamp_count, whose returns differ in type, has no C++ API function: see docs/stable-abi.md)
}

TEST(StableOps, KernelErrorsArriveAsExceptions) {
  Tensor d = torch::stable::empty({2}, ScalarType::Double);
  EXPECT_THROW(stableops::scale_add(d, d, 1.0), std::runtime_error);
}

}  // namespace
