#include "api/DerivativesLibraryChecks.h"

#include <algorithm>
#include <cctype>

#include "support/Strings.h"
#include "support/Yaml.h"

namespace opgen::api::autograd::derivatives {

namespace {

using model::NativeFunction;
using model::SchemaKind;
using support::SourceLoc;
using support::YamlNode;

bool isWord(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }

bool contains(const std::vector<std::string>& xs, std::string_view x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

// Every identifier of `text` that starts with `prefix` (the grad_NAME a formula uses).
std::vector<std::string> identifiersStartingWith(std::string_view text, std::string_view prefix) {
  std::vector<std::string> out;
  for (std::size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
    if (at > 0 && isWord(text[at - 1])) continue;
    std::size_t end = at;
    while (end < text.size() && isWord(text[end])) ++end;
    out.emplace_back(text.substr(at, end - at));
  }
  return out;
}

}  // namespace

bool isTensorListBinding(const Binding& b) {
  const std::string type = b.type();
  return type == "at::TensorList" || type == "const at::ITensorListRef &";
}

Failure noMatchingOutput(const NativeFunction& f, const SourceLoc& at, const std::vector<std::string>& returns,
                         const std::string& name) {
  return Failure{at, "No matching output for forward derivative definition: '" + name + "' is neither an argument "
                           "(the key of a backward formula) nor a return (the key of a forward formula) of '" +
                           f.func.name.str() + "' (returns: " + support::join(returns, ", ") + ")"};
}

// The entries a library's emitter cannot honour, refused at the name: an out= operator's (it
// takes its functional variant's), a CompositeImplicitAutograd operator's (the dispatcher would never
// run its Autograd kernel), a view operator's of several outputs, per-dispatch-key formulas.
std::optional<Failure> libraryEntryChecks(const NativeFunction& f, const model::Operators& ops, const YamlNode& e,
                                          const std::string& path) {
  const SourceLoc at = support::locOf(e["name"], path);
  const model::FunctionSchema& func = f.func;
  if (func.isOutFn()) {
    const model::FunctionSchema core = func.signature({.stripDefault = true});
    std::string functional;
    for (const NativeFunction* g : ops.functions())
      if (g->func.kind() == SchemaKind::Functional && g->func.signature({.stripDefault = true}) == core) functional = g->schemaString;
    return Failure{at, functional.empty()
                           ? "an out= operator takes its autograd from its functional variant's entry, and it has none: "
                             "formulas for an out= operator alone are not supported"
                           : "an out= operator takes its autograd from its functional variant's entry: write the formulas "
                             "under 'name: " + functional + "'"};
  }
  if (f.hasCompositeImplicitAutogradKernel)
    return Failure{at, "the operator is CompositeImplicitAutograd (no dispatch:), so autograd differentiates its kernel's "
                       "ATen calls and formulas would never be used: give it a dispatch: entry (e.g. "
                       "CompositeExplicitAutograd) to use formulas"};
  const std::vector<std::optional<std::string>> aliased = func.aliasedReturnNames();
  for (std::size_t i = 0; i < func.returns.size(); ++i) {
    const model::Return& r = func.returns[i];
    if (r.annotation && !r.annotation->isWrite && aliased[i] && (func.returns.size() != 1 || !r.type.isBase(model::BaseTy::Tensor)))
      return Failure{at, "view operators with several outputs or a list of views are not supported yet: only one "
                         "Tensor(a) return"};
  }
  for (const auto& [key, value] : e.entries())
    if (key.text() == "dispatch") return Failure{support::locOf(key, path), "per-dispatch-key formulas (dispatch:) are not supported yet"};
  return std::nullopt;
}

// A key names arguments (backward formulas, non_differentiable) or returns (forward formulas),
// each once; only tensors, optional tensors and tensor lists have gradients.
std::optional<Failure> libraryKeyChecks(const NativeFunction& f, const SourceLoc& at, const std::vector<std::string>& names,
                                        bool nonDifferentiable, const std::vector<std::string>& allArgNames,
                                        const std::vector<std::string>& returns, const DifferentiabilityInfo& info,
                                        const std::set<std::string>& withDerivatives) {
  const std::string op = f.func.name.str();
  if (!contains(allArgNames, names.front())) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string& n = names[i];
      if (!contains(returns, n)) return noMatchingOutput(f, at, returns, n);
      if (std::find(names.begin() + static_cast<std::ptrdiff_t>(i) + 1, names.end(), n) != names.end())
        return Failure{at, "return '" + n + "' is named twice"};
      for (const ForwardDerivative& other : info.forwardDerivatives)
        if (contains(other.varNames, n)) return Failure{at, "return '" + n + "' has two forward formulas"};
    }
    return std::nullopt;
  }
  for (const std::string& n : names) {
    if (!contains(allArgNames, n)) return Failure{at, "'" + n + "' is not an argument of '" + op + "'"};
    if (withDerivatives.count(n) || contains(info.nonDifferentiableArgNames, n))
      return Failure{at, "argument '" + n + "' has two formulas"};
  }
  if (nonDifferentiable) return std::nullopt;
  for (const std::string& n : names) {
    const model::Argument* arg = nullptr;
    f.func.arguments.anyOf([&](const model::Argument& a) { return a.name == n && (arg = &a) != nullptr; });
    if (arg == nullptr) continue;  // (a binding of no schema argument)
    const model::Type& t = arg->type;
    if (!t.isBase(model::BaseTy::Tensor) && !((t.isOptional() || t.isList()) && t.elem().isBase(model::BaseTy::Tensor)))
      return Failure{at, "argument '" + n + "' has type " + t.str() + ": " +
                             (t.isTensorLike() ? "gradients of lists of optional tensors are not supported yet"
                                               : "only tensors (Tensor, Tensor?, Tensor[]) have gradients")};
  }
  return std::nullopt;
}

std::optional<Failure> libraryUnknownGradients(const std::string& formula, const DifferentiabilityInfo& info,
                                               const SourceLoc& at) {
  // (torchgen leaves an unknown gradient's name to the C++ compiler)
  for (const std::string& id : identifiersStartingWith(formula, "grad_"))
    if (id != "grad_input_mask" && !contains(info.availableNamedGradients, id))
      return Failure{at, "the formula names an unknown variable '" + id + "'" +
                             (info.availableNamedGradients.empty()
                                  ? std::string(" (no return has a name)")
                                  : " (the named gradients are: " + support::join(info.availableNamedGradients, ", ") + ")")};
  return std::nullopt;
}

// torchgen's rule for the tensor arguments without formula: a Tensor? or Tensor[] one is refused
// at run time when it requires grad (check_no_requires_grad); a Tensor one would silently get no gradient.
std::optional<Failure> libraryCoverage(const NativeFunction& f, const DifferentiabilityInfo& info, const SourceLoc& at) {
  std::optional<Failure> failure;
  f.func.arguments.anyOf([&](const model::Argument& a) {
    if (!a.type.isBase(model::BaseTy::Tensor) || contains(info.nonDifferentiableArgNames, a.name)) return false;
    for (const Binding& b : info.argsWithDerivatives)
      if (b.name == a.name) return false;
    failure = Failure{at, "tensor argument '" + a.name + "' has no formula: give one, not_implemented(\"" +
                              f.func.name.str() + "\") or non_differentiable"};
    return true;
  });
  return failure;
}

// What a forward formula may name: the tangents and values of the differentiable inputs,
// original_self_* in an in-place operator's; and it must use a tangent (or it would run for no input).
std::optional<Failure> libraryForwardChecks(const NativeFunction& f, const DifferentiabilityInfo& info, const ForwardDerivative& fw,
                                            const std::vector<std::string>& allArgNames, const SourceLoc& at) {
  const auto differentiable = [&](const std::string& n) -> const Binding* {
    for (const Binding& b : info.argsWithDerivatives)
      if (b.name == n) return &b;
    return nullptr;
  };
  bool anyTangent = false;
  for (const std::string& n : allArgNames) {
    const Binding* b = differentiable(n);
    if (b != nullptr && isTensorListBinding(*b) && pyIdentSearch(fw.formula, n)) anyTangent = true;  // a list's tangents
    for (const char* suffix : {"_t", "_p"}) {
      if (!pyIdentSearch(fw.formula, n + suffix)) continue;
      if (b == nullptr)
        return Failure{at, "the forward formula names an unknown variable '" + n + suffix + "' ('" + n +
                               "' is not a differentiable input)"};
      anyTangent = anyTangent || std::string_view(suffix) == "_t";
    }
  }
  if (pyIdentSearch(fw.formula, "grad"))
    return Failure{at, "the forward formula names 'grad', which only backward formulas have (auto_element_wise "
                       "replaces it as torchgen does, not where it directly follows another one: write grad * grad, "
                       "not grad*grad)"};
  for (const char* name : {"original_self_p", "original_self_t"})
    if (pyIdentSearch(fw.formula, name) && (f.func.kind() != SchemaKind::Inplace || !contains(allArgNames, "self")))
      return Failure{at, "the forward formula names '" + std::string(name) + "', which only the formulas of in-place "
                         "operators modifying 'self' have"};
  const bool onlyAList = info.argsWithDerivatives.size() == 1 && isTensorListBinding(info.argsWithDerivatives[0]);
  if (!anyTangent && !onlyAList)
    return Failure{at, "the forward formula uses no input's tangent (NAME_t): it would run for no input (torchgen "
                       "allows that only for an operator whose single differentiable input is a tensor list)"};
  return std::nullopt;
}

// torchgen's rule that forward formulas cover the differentiable outputs, checked: with
// forward formulas, every differentiable output has exactly one.
std::optional<Failure> libraryForwardOutputs(const DifferentiabilityInfo& info, const std::vector<std::string>& returns,
                                             const std::vector<SourceLoc>& forwardLocs, const SourceLoc& at) {
  if (info.forwardDerivatives.empty()) return std::nullopt;
  const auto differentiable = [&](std::size_t i) {
    const std::vector<bool>& od = info.outputDifferentiability ? *info.outputDifferentiability : std::vector<bool>{};
    return od.empty() || (i < od.size() && od[i]);
  };
  for (std::size_t k = 0; k < info.forwardDerivatives.size(); ++k)
    for (const std::string& name : info.forwardDerivatives[k].varNames) {
      const auto i = static_cast<std::size_t>(std::find(returns.begin(), returns.end(), name) - returns.begin());
      if (!differentiable(i))
        return Failure{forwardLocs[k], "return '" + name + "' has a forward formula but is not differentiable "
                                        "(output_differentiability)"};
    }
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < returns.size(); ++i) {
    const bool given = std::any_of(info.forwardDerivatives.begin(), info.forwardDerivatives.end(),
                                   [&](const ForwardDerivative& fw) { return contains(fw.varNames, returns[i]); });
    if (!given && differentiable(i)) missing.push_back(returns[i]);
  }
  if (!missing.empty())
    return Failure{at, "the forward formulas give no tangent for the differentiable output(s) " + support::join(missing, ", ") +
                           ": give every differentiable output a forward formula, or none"};
  return std::nullopt;
}

}  // namespace opgen::api::autograd::derivatives
