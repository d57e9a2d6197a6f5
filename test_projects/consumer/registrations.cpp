// Uses no symbol of the opgen libraries it links: each one's operators (or kernels) must be
// registered all the same, however many are linked and of whichever kind.
#include <ATen/core/dispatch/Dispatcher.h>

#include <iostream>

int main() {
  int failures = 0;
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const char* name : {"vision::box_area", "twiceops::twice", "thriceops::thrice"}) {
    const bool found = dispatcher.findSchema({name, ""}).has_value();
    std::cout << name << ": " << (found ? "registered" : "NOT registered") << "\n";
    failures += found ? 0 : 1;
  }
  const auto abs = dispatcher.findSchema({"aten::abs", ""});
  const bool kernel = abs && abs->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1);
  std::cout << "aten::abs for PrivateUse1 (absdev): " << (kernel ? "registered" : "NOT registered") << "\n";
  failures += kernel ? 0 : 1;
  return failures == 0 ? 0 : 1;
}
