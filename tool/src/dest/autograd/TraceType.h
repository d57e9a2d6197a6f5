// TraceType_0..9.cpp and TraceTypeEverything.cpp of ATen's autograd (torchgen's
// packaged/autograd/gen_trace_type.py): the Tracer dispatch key's kernels, which record each call in
// the JIT tracer's graph (inputs, the in- or out-of-place operator name, outputs) around a redispatch
// below the Tracer key, and their registration; every function except those PyTorch registers by hand.
#pragma once

#include <string>
#include <vector>

#include "dest/common/Emit.h"
#include "model/NativeFunction.h"
#include "support/Diagnostics.h"

namespace opgen::dest::autograd {

// Writes TraceType.cpp sharded (10 shards and the Everything file) from the template of that name, for
// `functions` in their order (torchgen passes the native functions unsorted). False (nothing written)
// after reporting, at its entry, the first function with an argument or return that has no C++ type.
bool emitTraceType(const std::vector<const model::NativeFunction*>& functions, const std::string& commentDir,
                   Writer& out, support::Diagnostics& diags);

// Functions PyTorch's autograd and tracer register by hand (torchgen's MANUAL_AUTOGRAD = MANUAL_TRACER),
// by C++ name: no generated Tracer or Autograd kernel.
bool isManualAutogradOrTracer(const std::string& cppName);

// torchgen's tie_return_values ("auto result" / "auto [a, b]") and get_return_value (what a kernel returns).
std::string tieReturnValues(const model::NativeFunction& f);
std::string returnValue(const model::NativeFunction& f);

// torchgen's type_wrapper_name: the C++ name, "_OVERLOAD" when it has one, "_KEY" unless key is Default.
std::string typeWrapperName(const model::NativeFunction& f, const std::string& key = "Default");

}  // namespace opgen::dest::autograd
