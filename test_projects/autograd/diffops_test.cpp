// The diffops operators from C++: backward() through the generated Autograd kernels gives the
// gradients of derivatives.yaml's formulas, compared with the gradients of the same computation
// written with ATen operators.
#include <diffops/Functions.h>

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>

namespace {

at::Tensor leaf(at::IntArrayRef sizes, int seed) {
  at::manual_seed(seed);
  return at::rand(sizes, at::kDouble).add_(0.5).requires_grad_(true);
}

// The gradients of sum(f(inputs)) with respect to the inputs.
template <class F>
std::vector<at::Tensor> gradients(const std::vector<at::Tensor>& inputs, F f) {
  std::vector<at::Tensor> copies;
  for (const at::Tensor& t : inputs) copies.push_back(t.detach().clone().requires_grad_(true));
  f(copies).sum().backward();
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : copies) out.push_back(t.grad());
  return out;
}

void expectSameGradients(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a[i].defined()) << "input " << i << " has no gradient";
    EXPECT_TRUE(at::allclose(a[i], b[i])) << "input " << i << ":\n" << a[i] << "\nexpected\n" << b[i];
  }
}

TEST(Diffops, BackwardOfSeveralInputs) {
  const std::vector<at::Tensor> in = {leaf({3, 4}, 1), leaf({3, 4}, 2), leaf({3, 4}, 3)};
  expectSameGradients(gradients(in, [](auto& t) { return diffops::mul_add(t[0], t[1], t[2]); }),
                      gradients(in, [](auto& t) { return t[0] * t[1] + t[2]; }));
}

TEST(Diffops, BackwardThroughALibraryBackwardOperatorAndTheResult) {
  const std::vector<at::Tensor> in = {leaf({5}, 4)};
  expectSameGradients(gradients(in, [](auto& t) { return diffops::cube(t[0]); }),
                      gradients(in, [](auto& t) { return t[0] * t[0] * t[0]; }));
  expectSameGradients(gradients(in, [](auto& t) { return diffops::exp2x(t[0]); }),
                      gradients(in, [](auto& t) { return at::exp(2 * t[0]); }));
  expectSameGradients(gradients(in, [](auto& t) { return diffops::power(t[0], 4); }),
                      gradients(in, [](auto& t) { return t[0].pow(4); }));
}

TEST(Diffops, GradFnNamesTheNode) {
  const at::Tensor y = diffops::mul_add(leaf({2}, 5), leaf({2}, 6), leaf({2}, 7));
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "MulAddBackward0");
  EXPECT_EQ(diffops::scale(leaf({2}, 8), 2.0).grad_fn()->name(), "ScaleBackward0");
}

TEST(Diffops, NonDifferentiableOutputAndArgument) {
  const at::Tensor x = leaf({3, 4}, 9);
  auto [values, indices] = diffops::max_along(x, 1);
  EXPECT_TRUE(values.requires_grad());
  EXPECT_FALSE(indices.requires_grad());
  values.sum().backward();
  EXPECT_TRUE(at::equal(x.grad().sum(1), at::ones({3}, at::kDouble)));
  const at::Tensor w = leaf({3, 4}, 10);
  const at::Tensor y = diffops::lerp_by(leaf({3, 4}, 11), leaf({3, 4}, 12), w);
  y.sum().backward();
  EXPECT_FALSE(w.grad().defined());
}

TEST(Diffops, InPlace) {
  const at::Tensor x = leaf({4}, 13);
  EXPECT_THROW(diffops::scale_(const_cast<at::Tensor&>(x), 2.0), c10::Error);  // a leaf that requires grad
  at::Tensor y = x * 1;
  const auto version = y._version();
  diffops::scale_(y, 3.0);
  EXPECT_EQ(y._version(), version + 1);
  EXPECT_EQ(y.grad_fn()->name(), "ScaleBackward1");
  y.sum().backward();
  EXPECT_TRUE(at::allclose(x.grad(), at::full({4}, 3.0, at::kDouble)));
}

TEST(Diffops, InPlaceFormulaSeesTheValueBeforeTheCall) {
  const std::vector<at::Tensor> in = {leaf({5}, 15), leaf({5}, 16)};
  expectSameGradients(gradients(in, [](auto& t) { at::Tensor y = t[0] * 1; return diffops::mul_by_(y, t[1]); }),
                      gradients(in, [](auto& t) { return t[0] * t[1]; }));
}

TEST(Diffops, OptionalTensorInput) {
  const std::vector<at::Tensor> in = {leaf({4}, 17), leaf({4}, 18)};
  expectSameGradients(gradients(in, [](auto& t) { return diffops::mul_maybe(t[0], t[1]); }),
                      gradients(in, [](auto& t) { return t[0] * t[1]; }));
  const at::Tensor x = leaf({4}, 19);
  diffops::mul_maybe(x, c10::nullopt).sum().backward();
  EXPECT_TRUE(at::equal(x.grad(), at::ones({4}, at::kDouble)));
}

TEST(Diffops, TensorListInput) {
  const std::vector<at::Tensor> in = {leaf({3}, 20), leaf({3}, 21), leaf({3}, 22)};
  expectSameGradients(gradients(in, [](auto& t) { return diffops::stack_scaled({t[0], t[1]}, t[2]); }),
                      gradients(in, [](auto& t) { return at::stack({t[0], t[1]}) * t[2]; }));
}

TEST(Diffops, OneFormulaForATensorListAndATensor) {
  const std::vector<at::Tensor> in = {leaf({3}, 28), leaf({3}, 29), leaf({2}, 30)};
  expectSameGradients(gradients(in, [](auto& t) { return diffops::weighted_sum({t[0], t[1]}, t[2]); }),
                      gradients(in, [](auto& t) { return t[0] * t[2][0] + t[1] * t[2][1]; }));
}

TEST(Diffops, TwoDifferentiableOutputs) {
  const std::vector<at::Tensor> in = {leaf({4}, 23)};
  expectSameGradients(gradients(in, [](auto& t) { auto [s, c] = diffops::sincos(t[0]); return s * 2 + c; }),
                      gradients(in, [](auto& t) { return at::sin(t[0]) * 2 + at::cos(t[0]); }));
}

TEST(Diffops, OutOverloadRefusesGradients) {
  at::Tensor out = at::empty({3}, at::kDouble);
  try {
    diffops::mul_add_out(out, leaf({3}, 24), leaf({3}, 25), leaf({3}, 26));
    FAIL() << "mul_add.out accepted inputs that require grad";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("mul_add(): functions with out=... arguments don't support automatic "
                                         "differentiation, but one of the arguments requires grad."),
              std::string::npos)
        << e.what();
  }
  const auto version = out._version();
  const at::Tensor a = at::ones({3}, at::kDouble);
  diffops::mul_add_out(out, a, a, a);
  EXPECT_TRUE(at::equal(out, at::full({3}, 2.0, at::kDouble)));
  EXPECT_EQ(out._version(), version + 1);
}

TEST(Diffops, ViewOfItsInput) {
  const at::Tensor x = leaf({2, 3}, 27);
  at::Tensor y = x * 1;
  at::Tensor v = diffops::swap01(y);
  EXPECT_TRUE(v.is_view());
  EXPECT_TRUE(v._base().is_same(y));
  v.mul_(3);  // rebases y's history through the view
  y.sum().backward();
  EXPECT_TRUE(at::allclose(x.grad(), at::full({2, 3}, 3.0, at::kDouble)));
}

TEST(Diffops, NotImplementedFailsWhenNeeded) {
  const at::Tensor y = diffops::sign_log(leaf({3}, 14));
  try {
    y.sum().backward();
    FAIL() << "backward of sign_log did not fail";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the derivative for 'sign_log' is not implemented"), std::string::npos) << e.what();
  }
}

}  // namespace
