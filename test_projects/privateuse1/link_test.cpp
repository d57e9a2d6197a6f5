// Uses no symbol of the hostdev library, only ATen: linking the library must be enough for its
// kernels to be registered (the linker keeps a shared library nothing references, and a static
// library's registration objects).
#include <ATen/ATen.h>

#include <iostream>

int main() {
  const at::Tensor x = at::ones({3}, at::Device(c10::DeviceType::PrivateUse1));
  const at::Tensor sum = (x + x).cpu();
  if (x.device().type() != c10::DeviceType::PrivateUse1 || !at::equal(sum, at::full({3}, 2.0))) {
    std::cerr << "unexpected: " << x.device() << " " << sum << "\n";
    return 1;
  }
  std::cout << "ok: " << x.device() << " " << sum.sum().item<float>() << "\n";
  return 0;
}
