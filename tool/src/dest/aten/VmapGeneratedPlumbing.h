// VmapGeneratedPlumbing.h: functorch's batching "plumbing" for every operator it can handle
// (torchgen's gen_vmap_plumbing.py). Each is a template over a batch rule: it unwraps the batched
// tensors at the current vmap level, calls the rule with (value, batch dim) pairs and wraps the results;
// operators that take no batched tensor go straight to at::_ops. Written as plain text (no template).
#pragma once

#include <optional>
#include <string>

#include "dest/common/Emit.h"

namespace opgen::dest {

// The plumbing of one function appended to `out`; false (and `out` unchanged) when functorch does not
// generate one for it (no tensor argument, non-tensor returns, out= / mutable / scratch functions,
// in-place views, ...).
bool appendVmapPlumbing(std::string& out, const model::NativeFunction& f);

void emitVmapGeneratedPlumbing(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
