#include <myops/Functions.h>
#include <ATen/ATen.h>
#include <iostream>
int main() { std::cout << myops::scale_add(at::ones({2}), at::ones({2}), /*alpha=*/3) << "\n"; }
