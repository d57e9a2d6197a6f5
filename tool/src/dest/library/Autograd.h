// An operator library's autograd (with derivatives.yaml): src/RegisterAutograd.cpp, rendered from
// templates/library/RegisterAutograd.cpp. For every operator with formulas:
//   - a graph node class (torch::autograd::Node): the values its backward formulas use (tensors as
//     SavedVariable), apply() evaluating the formulas of the inputs that need a gradient,
//     release_variables(), name() as grad_fn shows it ("ScaleAddBackward0");
//   - an Autograd kernel: records the node when an input requires grad, runs the operator below
//     autograd (the dispatcher's redispatch), sets the outputs' history, computes forward-mode
//     tangents where a forward formula is given (and refuses tangents without one); in-place operators
//     check that a leaf requiring grad is not modified and rebase the history;
//   - for in-place operators an ADInplaceOrView kernel that bumps the version counter; for a view
//     operator one that makes the output a view of its base (as_view);
//   - for its in-place overloads without an entry of their own, Autograd kernels recording the same
//     node (torchgen's reuse of the functional formulas);
//   - for the operator's out= overloads an Autograd kernel that refuses arguments requiring grad
//     (out= functions are not differentiable) and an ADInplaceOrView kernel bumping the out version.
// Operators without formulas get none of this: RegisterSchema.cpp registers PyTorch's not-implemented
// fallback for them, or runs them below autograd when their entry declares every input
// non_differentiable (api/LibraryPt2.h, dest/library/Library.cpp).
#pragma once

#include <set>
#include <string>

#include "dest/common/Emit.h"
#include "model/Derivatives.h"

namespace opgen::dest {

// The file's name below src/.
std::string_view autogradSourceFile();

// The operators (by name, "op.overload") that the file gives an Autograd kernel (`formulas`), and
// those whose entry declares every input non_differentiable, with their in-place and out= overloads
// (`nonDifferentiable`: the file has nothing for them).
struct AutogradCoverage {
  std::set<std::string> formulas, nonDifferentiable;
};
AutogradCoverage autogradCoverage(const model::Derivatives& derivatives);

// Renders it into `out` (the sources' writer). `anchor`: the file's link anchor symbol.
void emitAutograd(const EmitContext& ctx, const std::string& ns, const model::Derivatives& derivatives,
                  const std::string& anchor, Writer& out);

}  // namespace opgen::dest
