// The headers of the direct C++ API of every dispatch key of the run that gets one (torchgen's
// functions_keys; gen.py, gen_aggregated_headers / gen_per_operator_headers and
// get_namespaced_declaration):
//
//   {Key}Functions.h      includes TensorBody.h and {Key}Functions_inl.h (the same in both modes);
//   {Key}Functions_inl.h  the declarations, grouped by kernel namespace (with --per-operator-headers:
//                         includes of the ops/{op}_{key}_dispatch.h that declare something).
//
// The declarations come from RegisterDispatchKeyEmitter (dest/common/RegisterDispatchKey.h).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

support::TemplateEnv dispatchKeyFunctionsEnv(model::DispatchKey key);

void emitDispatchKeyFunctions(const EmitContext& ctx, const Writers& out);
void emitDispatchKeyFunctionsInl(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
