// ${generated_comment}
//
// Declares the operators of namespace ${namespace} to PyTorch's dispatcher through the stable ABI
// (STABLE_ABI ${stable_abi}).

#include <torch/csrc/stable/library.h>

STABLE_TORCH_LIBRARY(${namespace}, m) {
  ${schemas}
}

// Linking the library references ${anchor} (see add_operator_library), which references every
// registration file, so that a static link keeps them all.
${anchor_declarations}
extern "C" void ${anchor}() {
  ${anchor_calls}
}
