// Register{Key}.cpp, for every dispatch key of the run (torchgen gen.py: gen_source_files and
// get_native_function_definitions): sharded (4 shards for CPU, else 1; Register{Key}Everything.cpp
// holds everything), with includes, the helpers of structured kernels, and per native function or
// group the template RegisterDispatchDefinitions.ini filled with its wrappers, its
// TORCH_LIBRARY_IMPL(NAMESPACE, Key, m) registrations and its direct C++ API in namespace `key` (e.g.
// at::cpu), inside its kernel namespace. The code comes from RegisterDispatchKeyEmitter
// (dest/common/RegisterDispatchKey.h); the template is filled through its reduction
// (dest/aten/DefinitionsTemplate.h).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

void emitRegisterDispatchKey(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
