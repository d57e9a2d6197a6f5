// core/TensorBody.h: the Tensor class with its methods (Tensor::add), declared inside the class and
// defined inline as calls of the ATen Operators API (torchgen gen.py: ComputeTensorMethod).
#pragma once

#include <string>

#include "dest/common/Emit.h"
#include "support/Expected.h"

namespace opgen::dest {

// The Tensor method declarations (inside class Tensor) and inline definitions of a method variant
// (an error for an out= function or one without self).
support::Expected<std::string> tensorMethodDeclarations(const model::NativeFunction& f);
support::Expected<std::string> tensorMethodDefinitions(const model::NativeFunction& f);

void emitTensorBody(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
