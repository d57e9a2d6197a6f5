// ctest's myops_check: what the docs say of the example's C++ API (docs/libraries.md, docs/autograd.md).
#include <myops/Functions.h>
#include <ATen/ATen.h>
#include <iostream>
int main() {
  at::Tensor a = at::rand({3}).requires_grad_(), b = at::rand({3}).requires_grad_();
  myops::scale_add(a, b, 3).sum().backward();  // derivatives.yaml's formulas
  bool ok = myops::scale_add(at::ones({2}), at::ones({2}), 3).equal(at::full({2}, 4.0)) &&
            myops::double_it(at::ones({2})).equal(at::full({2}, 2.0)) &&
            a.grad().equal(at::ones({3})) && b.grad().equal(at::full({3}, 3.0));
  std::cout << (ok ? "myops C++: all good" : "myops C++: wrong results") << "\n";
  return ok ? 0 : 1;
}
