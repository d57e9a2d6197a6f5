// annotated_fn_args.py (torchgen's packaged/autograd/gen_annotated_fn_args.py): for the __torch_function__
// tests of PyTorch (test/test_overrides.py), the required arguments of every function with Python
// bindings, by the Python namespace that binds it (torch._C._VariableFunctions, torch._C._nn,
// torch._C._linalg, torch._C._special, torch._C._fft, torch.Tensor).
#pragma once

#include <vector>

#include "dest/common/Emit.h"
#include "model/NativeFunction.h"
#include "support/Diagnostics.h"

namespace opgen::dest::autograd {

// Writes annotated_fn_args.py from the template annotated_fn_args.py.in; false (nothing written) after
// reporting, at its entry, the first function whose required argument has no Python type.
bool emitAnnotatedFnArgs(const std::vector<const model::NativeFunction*>& functions, Writer& out,
                         support::Diagnostics& diags);

}  // namespace opgen::dest::autograd
