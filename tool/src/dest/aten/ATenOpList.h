// core/ATenOpList.cpp: the (name, overload) pair of every operator, for at::is_custom_op
// (torchgen gen.py, compute_aten_op).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

// aten_ops: `{"aten::NAME", "OVERLOAD"},` for every native function, in order. torchgen writes the
// "aten::" prefix for operators of every namespace.
support::TemplateEnv atenOpListEnv(const model::Operators& ops);

void emitATenOpList(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
