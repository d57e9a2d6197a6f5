// The kernel of myops::scale_shift (ops.yaml); opgen generates its declaration and its registration.
#include <myops/NativeFunctions.h>

#include <ATen/ATen.h>

namespace myops::native {

at::Tensor scale_shift_cpu(const at::Tensor& self, double factor, double offset) {
  return self * factor + offset;
}

}  // namespace myops::native
