// {DispatchKey}Functions.h: for every dispatch key of the run that gets a fast-path C++ API (torchgen's
// functions_keys), the header that includes TensorBody.h and {DispatchKey}Functions_inl.h
// (torchgen gen.py, gen_aggregated_headers / gen_per_operator_headers; the same in both modes).
#pragma once

#include "dest/Emit.h"

namespace opgen::dest {

support::TemplateEnv dispatchKeyFunctionsEnv(model::DispatchKey key);

void emitDispatchKeyFunctions(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
