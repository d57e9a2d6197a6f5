// With --per-operator-headers: Functions.h, Operators.h, NativeMetaFunctions.h, NativeFunctions.h and
// MethodOperators.h only include the per-operator headers ATen/ops/NAME{,_ops,_meta,_native}.h
// (torchgen gen.py, gen_per_operator_headers).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

// The root names (operator base names without in-place/functional suffix) of the native functions,
// sorted; and those of which at least one function is a method.
std::set<std::string> rootNames(const model::Operators& ops);
std::set<std::string> methodRootNames(const model::Operators& ops);

void emitUmbrellaHeaders(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
