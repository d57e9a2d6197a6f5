// The public C++ API as inline wrappers around the ATen Operators API (at::_ops): the functions
// (at::add, and at::symint::add<T> for SymInt overloads), the Tensor methods (Tensor::add), and the
// redispatch functions (at::redispatch::add). torchgen gen.py: ComputeFunction, ComputeTensorMethod,
// ComputeRedispatchFunction; the files core/TensorBody.h and RedispatchFunctions.h.
#pragma once

#include <string>
#include <vector>

#include "dest/Emit.h"
#include "support/Expected.h"

namespace opgen::dest {

// f's at:: functions (for every C++ API overload; only the symint:: templates when f is not a
// function variant). Empty when there is nothing to define.
support::Expected<std::string> functionDefinitions(const model::NativeFunction& f);

// The Tensor method declarations (inside class Tensor) and inline definitions of a method variant
// (an error for an out= function or one without self).
support::Expected<std::string> tensorMethodDeclarations(const model::NativeFunction& f);
support::Expected<std::string> tensorMethodDefinitions(const model::NativeFunction& f);

// f's at::redispatch:: functions (always generated, methods included).
support::Expected<std::string> redispatchDefinitions(const model::NativeFunction& f);

// functionDefinitions of every function, in order (errors reported at each function).
std::vector<std::string> functionDefinitionList(const std::vector<const model::NativeFunction*>& functions,
                                                support::Diagnostics& diags);

// core/TensorBody.h: the Tensor class with its method declarations and definitions.
void emitTensorBody(const EmitContext& ctx, const Writers& out);
// RedispatchFunctions.h.
void emitRedispatchFunctions(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
