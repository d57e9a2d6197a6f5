// RegisterBackendSelect.cpp: kernels for the BackendSelect dispatch key. Factory functions (those with
// tensor options, except *_like and new_*) cannot find their backend from tensor arguments alone; these
// kernels compute the dispatch key from dtype/layout/device (and any tensor arguments) and redispatch
// (torchgen gen.py: needs_backend_select, ComputeBackendSelect).
#pragma once

#include "dest/common/Emit.h"
#include "support/Expected.h"

namespace opgen::dest {

// Whether f gets a BackendSelect kernel in this run.
bool needsBackendSelect(const model::NativeFunction& f, const OperatorSelector& selector);

// f's BackendSelect kernel (C10_ALWAYS_INLINE, named after its native name) and its registration
// (`m.impl("aten::NAME", TORCH_FN(KERNEL));`).
support::Expected<std::string> backendSelectDefinition(const model::NativeFunction& f);
std::string backendSelectRegistration(const model::NativeFunction& f);

void emitBackendSelect(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
