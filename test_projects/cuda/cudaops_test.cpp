// The operators from C++: each on the CPU, and with CUDAOPS_CUDA each on the GPU too (against ATen's
// results on the CPU).
#include <cudaops/Functions.h>

#include <ATen/ATen.h>

#include <iostream>
#include <sstream>
#include <vector>

// No test framework (a GPU machine with pip's PyTorch may have none): each check counts, a failed
// one is printed and fails the run.
namespace {
int checks = 0, failures = 0;
struct Check {
  bool ok;
  std::ostringstream what;
  Check(bool ok, const char* expr, int line) : ok(ok) { what << "cudaops_test.cpp:" << line << ": " << expr; }
  ~Check() {
    ++checks;
    if (!ok) {
      ++failures;
      std::cerr << "FAIL: " << what.str() << "\n";
    }
  }
  template <typename T>
  Check& operator<<(const T& x) {
    what << " " << x;
    return *this;
  }
};
}  // namespace
#define EXPECT_TRUE(cond) Check((cond), #cond, __LINE__)
#define EXPECT_EQ(a, b) Check((a) == (b), #a " == " #b, __LINE__)
#define EXPECT_THROW(stmt, type)          \
  do {                                    \
    bool thrown = false;                  \
    try {                                 \
      stmt;                               \
    } catch (const type&) {               \
      thrown = true;                      \
    }                                     \
    Check(thrown, #stmt " throws", __LINE__); \
  } while (false)
#define TEST(suite, name) void suite##_##name()

namespace {

std::vector<at::Device> devices() {
  std::vector<at::Device> d = {at::kCPU};
#if CUDAOPS_CUDA
  d.emplace_back(at::kCUDA);
#endif
  return d;
}

TEST(CudaOps, AxpbyVariantsAgreeWithATen) {
  for (const at::Device device : devices()) {
    const at::Tensor x = at::arange(6, at::kFloat).reshape({2, 3}).to(device);
    const at::Tensor y = at::ones({2, 3}, at::kFloat).to(device);
    const at::Tensor expected = x * 2 + y * -1;
    EXPECT_TRUE(at::allclose(cudaops::axpby(x, y, 2, -1).cpu(), expected.cpu())) << device;
    at::Tensor out = at::empty({2, 3}, x.options());
    cudaops::axpby_out(out, x, y, 2, -1);
    EXPECT_TRUE(at::allclose(out.cpu(), expected.cpu())) << device;
    at::Tensor inplace = x.clone();
    cudaops::axpby_(inplace, y, 2, -1);
    EXPECT_TRUE(at::allclose(inplace.cpu(), expected.cpu())) << device;
    EXPECT_EQ(cudaops::axpby(x, y, 2, -1).device(), device);
  }
}

TEST(CudaOps, AutogenVariantsAndTheComposite) {
  for (const at::Device device : devices()) {
    const at::Tensor x = at::linspace(-3, 3, 7, at::kDouble).to(device);
    const at::Tensor expected = x.clamp(-1.5, 1.5);
    EXPECT_TRUE(at::allclose(cudaops::clip(x, 1.5).cpu(), expected.cpu())) << device;
    EXPECT_TRUE(at::allclose(x.cpu(), at::linspace(-3, 3, 7, at::kDouble))) << "clip changed its input on " << device;
    at::Tensor out = at::empty_like(x);
    cudaops::clip_out(out, x, 1.5);
    EXPECT_TRUE(at::allclose(out.cpu(), expected.cpu())) << device;
    const at::Tensor end = at::full({7}, 10.0, x.options());
    EXPECT_TRUE(at::allclose(cudaops::lerp_to(x, end, 0.25).cpu(), (x + 0.25 * (end - x)).cpu())) << device;
  }
}

TEST(CudaOps, ErrorsComeFromTheMetaFunction) {
  const at::Tensor x = at::ones({2}), y = at::ones({3});
  EXPECT_THROW(cudaops::axpby(x, y, 1, 1), c10::Error);
}

}  // namespace

int main() {
  CudaOps_AxpbyVariantsAgreeWithATen();
  CudaOps_AutogenVariantsAndTheComposite();
  CudaOps_ErrorsComeFromTheMetaFunction();
  std::cout << "cudaops_test: " << checks - failures << "/" << checks << " checks passed\n";
  return failures == 0 ? 0 : 1;
}
