// FunctionalInverses.h: the declarations of the hand-written view inverses that the functionalization
// pass's ViewMeta specializations call to propagate a mutation of a view back to its base (torchgen's
// gen_functionalization_type.py, gen_functionalization_view_inverse_declaration), one per
// non-composite view.
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

void emitFunctionalInverses(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
