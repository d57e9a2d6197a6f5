// An operator library's derivatives.yaml as the library's emitter sees it (model/Derivatives.h): what
// the one reader of derivatives.yaml (api/DifferentiabilityInfo.h) read with the library's options,
// matched with the library's operators as torchgen matches ATen's (in-place overloads without an entry
// of their own take their functional operator's, out= overloads refuse gradients). Nothing here checks
// a formula: this only arranges what the reader and the matching decided.
#include <algorithm>
#include <map>
#include <set>

#include "api/Cpp.h"
#include "api/DifferentiabilityInfo.h"
#include "support/Strings.h"
#include "support/Yaml.h"

namespace opgen::api::autograd {

namespace {

using model::NativeFunction;
using model::SchemaKind;

bool contains(const std::vector<std::string>& xs, std::string_view x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

std::vector<std::string> argumentNames(const model::FunctionSchema& func) {
  std::vector<std::string> names;
  func.arguments.anyOf([&](const model::Argument& a) {
    names.push_back(a.name);
    return false;
  });
  return names;
}

// A forward formula and what the kernel unpacks for it, in schema order: the tangents (NAME_t; self's
// too when the formula reads its tangent before an in-place call, original_self_t), the values (NAME_p)
// and the tensor lists it names as themselves.
model::ForwardFormula forwardFormula(const model::Derivative& d, std::vector<std::string> outputs, const std::string& formula) {
  model::ForwardFormula fw{std::move(outputs), formula, {}, {}, {}, false};
  const bool originalSelfT = pyIdentSearch(formula, "original_self_t");
  fw.usesOriginalSelf = originalSelfT || pyIdentSearch(formula, "original_self_p");
  for (const std::string& n : argumentNames(d.function->func)) {
    if (!contains(d.differentiableInputs, n)) continue;
    if (d.argument(n).type.isList() && pyIdentSearch(formula, n)) fw.listInputs.push_back(n);
    if (pyIdentSearch(formula, n + "_t") || (n == "self" && originalSelfT)) fw.tangentInputs.push_back(n);
    if (pyIdentSearch(formula, n + "_p")) fw.primalInputs.push_back(n);
  }
  return fw;
}

// The library's view of one entry (its Default formulas; `forward`: as its own function uses them).
model::Derivative derivativeOf(const DerivativesEntry& entry, const std::vector<ForwardDerivative>& forward) {
  const DifferentiabilityInfo& info = entry.byKey.front().second;
  const model::FunctionSchema& func = entry.canonical->func;
  model::Derivative d;
  d.function = entry.canonical;
  d.loc = info.loc;
  d.nodeName = info.op.value_or("");
  for (const Derivative& b : info.derivatives) d.backward.push_back({b.varNames, std::string(support::trim(b.originalFormula))});
  d.nonDifferentiable = info.nonDifferentiableArgNames;
  for (const Binding& b : info.argsWithDerivatives) d.differentiableInputs.push_back(b.name);
  const std::vector<std::string> names = argumentNames(func);
  for (const std::string& n : names) {
    const model::Type& t = d.argument(n).type;
    if (t.isTensorLike() && !t.isBase(model::BaseTy::Tensor) && !contains(d.differentiableInputs, n) &&
        !contains(d.nonDifferentiable, n))
      d.checkedNoGrad.push_back(n);  // torchgen's check_no_requires_grad
  }
  const std::vector<bool> od = info.outputDifferentiability.value_or(std::vector<bool>{});
  for (std::size_t i = 0; i < func.returns.size(); ++i) d.outputDifferentiability.push_back(od.empty() || (i < od.size() && od[i]));
  const std::vector<std::string> returns = cpp::returnNames(*entry.canonical);
  for (const std::string& r : returns) d.returnNames.push_back(r == "self" ? std::string("result") : r);
  for (std::size_t k = 0; k < forward.size(); ++k)
    d.forward.push_back(forwardFormula(d, info.forwardDerivatives[k].varNames, forward[k].formula));
  // The node keeps the arguments and returns its backward formulas name, whole.
  const auto used = [&](const std::string& n) {
    return std::any_of(d.backward.begin(), d.backward.end(), [&](const model::BackwardFormula& b) { return pyIdentSearch(b.formula, n); });
  };
  for (const std::string& n : names)
    if (used(n)) d.savedInputs.push_back(n);
  for (const std::string& n : d.returnNames)
    if (used(n)) d.savedOutputs.push_back(n);
  const std::vector<std::optional<std::string>> aliased = func.aliasedReturnNames();
  for (std::size_t i = 0; i < func.returns.size(); ++i)
    if (func.returns[i].annotation && !func.returns[i].annotation->isWrite && aliased[i]) d.viewOf = *aliased[i];
  return d;
}

}  // namespace

std::optional<model::Derivatives> libraryDerivatives(const std::string& path, std::string_view content,
                                                     const model::Operators& ops, const std::string& ns,
                                                     support::Diagnostics& diags) {
  std::optional<support::YamlNode> doc = support::parseYaml(content, path, diags);
  if (!doc) return std::nullopt;
  if (doc->isNull()) return model::Derivatives();
  std::optional<LoadedDerivatives> loaded = loadDerivatives(path, *doc, ops, DerivativesOptions{ns}, diags);
  if (!loaded) return std::nullopt;
  const std::vector<const NativeFunction*>& functions = ops.functions();
  std::optional<std::vector<FunctionWithInfo>> matched = matchDifferentiabilityInfo(functions, *loaded, diags);
  if (!matched) return std::nullopt;
  std::map<const DifferentiabilityInfo*, std::size_t> index;  // an entry's Default info -> its Derivative
  std::vector<model::Derivative> entries;
  for (const DerivativesEntry& e : loaded->entries) {
    const FunctionWithInfo* own = nullptr;
    for (const FunctionWithInfo& fi : *matched)
      if (fi.func == e.canonical) own = &fi;
    index[&e.byKey.front().second] = entries.size();
    entries.push_back(derivativeOf(e, own && !own->fwDerivatives.empty() ? own->fwDerivatives.front().second
                                                                         : e.byKey.front().second.forwardDerivatives));
  }
  // The in-place overloads that take their functional operator's entry (torchgen's
  // match_differentiability_info) and reach an Autograd kernel (a CompositeImplicitAutograd one is
  // differentiated through its kernel); only for an operator whose first argument is `self` (torchgen's
  // in-place rules name it).
  for (const FunctionWithInfo& fi : *matched) {
    if (fi.info.empty() || fi.func->hasCompositeImplicitAutogradKernel || fi.func->func.kind() != SchemaKind::Inplace) continue;
    const auto at = index.find(fi.info.front().second);
    if (at == index.end()) continue;
    model::Derivative& d = entries[at->second];
    if (fi.func == d.function || d.function->func.kind() != SchemaKind::Functional || d.function->func.returns.size() != 1 ||
        !d.function->func.arguments.selfArg)
      continue;
    model::InplaceVariant v{fi.func, {}};
    for (const ForwardDerivative& fw : fi.fwDerivatives.front().second) v.forward.push_back(forwardFormula(d, {"result"}, fw.formula));
    d.inplaceVariants.push_back(std::move(v));
  }
  // The overloads of an entry's operator (same signature, generated ones included), in one pass:
  //   - of a functional operator, its out= overloads (torchgen's matching gives those none, and ATen's
  //     have kernels of their own): their Autograd kernels refuse gradients, as PyTorch's out=
  //     functions do;
  //   - of an in-place operator, a functional one without entry: the in-place entry does not give it
  //     formulas (torchgen's matching goes the other way), and an author who writes them under `op_`
  //     (its `autogen:` functional, say) would otherwise find `op` without gradient only when a
  //     backward runs.
  std::set<const NativeFunction*> withEntry;
  for (const model::Derivative& d : entries) withEntry.insert(d.function);
  for (model::Derivative& d : entries) {
    const SchemaKind kind = d.function->func.kind();
    if (kind != SchemaKind::Functional && kind != SchemaKind::Inplace) continue;
    const SchemaKind wanted = kind == SchemaKind::Functional ? SchemaKind::Out : SchemaKind::Functional;
    const model::FunctionSchema core = d.function->func.signature({.stripDefault = true});
    for (const NativeFunction* g : functions) {
      if (g->func.kind() != wanted || g->hasCompositeImplicitAutogradKernel ||
          g->func.signature({.stripDefault = true}) != core)
        continue;
      if (wanted == SchemaKind::Out) {
        d.outVariants.push_back(g);
      } else if (!withEntry.count(g)) {
        const std::string name = g->func.name.str();
        diags.warning(d.loc, "in '" + d.function->func.name.str() + "': its functional variant '" + name +
                                 "' has no entry, so a gradient through it fails at backward (an in-place operator's "
                                 "formulas do not reach its functional variant); give these formulas to '" + name +
                                 "' instead: '" + d.function->func.name.str() + "' then takes them from it");
      }
    }
  }
  return model::Derivatives(std::move(entries));
}

}  // namespace opgen::api::autograd
