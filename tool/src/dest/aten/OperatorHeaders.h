// The operator headers: declarations of the ATen Operators API, the C++ API functions, the meta
// classes and the native kernels, either in five aggregated headers (Operators.h, MethodOperators.h,
// Functions.h, NativeMetaFunctions.h, NativeFunctions.h) or, with --per-operator-headers, one set per
// operator root name in ATen/ops (ops/{op}_ops.h, ops/{op}.h, ops/{op}_meta.h, ops/{op}_native.h,
// ops/{op}_{key}_dispatch.h). torchgen gen.py: gen_aggregated_headers, gen_per_operator_headers.
// (The per-operator umbrella headers are dest/aten/UmbrellaHeaders; {Key}Functions{,_inl}.h are
// dest/aten/DispatchKeyFunctions and the RegisterDispatchKey family.)
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

// Operators.h, MethodOperators.h, Functions.h, NativeMetaFunctions.h and NativeFunctions.h with
// every declaration (without --per-operator-headers).
void emitAggregatedHeaders(const EmitContext& ctx, const Writers& out);

// ops/{op}_ops.h, ops/{op}.h, ops/{op}_native.h and, for structured operators, ops/{op}_meta.h.
void emitPerOperatorHeaders(const EmitContext& ctx, const Writers& out);

// ops/{op}_{key}_dispatch.h: the direct C++ API of each dispatch key with a {Key}Functions.h, for the
// operators that have one.
void emitPerOperatorDispatchHeaders(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
