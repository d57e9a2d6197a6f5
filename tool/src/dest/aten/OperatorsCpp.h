// The ATen Operators API: one struct per operator in at::_ops (at::_ops::add_Tensor) with its
// schema type, names and the call()/redispatch() entry points into the dispatcher (torchgen gen.py,
// ComputeOperators and its note "The ATen Operators API"). The struct declarations go into
// Operators.h / MethodOperators.h / ops/{op}_ops.h; their definitions into Operators_{shard}.cpp.
#pragma once

#include <string>
#include <vector>

#include "dest/common/Emit.h"
#include "support/Expected.h"

namespace opgen::dest {

// `struct TORCH_API NAME { ... };` for f (with a leading newline, as torchgen writes it).
support::Expected<std::string> operatorDeclaration(const model::NativeFunction& f);

// The typed-handle factory and the call()/redispatch() definitions of f's struct. With static
// dispatch backends, call() calls the backends' kernels instead of the dispatcher.
support::Expected<std::string> operatorDefinitions(const model::NativeFunction& f,
                                                   const std::vector<model::BackendIndex>& staticDispatch);

// The declarations of these functions, in order (errors reported at each function).
std::vector<std::string> operatorDeclarations(const std::vector<const model::NativeFunction*>& functions,
                                              support::Diagnostics& diags);

// Operators_{0..4}.cpp and OperatorsEverything.cpp, sharded by the functions' root names.
void emitOperatorsCpp(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
