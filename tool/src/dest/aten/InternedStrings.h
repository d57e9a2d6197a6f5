// core/aten_interned_strings.h: the c10::Symbol names of every operator and argument
// (torchgen gen.py, gen_aten_interned_strings).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

// aten_symbols: `_(aten, NAME)` for every operator base name (with and without its in-place or
// functional suffix), minus C++'s alternative operator tokens; attr_symbols: `_(attr, NAME)` for every
// argument name. Sorted, joined by " \\\n".
support::TemplateEnv internedStringsEnv(const model::Operators& ops);

void emitInternedStrings(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
