// ATen's derivatives.yaml as torchgen's autograd generator reads it (packaged/autograd/load_derivatives.py
// and the data of api/autograd.py): for each entry, per dispatch key, a DifferentiabilityInfo with the
// backward formulas rewritten to use what the graph node saves (self.sym_sizes() -> self_sym_sizes, ...),
// the forward formulas expanded (auto_element_wise, auto_linear), the graph node's name, and the
// {view}_copy operators' entries derived from their views'. The same refusals as torchgen, each one
// located error at the entry (torchgen stops at the first, and so does this loader).
//
// (The library side's model/Derivatives reads an operator library's derivatives.yaml with stricter,
// library-oriented rules; this is the drop-in's reading of PyTorch's own file.)
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/Types.h"
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

// Reads ATen's derivatives.yaml (`path` names it in messages) against `ops` (with their view copies).
// nullopt after reporting the first problem, as FILE:LINE:COL: error: at the entry.
std::optional<LoadedDerivatives> loadAtenDerivatives(const std::string& path, std::string_view content,
                                                     const model::Operators& ops, support::Diagnostics& diags);
// The same from the file's YAML, parsed already (torchgen parses it before the native functions).
std::optional<LoadedDerivatives> loadAtenDerivatives(const std::string& path, const support::YamlNode& doc,
                                                     const model::Operators& ops, support::Diagnostics& diags);

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
// the first problem.
std::optional<std::vector<FunctionWithInfo>> matchDifferentiabilityInfo(
    const std::vector<const model::NativeFunction*>& functions, LoadedDerivatives& derivatives,
    support::Diagnostics& diags);

// Python's re semantics of torchgen's IDENT_REGEX, (^|\W)NAME($|\W): whether it matches, and re.sub
// with it (each match consumes the non-word characters around the name, so "a*a" has one match).
bool pyIdentSearch(std::string_view text, std::string_view name);
std::string pyIdentSub(std::string_view text, std::string_view name, std::string_view by);

}  // namespace opgen::api::autograd
