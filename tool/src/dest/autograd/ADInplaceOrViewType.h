// ADInplaceOrViewType_0..1.cpp and ADInplaceOrViewTypeEverything.cpp of ATen's autograd (torchgen's
// packaged/autograd/gen_inplace_or_view_type.py): the ADInplaceOrView key's kernels, which bump the
// version counter of what an in-place or out= function modifies, and make a view function's output a
// view of its base for autograd (with the view's replay and reverse functions when needed).
#pragma once

#include <string>
#include <vector>

#include "api/DifferentiabilityInfo.h"
#include "dest/common/Emit.h"
#include "support/Diagnostics.h"

namespace opgen::dest::autograd {

// Writes ADInplaceOrViewType.cpp sharded (2 shards and the Everything file) for the functions that get
// a generated autograd kernel. False (nothing written) after reporting the first problem at its entry.
bool emitADInplaceOrViewType(const std::vector<api::autograd::FunctionWithInfo>& functions, const std::string& commentDir,
                             Writer& out, support::Diagnostics& diags);

}  // namespace opgen::dest::autograd
