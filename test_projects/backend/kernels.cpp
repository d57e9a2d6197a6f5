// The kernels of structured.yaml, as a backend author writes them against the generated header.
#include "PrivateUse1NativeFunctions.h"

namespace mydev::native {

void PrivateUse1NativeFunctions::structured_add_out::impl(const at::Tensor& self, const at::Tensor& other,
                                                          const at::Scalar& alpha, const at::Tensor& out) {}
void PrivateUse1NativeFunctions::structured_maximum_out::impl(const at::Tensor& self, const at::Tensor& other,
                                                              const at::Tensor& out) {}
at::Tensor& PrivateUse1NativeFunctions::div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return out;
}
at::Tensor& PrivateUse1NativeFunctions::abs_out(const at::Tensor& self, at::Tensor& out) { return out; }

}  // namespace mydev::native
