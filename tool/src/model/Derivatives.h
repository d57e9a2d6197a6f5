// derivatives.yaml of an operator library as the library's emitter (dest/library/Autograd) sees it:
// the backward (and forward-mode) formulas of the library's operators, in torchgen's format and with
// torchgen's meaning. The file is read, checked and matched with the operators by the one reader of
// derivatives.yaml, ATen's and libraries' (api/DifferentiabilityInfo.h, libraryDerivatives()); this is
// the data it hands the library's emitter. Immutable once made.
//
//   - name: myops::scale_add(Tensor self, Tensor other, *, float alpha=1) -> Tensor   (namespace optional)
//     self: grad
//     other: grad * alpha
//     result: self_t + other_t * alpha         # forward mode (or auto_element_wise, auto_linear)
//     output_differentiability: [True]         # optional, one bool per return
//
// A formula is C++ that may name `grad` (the gradient of the only differentiable output), `grads[i]`,
// `grad_NAME` (of the return NAME), `grad_input_mask` (which of the formula's inputs need a gradient),
// the arguments, `result` (the output; `resultN` or the return's name when there are several) and any
// function. `non_differentiable` marks a tensor argument without gradient; `not_implemented("...")`
// is a formula that fails when the backward runs. Tensor, Tensor? and Tensor[] arguments may have
// formulas; an out= overload takes its (refusing) autograd from its functional operator's entry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/Operators.h"
#include "support/Diagnostics.h"

namespace opgen::model {

// A backward formula: the gradient of one or more arguments (`self, other: f(...)`, which returns a
// tuple, one element per name).
struct BackwardFormula {
  std::vector<std::string> inputs;  // argument names, as written
  std::string formula;              // as written
};

// A forward-mode formula: the tangent of one output, or a tuple of the tangents of several
// (`values, indices: ...`), from the inputs' tangents (`NAME_t`) and primal values (`NAME_p`).
// auto_element_wise and auto_linear are already expanded (torchgen's rules). A Tensor[] input is
// named as itself (the formula reads its tangents, torchgen's rule); its NAME_t and NAME_p are lists.
// In an in-place operator's formula, `self_t` is self's tangent, to modify in place, `result` self's
// value after the call (rewritten to self_p; a self_p of the formula is refused, torchgen's rule) and
// `original_self_p` / `original_self_t` its value and tangent before it.
struct ForwardFormula {
  std::vector<std::string> outputs;            // the returns' names ("result", "resultN" or their own)
  std::string formula;                         // the C++ expression after expansion
  std::vector<std::string> tangentInputs;      // arguments whose tangent it uses, schema order
  std::vector<std::string> primalInputs;       // arguments whose primal it uses, schema order
  std::vector<std::string> listInputs;         // Tensor[] inputs it names as themselves, schema order
  bool usesOriginalSelf = false;               // original_self_p or original_self_t (in-place operators)
};

// An in-place overload without an entry of its own, which takes its autograd from its functional
// operator's entry (torchgen's match_differentiability_info): the same graph node, the backward
// formulas reading self's value before the call, the forward formulas rewritten for it.
struct InplaceVariant {
  const NativeFunction* function = nullptr;
  std::vector<ForwardFormula> forward;  // of the single output, the modified self
};

struct Derivative {
  const NativeFunction* function = nullptr;
  support::SourceLoc loc;                       // of the entry's name
  std::string nodeName;                         // the graph node class and grad_fn's name: "ScaleAddBackward0"
  std::vector<BackwardFormula> backward;        // in the order of the file
  std::vector<ForwardFormula> forward;
  std::vector<std::string> nonDifferentiable;   // arguments marked non_differentiable
  // Tensor? and Tensor[] arguments with neither formula nor non_differentiable: the kernel refuses
  // them when they require grad (torchgen's check_no_requires_grad).
  std::vector<std::string> checkedNoGrad;
  std::vector<std::string> differentiableInputs;  // arguments with a formula, schema order
  std::vector<bool> outputDifferentiability;    // one per return
  std::vector<std::string> returnNames;         // as formulas name them (torchgen's cpp.return_names)
  // What the graph node keeps for apply(): the arguments and returns the backward formulas use,
  // in schema order (torchgen's saved_inputs / saved_outputs).
  std::vector<std::string> savedInputs;
  std::vector<std::string> savedOutputs;
  // The out= overloads of the operator (same signature, torchgen's rule): their Autograd kernels
  // refuse inputs and outputs that require grad, as PyTorch's out= functions do.
  std::vector<const NativeFunction*> outVariants;
  std::vector<InplaceVariant> inplaceVariants;
  // For a view operator (`Tensor(a) self -> Tensor(a)`), the argument its output is a view of: its
  // ADInplaceOrView kernel makes the output a view of it for autograd (torchgen's as_view).
  std::string viewOf;

  bool isInplace() const { return function->func.kind() == SchemaKind::Inplace; }
  // The schema argument of that name (it exists for every name this object holds).
  const Argument& argument(std::string_view name) const;
  // The index of the return of that name (returnNames).
  std::size_t returnIndex(std::string_view name) const;
};

class Derivatives {
 public:
  Derivatives() = default;
  explicit Derivatives(std::vector<Derivative> entries) : entries_(std::move(entries)) {}
  const std::vector<Derivative>& entries() const { return entries_; }
  // The formulas of a function, or nullptr (it keeps its behaviour without autograd kernel).
  const Derivative* find(const NativeFunction& f) const;
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<Derivative> entries_;
};

// The graph node classes' name prefix of an operator (torchgen's create_op_prefix, for ATen's
// derivatives.yaml and libraries' alike): "scale_add" -> "ScaleAddBackward" (a node is named
// PREFIX + a counter per prefix, "ScaleAddBackward0").
std::string nodeNamePrefix(std::string_view name);

}  // namespace opgen::model
