// PyTorch's Python bindings of ATen (torchgen's packaged/autograd/gen_python_functions.py): the
// methods of torch.Tensor (python_variable_methods.cpp), the functions of torch (python_torch_functions_N.cpp,
// sharded) and of torch.nn, fft, linalg, nested, sparse and special, the structseq return types
// (python_return_types.{h,cpp}) and the Tag enum (python_enum_tag.cpp).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "api/Python.h"
#include "dest/common/Emit.h"
#include "support/Diagnostics.h"

namespace opgen::dest {

struct PythonBindingsContext {
  // The Python signatures of the functions that get bindings, then the deprecated ones: as methods
  // (self implicit) and as functions.
  const std::vector<api::python::SignaturePair>& methods;
  const std::vector<api::python::SignaturePair>& functions;
  const std::set<std::string>& validTags;
  // How the template folder is named in the files' "@generated from DIR/FILE" comment.
  std::string templateDirForComments;
  support::Diagnostics& diags;
};

// Writes the 14 files (templates named like them, read by `out`). Nothing is written when a
// function cannot be bound (an error at its location, naming it).
void emitPythonBindings(const PythonBindingsContext& ctx, Writer& out);

// torchgen's should_trace: whether the tracer records the function (the parser's traceable flag).
bool shouldTrace(const model::NativeFunction& f);

}  // namespace opgen::dest
