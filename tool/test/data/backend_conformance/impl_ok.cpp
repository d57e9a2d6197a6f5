// Defines every kernel of impl.yaml, add_out twice.
#include "PrivateUse1NativeFunctions.h"
namespace impl_ns {
at::Tensor& ImplKernels::add_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out) { return out; }
at::Tensor& ImplKernels::add_out(const at::Tensor& self, const at::Scalar& other, const at::Scalar& alpha, at::Tensor& out) { return out; }
at::Tensor ImplKernels:: abs(const at::Tensor& self) {
  // A qualified call does not count as a definition.
  return impl_ns::ImplKernels::abs(self);
}
}
