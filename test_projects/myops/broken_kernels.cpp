// The kernels of docs/libraries.md's example of the link-time check ("Kernels are checked at link
// time"): scale_add_cpu defined with a double where ops.yaml says Scalar, double_it not defined. The
// plugin test builds the library with this file as kernels.cpp and expects expected_kernel_errors.txt.
#include <myops/NativeFunctions.h>
#include <ATen/ATen.h>
namespace myops::native {
at::Tensor scale_add_cpu(const at::Tensor& self, const at::Tensor& other, double alpha) {
  return self + other * alpha;
}
}
