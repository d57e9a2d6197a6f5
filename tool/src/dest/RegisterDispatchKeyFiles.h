// The files of the dispatch keys' kernels (torchgen gen.py: gen_source_files and
// get_native_function_definitions, gen_aggregated_headers / gen_per_operator_headers and
// get_namespaced_declaration):
//
//   Register{Key}.cpp        for every dispatch key of the run, sharded (4 shards for CPU, else 1;
//                            Register{Key}Everything.cpp holds everything): includes, the helpers of
//                            structured kernels, and per native function or group the template
//                            RegisterDispatchDefinitions.ini filled with its wrappers, its
//                            TORCH_LIBRARY_IMPL(NAMESPACE, Key, m) registrations and its direct C++
//                            API in namespace `key` (e.g. at::cpu), inside its kernel namespace;
//   {Key}Functions_inl.h     for every functions key: the direct C++ API's declarations, grouped by
//                            kernel namespace (with --per-operator-headers: includes of the
//                            ops/{op}_{key}_dispatch.h that declare something).
//
// The definitions come from RegisterDispatchKeyEmitter (dest/RegisterDispatchKey.h).
#pragma once

#include "dest/Emit.h"

namespace opgen::dest {

void emitRegisterDispatchKey(const EmitContext& ctx, const Writers& out);
void emitDispatchKeyFunctionsInl(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
