// The public C++ API as inline wrappers around the ATen Operators API (at::_ops): the functions
// (at::add, and at::symint::add<T> for SymInt overloads) of Functions.h and ops/{op}.h, and the
// redispatch functions (at::redispatch::add) of RedispatchFunctions.h. torchgen gen.py:
// ComputeFunction, ComputeRedispatchFunction. (The Tensor methods are dest/aten/TensorBody.h.)
#pragma once

#include <string>
#include <vector>

#include "dest/common/ApiTable.h"
#include "dest/common/Emit.h"
#include "support/Expected.h"

namespace opgen::dest {

// f's at:: functions (for every C++ API overload, `api` = ApiTable::of(f).call(); only the symint::
// templates when f is not a function variant). Empty when there is nothing to define.
support::Expected<std::string> functionDefinitions(const CallApi& api, const model::NativeFunction& f);

// f's at::redispatch:: functions (always generated, methods included).
support::Expected<std::string> redispatchDefinitions(const CallApi& api, const model::NativeFunction& f);

// functionDefinitions of every function, in order (errors reported at each function).
std::vector<std::string> functionDefinitionList(const EmitContext& ctx,
                                                const std::vector<const model::NativeFunction*>& functions);

// RedispatchFunctions.h.
void emitRedispatchFunctions(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
