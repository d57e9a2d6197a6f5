// ${generated_comment}
//
// Declares the operators of namespace ${namespace} to PyTorch's dispatcher, with their tags, and what
// autograd does with those that have no derivatives.yaml formulas.

#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/library.h>

TORCH_LIBRARY(${namespace}, m) {
  ${schemas}
}
${autograd}
// Linking the library references ${anchor} (see add_operator_library), which references every
// registration file, so that a static link keeps them all.
${anchor_declarations}
extern "C" void ${anchor}() {
  ${anchor_calls}
}
