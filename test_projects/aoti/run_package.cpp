// Runs a model compiled by AOTInductor (a .pt2 package) from C++, without Python, and checks its
// outputs against eager PyTorch's (written by aoti_package.py):
//
//   run_package MODEL.pt2 IO.pt
//
// The program links aotiops: its operators are registered, and the shims that the compiled model
// calls are there.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/serialize.h>
#include <torch/torch.h>

// Whether a Python interpreter is in this process (a library of it mapped).
static bool pythonLoaded() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libpython") != std::string::npos) return true;
  return false;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: run_package MODEL.pt2 IO.pt\n";
    return 2;
  }
  std::ifstream file(argv[2], std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // The inputs x, y, then eager's outputs.
  const c10::List<c10::IValue> io = torch::pickle_load(bytes).toList();
  std::vector<at::Tensor> inputs = {io.get(0).toTensor(), io.get(1).toTensor()};

  // [run]
  torch::inductor::AOTIModelPackageLoader loader(argv[1]);
  std::vector<at::Tensor> outputs = loader.run(inputs);
  // [run]

  if (outputs.size() + 2 != io.size()) {
    std::cerr << "FAIL: " << outputs.size() << " outputs, eager has " << io.size() - 2 << "\n";
    return 1;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const at::Tensor expected = io.get(i + 2).toTensor();
    if (!at::allclose(outputs[i], expected)) {
      std::cerr << "FAIL: output " << i << " differs from eager's:\n" << outputs[i] << "\nexpected\n" << expected << "\n";
      return 1;
    }
  }
  if (pythonLoaded()) {
    std::cerr << "FAIL: a Python library is loaded in this process\n";
    return 1;
  }
  std::cout << "ok: " << argv[1] << " from C++ without Python: eager's " << outputs.size() << " outputs\n";
  return 0;
}
