// derivatives.yaml, read as torchgen's autograd generator reads it (packaged/autograd/load_derivatives.py
// and the data of api/autograd.py), for ATen's `opgen autograd` and for operator libraries alike: for each
// entry, per dispatch key, a DifferentiabilityInfo with the backward formulas rewritten to use what the
// graph node saves (self.sym_sizes() -> self_sym_sizes, ...), the forward formulas expanded
// (auto_element_wise, auto_linear), the graph node's name, and the {view}_copy operators' entries
// derived from their views'. torchgen's refusals, each a located error at the entry, key or formula;
// every entry is checked (an entry stops at its first problem, as torchgen stops at the first).
// Formulas are rewritten with Python's re semantics of torchgen's IDENT_REGEX (pyIdentSub), so that a
// formula means what it means to torchgen.
//
// An operator library's file (DerivativesOptions::libraryNamespace) is read with the same rules,
// against the library's operators, plus the checks of what torchgen leaves to PyTorch's C++ compiler
// and reviewers and a library must refuse at its line (see DerivativesOptions); libraryDerivatives()
// gives the library's emitter its view of the result (model/Derivatives.h).
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/Types.h"
#include "model/Derivatives.h"
#include "model/Operators.h"
#include "support/Diagnostics.h"
#include "support/Yaml.h"

namespace opgen::api::autograd {

// A value the graph node keeps: its name and C++ type, and the expression it is saved from.
struct SavedAttribute {
  NamedCType nctype;
  std::string expr;
  // The name as a string (a special name as torchgen's SpecialArgName.name spells it).
  std::string name() const;
};

// The backward formula of one or more inputs.
struct Derivative {
  std::string formula;          // rewritten to the saved values
  std::string originalFormula;  // as written
  std::vector<std::string> varNames;
  std::vector<SavedAttribute> savedInputs, savedOutputs;
  std::set<std::string> namedGradients;  // the grad_NAME the formula uses
};

// The forward-mode formula of one or more outputs.
struct ForwardDerivative {
  std::string formula;
  std::vector<std::string> varNames;
  std::vector<model::Type> varTypes;
  // The inputs whose tangent / primal value the formula uses. torchgen keeps them as a tuple made from
  // a Python set (auto_element_wise's tangents and auto_linear's excepted, which are lists): here they
  // are in the order of the differentiable arguments.
  std::vector<std::string> requiredInputsFwGrad, requiredInputsPrimal;
  bool requiredInputsFwGradFromSet = true, requiredInputsPrimalFromSet = true;
  bool requiredOriginalSelfValue = false;
  bool isReusingOutplaceFormula = false;
};

struct DifferentiabilityInfo {
  std::string name;  // the entry's operator name without overload ("add"); "view_copy." for view copies
  const model::NativeFunction* func = nullptr;
  std::optional<std::string> op;  // the graph node ("AddBackward0"), when some input has a formula
  std::vector<Derivative> derivatives;
  std::vector<ForwardDerivative> forwardDerivatives;
  std::vector<SavedAttribute> allSavedInputs, allSavedOutputs;
  std::vector<std::string> availableNamedGradients;
  std::set<std::string> usedNamedGradients;
  std::vector<Binding> argsWithDerivatives;
  std::vector<std::string> nonDifferentiableArgNames;
  std::optional<std::vector<bool>> outputDifferentiability;
  std::optional<std::vector<std::string>> outputDifferentiabilityConditions;
  support::SourceLoc loc;  // of the entry's name (a view copy's: its view's entry)

  bool hasDerivatives() const { return !argsWithDerivatives.empty(); }
};

// One entry: the canonical function's schema and its infos by dispatch key ("Default" or an Autograd
// key), in the file's order.
struct DerivativesEntry {
  const model::NativeFunction* canonical = nullptr;
  std::vector<std::pair<std::string, DifferentiabilityInfo>> byKey;
};

struct LoadedDerivatives {
  // torchgen's dict order (an entry for the same schema replaces); matchDifferentiabilityInfo appends the
  // foreach functions' (a deque: what refers to an entry stays valid).
  std::deque<DerivativesEntry> entries;
  std::set<std::string> usedDispatchKeys;
};

// Whose derivatives.yaml is read: ATen's (the default) or an operator library's. What a library's
// reading changes, and nothing else:
//   - `name:` may start with the library's namespace (`ns::op(...)`); auto_linear calls the library's
//     operator (ns::_ops::op::call(...)) rather than at::op; arguments are named as the dispatcher names
//     them (the library's C++ API);
//   - what torchgen leaves to the C++ compiler (or to PyTorch's review) is refused at its line: a key
//     that names neither an argument nor a return, two formulas for one argument or return, a formula
//     for an argument that is not a tensor, a Tensor argument without formula, an unknown grad_NAME or
//     NAME_t / NAME_p, original_self_* outside an in-place formula, a forward formula that uses no
//     tangent, a differentiable output without forward formula (when some have one), an entry for an
//     out= or CompositeImplicitAutograd operator, a duplicate entry, and what the library's emitter
//     does not support yet (dispatch:, output_differentiability conditions, views of several outputs).
struct DerivativesOptions {
  std::optional<std::string> libraryNamespace;  // the library's; nullopt: ATen's file
};

// Reads ATen's derivatives.yaml (`path` names it in messages) against `ops` (with their view copies).
// nullopt after reporting every entry's first problem, as FILE:LINE:COL: error: at the entry.
std::optional<LoadedDerivatives> loadAtenDerivatives(const std::string& path, std::string_view content,
                                                     const model::Operators& ops, support::Diagnostics& diags);
// The same from the file's YAML, parsed already (torchgen parses it before the native functions).
std::optional<LoadedDerivatives> loadAtenDerivatives(const std::string& path, const support::YamlNode& doc,
                                                     const model::Operators& ops, support::Diagnostics& diags);
// The same for ATen's or a library's file.
std::optional<LoadedDerivatives> loadDerivatives(const std::string& path, const support::YamlNode& doc,
                                                 const model::Operators& ops, const DerivativesOptions& options,
                                                 support::Diagnostics& diags);

// A function and its infos (torchgen's NativeFunctionWithDifferentiabilityInfo).
struct FunctionWithInfo {
  const model::NativeFunction* func = nullptr;
  // Its infos by dispatch key (pointing into the LoadedDerivatives); empty: the function has no formulas.
  std::vector<std::pair<std::string, const DifferentiabilityInfo*>> info;
  // Per dispatch key, the forward formulas as the function uses them (an in-place function's rewritten
  // from its out-of-place variant's).
  std::vector<std::pair<std::string, std::vector<ForwardDerivative>>> fwDerivatives;
};

// torchgen's match_differentiability_info: the infos of each function (its own, its out-of-place
// variant's, or for a foreach function one derived from its per-tensor function's, which is added to
// `derivatives`), for `functions` sorted by C++ name as gen_autograd sorts them. nullopt after reporting
// the first problem (at the derivatives.yaml entry when it is about a formula).
std::optional<std::vector<FunctionWithInfo>> matchDifferentiabilityInfo(
    const std::vector<const model::NativeFunction*>& functions, LoadedDerivatives& derivatives,
    support::Diagnostics& diags);

// Python's re semantics of torchgen's IDENT_REGEX, (^|\W)NAME($|\W): whether it matches, and re.sub
// with it (each match consumes the non-word characters around the name, so "a*a" has one match).
bool pyIdentSearch(std::string_view text, std::string_view name);
std::string pyIdentSub(std::string_view text, std::string_view name, std::string_view by);

// An operator library's derivatives.yaml (`path` is for messages), read by loadDerivatives and matched
// by matchDifferentiabilityInfo against the library's operators `ops` (namespace `ns`), as the library's
// emitter sees it. nullopt when any error was reported.
std::optional<model::Derivatives> libraryDerivatives(const std::string& path, std::string_view content,
                                                     const model::Operators& ops, const std::string& ns,
                                                     support::Diagnostics& diags);

}  // namespace opgen::api::autograd
