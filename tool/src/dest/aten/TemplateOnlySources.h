// Sources that are their template with only the generated comment filled in: Functions.cpp
// (at::TensorMaker) and core/TensorMethods.cpp (torchgen gen.py, gen_source_files).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

void emitFunctionsCpp(const EmitContext& ctx, const Writers& out);
void emitTensorMethodsCpp(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
