#pragma once
// ${generated_comment}
//
// The C++ API of the operators in namespace ${namespace}: ${namespace}::op(...) for every operator,
// with the signatures PyTorch's own operators have in at:: (default arguments, op_out(out, ...) and
// op_outf(..., out), TensorOptions for factories, _symint overloads). Every call goes through the
// dispatcher, so it reaches the kernel registered for the arguments' device.

#include <${namespace}/Operators.h>

#include <c10/core/SymIntArrayRef.h>
#include <c10/core/TensorOptions.h>

namespace ${namespace} {
${definitions}
} // namespace ${namespace}
