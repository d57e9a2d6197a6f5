// ViewFuncs.h and ViewFuncs.cpp of ATen's autograd (torchgen's packaged/autograd/gen_view_funcs.py): for
// every view operator that gets an autograd kernel, a torch::autograd::ViewFunc that replays the view
// on another base, with its SymInt and tensor arguments exposed (to be swapped) and cloned.
#pragma once

#include <string>
#include <vector>

#include "api/DifferentiabilityInfo.h"
#include "dest/common/Emit.h"
#include "support/Diagnostics.h"

namespace opgen::dest::autograd {

// Writes ViewFuncs.h and ViewFuncs.cpp for `functions` (sorted by C++ name, with their infos). False
// (nothing written) after reporting, at its entry, the first view whose ViewFunc torchgen cannot make.
bool emitViewFuncs(const std::vector<api::autograd::FunctionWithInfo>& functions, const std::string& commentDir,
                   Writer& out, support::Diagnostics& diags);

// torchgen's use_derived: the function gets a generated autograd kernel that calls the kernels below
// autograd (not one of the hand-written ones, and abstract or with formulas).
bool useDerived(const api::autograd::FunctionWithInfo& fn);

// torchgen's view_func_name: the ViewFunc class of a view ("TransposeIntViewFunc").
std::string viewFuncClassName(const model::NativeFunction& f);

// torchgen's get_view_info: the argument whose view the function returns (VIEW_FUNCTIONS, or "self" for
// the other functions that return views of their input), or nullptr.
const std::string* viewInfo(const model::NativeFunction& f);

}  // namespace opgen::dest::autograd
