// Calls an operator of the installed library through its C++ API: the header comes from the
// installed include folder, and linking vision::vision registers the operators.
#include <vision/Functions.h>

#include <ATen/ATen.h>
#include <iostream>

int main() {
  const at::Tensor boxes = at::tensor({0.0, 0.0, 2.0, 3.0, 1.0, 1.0, 2.0, 2.0}).reshape({2, 4});
  const at::Tensor area = vision::box_area(boxes);
  std::cout << "box_area: " << area << "\n";
  return at::allclose(area, at::tensor({6.0, 1.0}).to(area.dtype())) ? 0 : 1;
}
