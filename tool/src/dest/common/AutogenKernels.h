// The kernels of the variants that `autogen:` adds to an operator family (model/Autogen.h), which
// torchgen writes itself rather than asking for them (gen_composite_functional_kernel and
// gen_composite_out_kernel in native_function_generation.py):
//   - a generated functional operator clones the arguments that its in-place or mutable operator
//     modifies, calls that operator on the clones and returns them (after its own returns);
//   - a generated out= operator calls the functional operator, then resizes each out argument to
//     the result and copies the result into it.
// Both are registered as CompositeExplicitAutograd kernels. ATen's are defined in at::native
// (CompositeViewCopyKernels.cpp, dest/aten), an operator library's in NS::native (AutogenKernels.cpp,
// dest/library); the text is the same but for how it names the operators and the helpers it calls.
#pragma once

#include <string>

#include "api/Types.h"
#include "model/Groups.h"
#include "support/Expected.h"

namespace opgen::dest {

// How the generated kernels spell what they call.
struct AutogenKernelStyle {
  // Where the operators' structs (call()) are: "at::_ops", "myops::_ops".
  std::string opsNamespace = "at::_ops";
  // What qualifies the helpers clone_arg, copy_arg and resize_out_helper: empty in at::native, where
  // ATen's template defines them.
  std::string helpers;
  // Binds a clone of a modified tensor as the at::Tensor value it is. torchgen binds it as the
  // argument's const reference and casts the const away with `const_cast<Tensor&>`, which compiles
  // only inside namespace at.
  bool clonesAsValues = false;
  // Indents as torchgen does (ATen's file is its text byte for byte): the first copy into an out
  // argument twice, the clones after the first not at all. Otherwise every statement by two spaces.
  bool torchgenIndentation = true;
  // The libtorch the text is for (its optional spellings).
  api::LibtorchFacts libtorch;
};

// The definition of g's generated functional kernel (g.functional->generated()), in terms of g's
// in-place or mutable operator (written in the YAML).
support::Expected<std::string> generatedFunctionalKernel(const model::NativeFunctionsGroup& g,
                                                         const AutogenKernelStyle& style);
// The definition of g's generated out= kernel (g.out->generated()), in terms of g's functional operator.
support::Expected<std::string> generatedOutKernel(const model::NativeFunctionsGroup& g, const AutogenKernelStyle& style);

}  // namespace opgen::dest
