#include "PrivateUse1NativeFunctions.h"
namespace absdev {
at::Tensor PrivateUse1NativeFunctions::abs(const at::Tensor& self) { return self; }
}
