// RegisterFunctionalization_{0..3}.cpp and RegisterFunctionalizationEverything.cpp: the kernels of the
// Functionalize dispatch key (torchgen's gen_functionalization_type.py, gen_functionalization_definition
// and gen_functionalization_registration, written by gen.py's gen_source_files).
//   - a mutable operator (out=, in-place, mutable) calls its functional variant and writes the result
//     back into the mutated arguments;
//   - a view calls its view_copy (or the view itself when views are reapplied) and records a ViewMeta
//     (dest/aten/ViewMetaClasses) so that mutations of the view can be replayed on its base;
//   - CompositeImplicitAutograd kernels are registered directly, so that they decompose first.
// Items are the groups (functional/out/in-place/mutable), then the view groups, then every function in
// neither, sharded by root name. A selective build gets no kernels and no registrations.
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

void emitRegisterFunctionalization(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
