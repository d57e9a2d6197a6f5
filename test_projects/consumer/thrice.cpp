#include <thriceops/NativeFunctions.h>

#include <ATen/ATen.h>
namespace thriceops::native {
at::Tensor thrice(const at::Tensor& self) { return self * 3; }
}
