// VariableType.h and (not yet) VariableType_0..9.cpp of ATen's autograd (torchgen's
// packaged/autograd/gen_variable_type.py): the Autograd dispatch keys' kernels. The header is the
// template with its generated comment; the kernels need derivatives.yaml, which opgen does not read for
// ATen yet.
#pragma once

#include <string>

#include "dest/common/Emit.h"

namespace opgen::dest::autograd {

// Writes VariableType.h from the template of that name.
void emitVariableTypeHeader(const std::string& commentDir, Writer& out);

}  // namespace opgen::dest::autograd
