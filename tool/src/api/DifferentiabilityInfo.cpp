#include "api/DifferentiabilityInfo.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <unordered_map>

#include "api/Cpp.h"
#include "api/DerivativesLibraryChecks.h"
#include "api/Signatures.h"
#include "support/Strings.h"
#include "support/Yaml.h"

namespace opgen::api::autograd {

namespace {

using model::NativeFunction;
using model::SchemaKind;
using support::SourceLoc;
using support::YamlNode;
using derivatives::Failure;
using derivatives::isTensorListBinding;

// Python's \w on the ASCII formulas of derivatives.yaml (bytes of other characters count as letters).
bool isWord(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }

// One match of (^|\W)NAME($|\W): where it starts, where the name is, where it ends.
struct IdentMatch {
  std::size_t begin, nameAt, end;
};

// The matches re.finditer finds, left to right, each starting at or after the previous one's end.
std::vector<IdentMatch> identMatches(std::string_view text, std::string_view name) {
  std::vector<IdentMatch> out;
  std::size_t pos = 0;
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    std::size_t begin;
    if (at == 0 && pos == 0) begin = 0;
    else if (at > 0 && at - 1 >= pos && !isWord(text[at - 1])) begin = at - 1;
    else continue;
    std::size_t end = at + name.size();
    const bool atEnd = end == text.size() || (end + 1 == text.size() && text[end] == '\n');  // $
    if (!atEnd) {
      if (isWord(text[end])) continue;
      ++end;
    }
    out.push_back({begin, at, end});
    pos = end;
  }
  return out;
}

// re.sub(r"\bNAME\b", by, text).
std::string subWordBoundary(std::string_view text, std::string_view name, std::string_view by) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    if (at < from) continue;
    const std::size_t end = at + name.size();
    const bool before = at == 0 || isWord(text[at - 1]) != isWord(text[at]);
    const bool after = end == text.size() || isWord(text[end - 1]) != isWord(text[end]);
    if (!before || !after) continue;
    out.append(text.substr(from, at - from)).append(by);
    from = end;
  }
  return out.append(text.substr(from));
}

// The i of every grads[i] re.findall(r"(?:^|\W)grads\[(\d+)\]") finds.
std::vector<std::size_t> usedGradientIndices(std::string_view formula) {
  std::vector<std::size_t> out;
  constexpr std::string_view kGrads = "grads[";
  std::size_t pos = 0;
  for (std::size_t at = formula.find(kGrads); at != std::string_view::npos; at = formula.find(kGrads, at + 1)) {
    if (!((at == 0 && pos == 0) || (at > 0 && at - 1 >= pos && !isWord(formula[at - 1])))) continue;
    std::size_t d = at + kGrads.size(), e = d;
    while (e < formula.size() && std::isdigit(static_cast<unsigned char>(formula[e]))) ++e;
    if (e == d || e >= formula.size() || formula[e] != ']') continue;
    out.push_back(std::stoul(std::string(formula.substr(d, e - d))));
    pos = e + 1;
  }
  return out;
}

// Whether `text` holds PREFIX "(" "-"? DIGITS ")" (the .size(int) that formulas may not use).
bool hasSizeCall(std::string_view text, std::string_view prefix) {
  for (std::size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
    std::size_t i = at + prefix.size();
    if (i < text.size() && text[i] == '-') ++i;
    const std::size_t d = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i > d && i < text.size() && text[i] == ')') return true;
  }
  return false;
}

std::string pyStrip(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool contains(const std::vector<std::string>& xs, std::string_view x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

std::string nameOf(const NamedCType& n) { return n.name.isSpecial() ? "possibly_redundant_memory_format" : n.name.name; }

// torchgen's saved_variables' rewrites: an expression of a value that the node can compute when it is
// made, saved instead of the value.
struct Replacement {
  std::string_view prefix;  // before the name ("zeros_like(") or empty
  std::string_view suffix;  // after the name and one character ("sym_sizes()"), or after the name (")")
  bool anyCharBefore;       // the regex's unescaped '.' between the name and the suffix
  std::string_view savedSuffix;
  std::function<CType()> type;
  std::function<std::string(const std::string&)> expr;  // of the name; default: the matched text
  std::function<std::string(const std::string&)> res;   // the formula's replacement; default: the saved name
};

const std::vector<Replacement>& replacements() {
  static const std::vector<Replacement> kReplacements = [] {
    const auto base = [](BaseCppType t) { return [t] { return CType::base(t); }; };
    std::vector<Replacement> r;
    r.push_back({"", "sym_sizes()", true, "_sym_sizes", base(symIntArrayRefT), nullptr, nullptr});
    r.push_back({"", "->sym_sizes()", false, "_sym_sizes_opt", [] { return CType::optional(CType::base(symIntArrayRefT)); },
                 [](const std::string& n) {
                   return n + ".has_value() ? std::optional<c10::SymIntArrayRef>(" + n + "->sym_sizes()) : std::nullopt";
                 },
                 nullptr});
    r.push_back({"", "sym_blocksize()", true, "_self_sym_blocksize_opt",
                 [] { return CType::optional(CType::base(symIntArrayRefT)); },
                 [](const std::string& n) { return "at::sparse_csr::getSymIntBlockSize(" + n + ")"; }, nullptr});
    r.push_back({"", "options()", true, "_options", base(tensorOptionsT), nullptr, nullptr});
    r.push_back({"zeros_like(", ")", false, "_info", base(typeAndSizeT), [](const std::string& n) { return n; },
                 [](const std::string& n) { return n + "_info.zeros()"; }});
    r.push_back({"", "sym_size(", true, "_sym_argsize_", base(SymIntT), nullptr, nullptr});  // special: (-?\w+)
    r.push_back({"", "numel()", true, "_numel", base(longT), nullptr, nullptr});
    r.push_back({"", "sym_numel()", true, "_sym_numel", base(SymIntT), nullptr, nullptr});
    r.push_back({"to_args_sizes(", ")", false, "_args_sizes", [] { return CType::vector(CType::vector(CType::base(longT))); },
                 nullptr, nullptr});
    r.push_back({"to_args_sizes_symint(", ")", false, "_args_sizes_symint",
                 [] { return CType::vector(CType::vector(CType::base(SymIntT))); }, nullptr, nullptr});
    r.push_back({"to_args_scalartypes(", ")", false, "_args_scalartypes",
                 [] { return CType::vector(CType::base(scalarTypeT)); }, nullptr, nullptr});
    r.push_back({"TensorGeometry(", ")", false, "_geometry", base(tensorGeometryT), nullptr, nullptr});
    r.push_back({"", "scalar_type()", true, "_scalar_type", base(scalarTypeT), nullptr, nullptr});
    r.push_back({"", "dim()", true, "_dim", base(longT), nullptr, nullptr});
    r.push_back({"", "sym_strides()", true, "_sym_strides", base(symIntArrayRefT), nullptr, nullptr});  // expr: strides
    r.push_back({"", "layout()", true, "_layout", base(layoutT), nullptr, nullptr});
    r.push_back({"", "is_conj()", true, "_conjugate", base(boolT), nullptr, nullptr});
    return r;
  }();
  return kReplacements;
}

// Where a match of the replacement's pattern for `name` starting at `at` ends, and the sym_size
// argument; npos when there is none.
std::size_t matchReplacement(const Replacement& r, std::string_view text, std::size_t at, const std::string& name,
                             std::string& group) {
  std::size_t i = at;
  if (text.compare(i, r.prefix.size(), r.prefix) != 0) return std::string_view::npos;
  i += r.prefix.size();
  if (text.compare(i, name.size(), name) != 0) return std::string_view::npos;
  i += name.size();
  if (r.anyCharBefore) {
    if (i >= text.size() || text[i] == '\n') return std::string_view::npos;
    ++i;
  }
  if (text.compare(i, r.suffix.size(), r.suffix) != 0) return std::string_view::npos;
  i += r.suffix.size();
  if (r.savedSuffix == "_sym_argsize_") {  // (-?\w+)\)
    const std::size_t g = i;
    if (i < text.size() && text[i] == '-') ++i;
    const std::size_t w = i;
    while (i < text.size() && isWord(text[i])) ++i;
    if (i == w || i >= text.size() || text[i] != ')') return std::string_view::npos;
    group = std::string(text.substr(g, i - g));
    ++i;
  }
  return i;
}

class Loader {
 public:
  Loader(const std::string& path, const model::Operators& ops, const DerivativesOptions& options)
      : path_(path), ops_(ops), library_(options.libraryNamespace) {}
  // false after reporting every entry's first problem.
  bool load(const YamlNode& doc, LoadedDerivatives& out, support::Diagnostics& diags);

 private:
  SourceLoc loc(const YamlNode& n) const { return support::locOf(n, path_); }
  std::optional<Failure> entry(const YamlNode& e, LoadedDerivatives& out);
  std::optional<Failure> findFunction(const YamlNode& nameNode, int offset, const NativeFunction*& found);
  // args: cppArguments(f)
  std::optional<Failure> setUp(const NativeFunction& f, const std::vector<Binding>& args, const YamlNode& defn,
                               const YamlNode& at, DifferentiabilityInfo& info);
  std::optional<Failure> savedVariables(std::string& formula, const std::vector<NamedCType>& nctypes,
                                        const std::vector<std::string>& varNames, std::vector<SavedAttribute>& saved,
                                        const SourceLoc& at);
  std::optional<Failure> postprocessForward(const NativeFunction& f, DifferentiabilityInfo& info,
                                            const std::vector<std::string>& allArgNames);
  std::optional<Failure> checkGradUsage(const DifferentiabilityInfo& info, const SourceLoc& at);
  std::vector<Binding> cppArguments(const NativeFunction& f);

  const std::string& path_;
  const model::Operators& ops_;
  const std::optional<std::string>& library_;
  std::string defnName_, specification_;
  std::string opName_;  // the entry's operator once found ("in 'OP': ..." of its messages)
  std::optional<std::vector<bool>> outputDifferentiability_;
  std::vector<std::string> formulaReturns_;  // the returns as formulas name them ("result" for self)
  std::vector<SourceLoc> forwardLocs_;       // of the forward formulas, as info.forwardDerivatives
  std::unordered_map<std::string, const NativeFunction*> bySchema_;
  // The functions by base name: those of a signature are among those of its base name (a signature keeps
  // the base name), so that only an entry's candidates get their signature computed.
  std::unordered_map<std::string, std::vector<const NativeFunction*>> byBase_;
  std::map<std::string, int> opCounter_;
  std::map<std::string, std::size_t> entryIndex_;  // canonical schema -> entries index
};

// The arguments as formulas name them: ATen's C++ API (torchgen's), a library's dispatcher names.
std::vector<Binding> Loader::cppArguments(const NativeFunction& f) {
  if (library_) return DispatcherSignature::fromSchema(f.func, Options::of(f)).arguments();
  const CppSignatureGroup g = CppSignatureGroup::fromNativeFunction(f, {.method = false, .fallbackBinding = false},
                                                                    Options::of(f));
  return g.symintSignature() ? g.symintSignature()->arguments() : g.signature().arguments();
}

std::optional<Failure> Loader::savedVariables(std::string& formula, const std::vector<NamedCType>& nctypes,
                                              const std::vector<std::string>& varNames,
                                              std::vector<SavedAttribute>& saved, const SourceLoc& at) {
  if (formula.find(".sizes()") != std::string::npos || formula.find("->sizes()") != std::string::npos)
    return Failure{at, ".sizes() is not supported in derivative formulas. Instead, please use the SymInt version,"
                       ".sym_sizes(), which returned a c10::SymIntArrayRef. formula=" + formula};
  if (hasSizeCall(formula, ".size(") || hasSizeCall(formula, "->size("))
    return Failure{at, ".size(int) is not supported in derivative formulas. Instead, please use the SymInt version,"
                       ".sym_size(int), which returned a c10::SymIntArrayRef. formula=" + formula};
  if (formula.find(".strides()") != std::string::npos || formula.find("->strides()") != std::string::npos)
    return Failure{at, ".strides() is not supported in derivative formulas. Instead, please use the SymInt version,"
                       ".sym_strides(), which returned a c10::SymIntArrayRef. formula=" + formula};
  for (const NamedCType& nctype : nctypes) {
    const std::string name = nameOf(nctype);
    // Every rewrite below and the use of the value need the name in the formula: most of a function's
    // arguments are not in a given formula. Every replacement's match has the name after its prefix, so
    // the matches are found from where the name is (found again when a replacement rewrites the
    // formula) rather than by a search of the whole formula per replacement.
    std::vector<std::size_t> places;
    const auto findPlaces = [&] {
      places.clear();
      for (std::size_t p = formula.find(name); p != std::string::npos; p = formula.find(name, p + 1)) places.push_back(p);
    };
    findPlaces();
    if (places.empty()) continue;
    for (const Replacement& r : replacements()) {
      std::string out, group;
      std::size_t from = 0;
      bool any = false;
      for (const std::size_t p : places) {
        if (p < r.prefix.size()) continue;
        const std::size_t at2 = p - r.prefix.size();
        if (at2 < from) continue;
        const std::size_t end = matchReplacement(r, formula, at2, name, group);
        if (end == std::string_view::npos) continue;
        const std::string matched = formula.substr(at2, end - at2);
        std::string suffix(r.savedSuffix);
        if (r.savedSuffix == "_sym_argsize_") suffix += support::replaceAll(group, "-", "minus_");
        std::string expr = r.expr ? r.expr(name) : matched;
        if (r.savedSuffix == "_sym_strides") {
          if (varNames != std::vector<std::string>{name})
            return Failure{at, "Replacement for \".strides()\" is currently only supported for single derivatives of the "
                               "same tensor that \".strides()\" is being called on."};
          expr = "strides_or_error(" + name + ", \"" + name + "\")";
        }
        saved.push_back({NamedCType{name + suffix, r.type()}, expr});
        out.append(formula, from, at2 - from).append(r.res ? r.res(name) : name + suffix);
        from = end;
        any = true;
      }
      if (any) {
        formula = out.append(formula, from, std::string::npos);
        findPlaces();
      }
    }
    if (nctype.type == CType::optional(CType::base(stringT)))
      formula = subWordBoundary(formula, name,
                                name + ".has_value() ? std::optional<std::string_view>(" + name + ".value()) : std::nullopt");
    if (pyIdentSearch(formula, name)) saved.push_back({nctype, name});
  }
  return std::nullopt;
}

std::optional<Failure> Loader::postprocessForward(const NativeFunction& f, DifferentiabilityInfo& info,
                                                  const std::vector<std::string>& allArgNames) {
  const bool foreach = f.func.name.name.base.starts_with("_foreach_");
  SourceLoc at;
  const auto requiredInputs = [&](const std::string& formula, const std::string& postfix,
                                  std::vector<std::string>& out) -> std::optional<Failure> {
    out.clear();
    for (const Binding& arg : info.argsWithDerivatives) {
      if (isTensorListBinding(arg) && !foreach) continue;
      if (pyIdentSearch(formula, arg.name))
        return Failure{at, "The forward formula for " + defnName_ + " is using the base name of the " + arg.name +
                               " argument which is ambiguous. You should use " + arg.name + "_p to access the primal "
                               "value and " + arg.name + "_t to access the tangent."};
      if (pyIdentSearch(formula, arg.name + postfix)) out.push_back(arg.name);
    }
    return std::nullopt;
  };
  for (std::size_t k = 0; k < info.forwardDerivatives.size(); ++k) {
    ForwardDerivative& defn = info.forwardDerivatives[k];
    at = forwardLocs_[k];
    std::string formula = defn.formula;
    if (auto failure = requiredInputs(formula, "_t", defn.requiredInputsFwGrad)) return failure;
    if (formula == "auto_element_wise") {
      if (f.func.kind() == SchemaKind::Inplace)
        return Failure{at, "Cannot use auto_element_wise with " + f.func.name.str() + " because it is an in-place variant: "
                           "write a formula that modifies self_t in place (e.g. self_t.mul_(...))"};
      if (info.argsWithDerivatives.size() != 1 || info.forwardDerivatives.size() > 1 ||
          info.forwardDerivatives[0].varNames.size() > 1)
        return Failure{at, "Derivative definition of " + defnName_ + " in derivatives.yaml defines the forward definition "
                           "of gradient as element_wise but this only works for functions with a single differentiable "
                           "input and a single differentiable output."};
      if (info.derivatives.size() != 1)
        return Failure{at, "Derivative definition of " + defnName_ + " in derivatives.yaml defines the forward definition "
                           "of gradient as element_wise but it does not defines the gradient formula for its argument "
                           "which is required."};
      const std::string& input = info.argsWithDerivatives[0].name;
      if (library_ && isTensorListBinding(info.argsWithDerivatives[0]))
        return Failure{at, "auto_element_wise needs a tensor input, and '" + input + "' is a tensor list"};
      std::string fw = pyIdentSub(info.derivatives[0].originalFormula, "grad", input + "_t.conj()");
      for (const Binding& arg : info.argsWithDerivatives) fw = pyIdentSub(fw, arg.name, arg.name + "_p");
      formula = "(" + fw + ").conj()";
      defn.requiredInputsFwGrad = allArgNames;
      defn.requiredInputsFwGradFromSet = false;
    } else if (formula == "auto_linear") {
      if (info.forwardDerivatives.size() > 1 || info.forwardDerivatives[0].varNames.size() > 1)
        return Failure{at, "Derivative definition of " + defnName_ + " in derivatives.yaml defines the forward definition "
                           "of gradient as linear but this only works for functions with a single differentiable output."};
      std::vector<std::string> diffArgNames;
      for (const Binding& arg : info.argsWithDerivatives) diffArgNames.push_back(arg.name);
      if (diffArgNames.empty()) return Failure{at, "Expected at least one differentiable argument"};
      std::vector<std::string> newArgs;
      for (const std::string& n : allArgNames) newArgs.push_back(contains(diffArgNames, n) ? n + "_t" : n);
      const std::string name = f.func.hasSymInt() ? defnName_ + "_symint" : defnName_;
      if (library_) {
        // The library's operator itself (for an in-place one, applied to self_t: modified in place).
        formula = *library_ + "::_ops::" + f.func.name.unambiguousName() + "::call(" + support::join(newArgs, ", ") + ")";
      } else if (f.hasVariant(model::Variant::Function)) {
        formula = "at::" + name + "(" + support::join(newArgs, ", ") + ")";
      } else {
        if (!f.hasVariant(model::Variant::Method))
          return Failure{at, "Expected Variant.method in variants for " + f.func.name.str()};
        formula = newArgs[0] + "." + name + "(" + support::join({newArgs.begin() + 1, newArgs.end()}, ", ") + ")";
      }
      defn.requiredInputsFwGrad = diffArgNames;
      defn.requiredInputsFwGradFromSet = false;
    }
    if (auto failure = requiredInputs(formula, "_p", defn.requiredInputsPrimal)) return failure;
    defn.formula = formula;
    if (library_)
      if (auto failure = derivatives::libraryForwardChecks(f, info, defn, allArgNames, at)) return failure;
  }
  return std::nullopt;
}

std::optional<Failure> Loader::checkGradUsage(const DifferentiabilityInfo& info, const SourceLoc& at) {
  bool usesGrad = false, usesNamed = false;
  std::size_t numGradsUses = 0;
  std::vector<std::size_t> indices;
  for (const Derivative& d : info.derivatives) {
    usesGrad = usesGrad || pyIdentSearch(d.formula, "grad");
    numGradsUses += identMatches(d.formula, "grads").size();
    usesNamed = usesNamed || !d.namedGradients.empty();
    for (std::size_t i : usedGradientIndices(d.formula)) indices.push_back(i);
  }
  if (numGradsUses < indices.size())
    return Failure{at, "num_grads_uses (" + std::to_string(numGradsUses) + ") < len(used_grads_indices) (" +
                           std::to_string(indices.size()) + ")"};
  const bool onlyIndices = numGradsUses == indices.size();
  if (usesGrad && numGradsUses > 0)
    return Failure{at, "Derivative definition of " + defnName_ + " in derivatives.yaml illegally mixes use of 'grad' and "
                       "'grads'. Consider replacing occurrences of 'grad' with 'grads[0]'"};
  if (onlyIndices && !indices.empty() && std::all_of(indices.begin(), indices.end(), [](std::size_t i) { return i == 0; }))
    return Failure{at, "Derivative definition of " + defnName_ + " in derivatives.yaml solely refers to 'grads[0]'.  If "
                       "the first output is indeed the only differentiable output, replace 'grads[0]' with 'grad'; "
                       "otherwise, there is a likely error in your derivatives declaration."};
  if (usesNamed && (usesGrad || numGradsUses > 0))
    return Failure{at, "Derivative definition of " + defnName_ + " in derivatives.yaml illegally mixes use of "
                       "\"grad_RETURN_NAME\" and \"grad\" or \"grads[x]\". Use only one method for identifying gradients."};
  return std::nullopt;
}

std::optional<Failure> Loader::setUp(const NativeFunction& f, const std::vector<Binding>& args, const YamlNode& defn,
                                     const YamlNode& at, DifferentiabilityInfo& info) {
  std::vector<std::string> allArgNames;
  std::vector<NamedCType> argTypes;
  for (const Binding& b : args) {
    allArgNames.push_back(b.name);
    argTypes.push_back(b.nctype.removeConstRef());
  }
  const Options options = Options::of(f);
  const std::vector<model::Return>& returns = f.func.returns;
  std::vector<NamedCType> namedReturns;
  const std::vector<std::string> returnNames = cpp::returnNames(f);
  formulaReturns_.clear();
  for (std::size_t i = 0; i < returns.size(); ++i) {
    formulaReturns_.push_back(returnNames[i] == "self" ? std::string("result") : returnNames[i]);
    namedReturns.push_back({formulaReturns_.back(), cpp::returnType(returns[i], options).removeConstRef()});
  }
  const std::vector<bool> differentiability = outputDifferentiability_ && !outputDifferentiability_->empty()
                                                  ? *outputDifferentiability_
                                                  : std::vector<bool>(returns.size(), true);
  for (std::size_t i = 0; i < returns.size() && i < differentiability.size(); ++i)
    if (differentiability[i] && returns[i].name && returns[i].type.isTensorLike())
      info.availableNamedGradients.push_back("grad_" + *returns[i].name);

  // The formulas in the order of their keys (Python's sorted()).
  std::vector<std::pair<const YamlNode*, const YamlNode*>> keys;
  for (const auto& [key, value] : defn.entries()) keys.emplace_back(&key, &value);
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first->text() < b.first->text(); });
  std::set<std::string> withDerivatives;
  forwardLocs_.clear();
  for (const auto& [key, value] : keys) {
    const SourceLoc where = loc(*value);
    if (!value->isScalar() || support::scalarKind(*value) != support::ScalarKind::String)
      return Failure{where, "the formula of '" + key->text() + "' must be a string, not " + support::describeNode(*value)};
    const std::string formula = value->text();
    std::vector<std::string> names;
    for (std::string_view n : support::split(key->text(), ",")) names.push_back(pyStrip(n));
    for (const std::string& n : names)
      for (const model::Return& r : returns)
        if (contains(allArgNames, n) && r.name == n)
          return Failure{loc(*key), "While processing the derivative formula for '" + f.func.name.str() + "' wrt '" + n +
                                        "', expected '" + n + "' to not be both an input arg and named return."};
    const std::string stripped = pyStrip(formula);  // (lower() keeps the length: only a formula of 18 can match)
    const bool nonDifferentiable = stripped.size() == 18 && lower(stripped) == "non_differentiable";
    if (library_)
      if (auto failure = derivatives::libraryKeyChecks(f, loc(*key), names, nonDifferentiable, allArgNames,
                                                       formulaReturns_, info, withDerivatives))
        return failure;
    if (!contains(allArgNames, names.front())) {  // a forward derivative
      ForwardDerivative fw{formula, names, {}, {}, {}, true, true};
      bool typed = false;
      for (const model::Return& r : returns)
        if (r.name && contains(names, *r.name)) {
          fw.varTypes.push_back(r.type);
          typed = true;
        }
      if (!typed) {
        if (names == std::vector<std::string>{"result"}) {
          if (returns.size() != 1)
            return Failure{loc(*key), "Expected 1 return for 'result', got " + std::to_string(returns.size())};
          fw.varTypes.push_back(returns[0].type);
          typed = true;
        } else {
          for (const std::string& n : names) {
            if (!n.starts_with("result") || n.size() == 6 ||
                !std::all_of(n.begin() + 6, n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
              continue;
            const std::size_t index = std::stoul(n.substr(6));
            if (index >= returns.size())
              return Failure{loc(*key), "'" + n + "' names no return (the function has " + std::to_string(returns.size()) + ")"};
            fw.varTypes.push_back(returns[index].type);
            typed = true;
          }
        }
      }
      if (!typed) return derivatives::noMatchingOutput(f, loc(*key), formulaReturns_, names.front());
      info.forwardDerivatives.push_back(std::move(fw));
      forwardLocs_.push_back(where);
      continue;
    }
    if (nonDifferentiable) {
      for (const std::string& n : names) info.nonDifferentiableArgNames.push_back(n);
      continue;
    }
    Derivative d{formula, formula, names, {}, {}, {}};
    if (auto failure = savedVariables(d.formula, argTypes, names, d.savedInputs, where)) return failure;
    if (auto failure = savedVariables(d.formula, namedReturns, names, d.savedOutputs, where)) return failure;
    for (const std::string& g : info.availableNamedGradients)
      if (pyIdentSearch(d.formula, g)) d.namedGradients.insert(g);
    for (std::size_t i : usedGradientIndices(d.formula))
      if (i >= returns.size())
        return Failure{where, "Out of bounds grads access: derivative formula for " + cpp::name(f.func) + " used grads[" +
                                  std::to_string(i) + "], but the forward only returns " + std::to_string(returns.size()) +
                                  " outputs."};
    if (library_)
      if (auto failure = derivatives::libraryUnknownGradients(formula, info, where)) return failure;
    info.derivatives.push_back(std::move(d));
    withDerivatives.insert(names.begin(), names.end());
  }
  for (const std::string& n : info.nonDifferentiableArgNames)
    if (withDerivatives.count(n))
      return Failure{loc(at), "derivatives definition for " + specification_ + " have overlapped non_differentiable and "
                              "differentiable variables: {'" + n + "'}"};
  for (const Binding& b : args)
    if (withDerivatives.count(b.name)) info.argsWithDerivatives.push_back(b);
  if (library_)
    if (auto failure = derivatives::libraryCoverage(f, info, loc(at))) return failure;
  if (auto failure = postprocessForward(f, info, allArgNames)) return failure;
  if (library_)
    if (auto failure = derivatives::libraryForwardOutputs(info, formulaReturns_, forwardLocs_, loc(at))) return failure;
  return checkGradUsage(info, loc(at));
}

// Python's `split_name_params(schema)[0]`: the operator's name without overload, or nullopt.
std::optional<std::string> splitName(std::string_view spec) {
  std::size_t i = 0;
  while (i < spec.size() && isWord(spec[i])) ++i;
  if (i == 0) return std::nullopt;
  std::size_t j = i;
  if (j < spec.size() && spec[j] == '.') {
    std::size_t k = j + 1;
    while (k < spec.size() && isWord(spec[k])) ++k;
    if (k > j + 1) j = k;
  }
  if (j >= spec.size() || spec[j] != '(' || spec.find(')', j) == std::string_view::npos) return std::nullopt;
  return std::string(spec.substr(0, i));
}

void dedupInto(std::vector<SavedAttribute>& out, const std::vector<SavedAttribute>& vars, std::set<std::string>& seen) {
  for (const SavedAttribute& v : vars)
    if (seen.insert(v.name()).second) out.push_back(v);
}

// The function an entry's name (specification_, a library's namespace removed: `offset` characters) is
// for: by its text, as torchgen finds it, or else by the schema it spells. Sets defnName_.
std::optional<Failure> Loader::findFunction(const YamlNode& nameNode, int offset, const NativeFunction*& found) {
  const SourceLoc at = loc(nameNode);
  const std::optional<std::string> defnName = splitName(specification_);
  if (const auto it = bySchema_.find(specification_); it != bySchema_.end() && defnName) {
    found = it->second;
    defnName_ = *defnName;
    return std::nullopt;
  }
  const support::Expected<model::FunctionSchema> schema = model::FunctionSchema::parse(specification_);
  if (!schema) return Failure{at.shifted(offset + std::max(schema.error().offset, 0)), schema.error().message};
  defnName_ = defnName ? *defnName : schema->name.name.str();
  if (const auto it = bySchema_.find(schema->str()); it != bySchema_.end()) {
    found = it->second;
    return std::nullopt;
  }
  std::vector<std::string> available;
  for (const NativeFunction* f : ops_.functions())
    if (cpp::name(f->func) == defnName_) available.push_back(f->func.str());
  const std::string owner = library_ ? "an operator of the library '" + *library_ + "'" : "ATen function";
  return Failure{at, "could not find " + owner + " for schema: " + specification_ +
                         (available.empty() ? std::string() : " (available: " + support::join(available, "; ") + ")")};
}

std::optional<Failure> Loader::entry(const YamlNode& e, LoadedDerivatives& out) {
  opName_.clear();
  if (!e.isMap())
    return Failure{loc(e), "a derivatives.yaml entry must be a mapping with a 'name' key, not " + support::describeNode(e)};
  std::set<std::string> seenKeys;
  for (const auto& [key, value] : e.entries())
    if (!seenKeys.insert(key.text()).second) return Failure{loc(key), "duplicate key '" + key.text() + "'"};
  const YamlNode& nameNode = e["name"];
  if (!nameNode.isScalar()) return Failure{loc(e), "the entry has no 'name: SCHEMA'"};
  specification_ = nameNode.text();
  const SourceLoc at = loc(nameNode);
  int offset = 0;  // of the schema in the name (after a library's namespace)
  if (library_) {
    const std::size_t paren = specification_.find('('), colons = specification_.find("::");
    if (colons != std::string::npos && colons < paren) {
      if (specification_.compare(0, colons, *library_) != 0 || colons != library_->size())
        return Failure{at, "operator '" + specification_.substr(0, paren) + "' is not in the library's namespace '" +
                               *library_ + "'"};
      offset = static_cast<int>(colons + 2);
      specification_.erase(0, colons + 2);
    }
  }
  const NativeFunction* found = nullptr;
  if (auto failure = findFunction(nameNode, offset, found)) return failure;
  opName_ = found->func.name.str();
  if (library_)
    if (auto failure = derivatives::libraryEntryChecks(*found, ops_, e, path_)) return failure;

  outputDifferentiability_.reset();
  std::optional<std::vector<std::string>> conditions;
  if (const YamlNode& od = e["output_differentiability"]; od.isDefined() && !od.isNull()) {
    if (!od.isSequence()) return Failure{loc(od), "output_differentiability must be a list, not " + support::describeNode(od)};
    std::vector<bool> bools;
    std::vector<std::string> strings;
    for (const YamlNode& item : od.items()) {
      const support::ScalarKind kind = item.isScalar() ? support::scalarKind(item) : support::ScalarKind::Collection;
      if (kind == support::ScalarKind::Bool) bools.push_back(support::scalarBool(item));
      else if (kind == support::ScalarKind::String) strings.push_back(item.text());
      else return Failure{loc(item), "output_differentiability: expected True, False or a condition, not " + support::describeNode(item)};
    }
    if (!strings.empty()) {
      if (od.size() != 1)
        return Failure{loc(od), "Not supported: for " + specification_ + ",output_differentiability must either be "
                                "list[bool] or a list[str] where each str is a condition. In the case where it is a "
                                "condition, we only support single-output functions. Please file us an issue. "};
      if (library_)
        return Failure{loc(od), "output_differentiability conditions are not supported for operator libraries yet: "
                                "give True or False per return"};
      conditions = strings;
      outputDifferentiability_ = std::vector<bool>{true};
    } else if (!bools.empty()) {
      outputDifferentiability_ = bools;
    } else {
      outputDifferentiability_ = std::vector<bool>();  // an empty list: every output differentiable
    }
    if (library_ && od.size() > found->func.returns.size())
      return Failure{loc(od), "output_differentiability must be a list of at most " +
                                  std::to_string(found->func.returns.size()) + " bools (one per return)"};
  }

  std::vector<const NativeFunction*> functions;
  for (const NativeFunction* g : byBase_.at(found->func.name.name.base))
    if (g->signatureString == found->signatureString) functions.push_back(g);
  const NativeFunction* canonical = nullptr;
  for (const NativeFunction* f : functions)
    if (!f->func.isFunctionalFn() && !f->func.isOutFn() && defnName_ == f->func.name.name.str()) {
      canonical = f;
      break;
    }
  if (canonical == nullptr) {
    if (defnName_ + "_" != cpp::name(functions[0]->func))
      return Failure{at, "Expected inplace function name '" + defnName_ + "_', got '" + cpp::name(functions[0]->func) + "'"};
    canonical = functions[0];
  }
  const std::vector<Binding> args = cppArguments(*canonical);
  for (const Binding& b : args)
    if (b.name == "grad_input_mask" || b.name == "result")
      return Failure{at, "an argument is named '" + b.name + "', a name formulas reserve (" +
                             (b.name == "result" ? "for the output" : "the generated code would shadow it") +
                             "): rename it in the schema"};

  // Without dispatch:, the formulas are the entry's other keys, for the key Default.
  std::vector<std::pair<std::string, const YamlNode*>> perKey;
  YamlNode defaultDefn = YamlNode::map(e.line(), e.column());
  const YamlNode& dispatch = e["dispatch"];
  if (dispatch.isDefined()) {
    if (!dispatch.isMap()) return Failure{loc(dispatch), "dispatch: must be a mapping, not " + support::describeNode(dispatch)};
    for (const auto& [key, value] : dispatch.entries()) {
      if (!value.isMap()) return Failure{loc(value), "the formulas of " + key.text() + " must be a mapping"};
      perKey.emplace_back(key.text(), &value);
    }
  } else {
    for (const auto& [key, value] : e.entries())
      if (key.text() != "name" && key.text() != "output_differentiability") defaultDefn.add(key, value);
    perKey.emplace_back("Default", &defaultDefn);
  }
  static const std::set<std::string> kAutogradKeys = {
      "AutogradNestedTensor", "AutogradCPU", "AutogradCUDA", "AutogradHIP", "AutogradXLA", "AutogradMTIA",
      "AutogradMPS", "AutogradIPU", "AutogradXPU", "AutogradHPU", "AutogradVE", "AutogradLazy", "AutogradMeta",
      "AutogradPrivateUse1", "AutogradPrivateUse2", "AutogradPrivateUse3"};
  DerivativesEntry result{canonical, {}};
  for (const auto& [key, defn] : perKey) {
    if (key != "Default" && !kAutogradKeys.count(key))
      return Failure{at, "Invalid dispatch key " + key + " in derivatives.yaml for " + specification_ +
                             ", expected key to be one of the Autograd keys (AutogradCPU, AutogradCUDA, ...)"};
    out.usedDispatchKeys.insert(key);
    DifferentiabilityInfo info;
    info.name = defnName_;
    info.func = canonical;
    info.outputDifferentiability = outputDifferentiability_;
    info.outputDifferentiabilityConditions = conditions;
    info.loc = at;
    if (auto failure = setUp(*canonical, args, *defn, nameNode, info)) return failure;
    for (const Derivative& d : info.derivatives) info.usedNamedGradients.insert(d.namedGradients.begin(), d.namedGradients.end());
    if (!info.argsWithDerivatives.empty()) {
      std::string prefix = model::nodeNamePrefix(defnName_);
      if (key != "Default") prefix += key;
      info.op = prefix + std::to_string(opCounter_[prefix]++);
    }
    std::set<std::string> seenIn, seenOut;
    for (const Derivative& d : info.derivatives) dedupInto(info.allSavedInputs, d.savedInputs, seenIn);
    for (const Derivative& d : info.derivatives) dedupInto(info.allSavedOutputs, d.savedOutputs, seenOut);
    result.byKey.emplace_back(key, std::move(info));
  }
  const std::string& schema = canonical->schemaString;
  if (const auto it = entryIndex_.find(schema); it != entryIndex_.end()) {
    if (library_)
      return Failure{at, "duplicate entry (the first is at line " +
                             std::to_string(out.entries[it->second].byKey.front().second.loc.line) + ")"};
    out.entries[it->second] = std::move(result);  // torchgen's dict: the later entry wins, in the first's place
  } else {
    entryIndex_[schema] = out.entries.size();
    out.entries.push_back(std::move(result));
  }
  return std::nullopt;
}

// torchgen's add_view_copy_derivatives: a {view}_copy operator without an entry of its own gets its
// view's, renamed.
void addViewCopyDerivatives(LoadedDerivatives& out, const model::Operators& ops, std::map<std::string, std::size_t>& index) {
  std::map<std::string, const model::NativeFunctionsViewGroup*> byView;
  for (const model::NativeFunctionsViewGroup* g : ops.viewGroups()) byView.emplace(g->view->func.name.str(), g);
  std::vector<DerivativesEntry> added;  // (appended after the loop: entries is what it walks)
  const NativeFunction* lastCopy = nullptr;  // torchgen's fn_schema, which outlives its loop
  for (const DerivativesEntry& e : out.entries) {
    DerivativesEntry copy{nullptr, {}};
    for (const auto& [key, info] : e.byKey) {
      const auto g = byView.find(info.func->func.name.str());
      if (g == byView.end() || g->second->viewCopy == nullptr) break;
      DifferentiabilityInfo c = info;
      const std::vector<std::string_view> parts = support::split(info.name, ".");
      std::vector<std::string> rest;
      for (std::size_t i = 1; i < parts.size(); ++i) rest.emplace_back(parts[i]);
      c.name = std::string(parts[0]) + "_copy." + support::join(rest, ".");
      c.func = g->second->viewCopy;
      if (info.op) c.op = *info.op + "_copy";
      lastCopy = c.func;
      copy.byKey.emplace_back(key, std::move(c));
    }
    if (!copy.byKey.empty() && !index.count(lastCopy->schemaString)) {
      copy.canonical = lastCopy;
      added.push_back(std::move(copy));
    }
  }
  for (DerivativesEntry& e : added) {
    const std::string& schema = e.canonical->schemaString;
    if (const auto it = index.find(schema); it != index.end()) {
      out.entries[it->second] = std::move(e);
    } else {
      index[schema] = out.entries.size();
      out.entries.push_back(std::move(e));
    }
  }
}

bool Loader::load(const YamlNode& doc, LoadedDerivatives& out, support::Diagnostics& diags) {
  for (const model::FunctionOrViewGroup& item : ops_.groupedByView()) {
    std::vector<const NativeFunction*> fs;
    if (const auto* f = std::get_if<const NativeFunction*>(&item)) fs = {*f};
    else fs = std::get<model::NativeFunctionsViewGroup>(item).functions(true);
    for (const NativeFunction* f : fs) {
      byBase_[f->func.name.name.base].push_back(f);
      bySchema_.emplace(f->schemaString, f);
    }
  }
  if (!doc.isSequence()) {
    diags.error(loc(doc), "derivatives.yaml must be a list of '- name: SCHEMA' entries, not " + support::describeNode(doc));
    return false;
  }
  bool ok = true;
  for (const YamlNode& e : doc.items())
    if (std::optional<Failure> failure = entry(e, out)) {
      diags.error(failure->loc, opName_.empty() ? failure->message : support::aboutOperator(opName_, failure->message));
      ok = false;
    }
  if (ok) addViewCopyDerivatives(out, ops_, entryIndex_);
  return ok;
}

}  // namespace

std::string SavedAttribute::name() const { return nameOf(nctype); }

bool pyIdentSearch(std::string_view text, std::string_view name) { return !identMatches(text, name).empty(); }

std::string pyIdentSub(std::string_view text, std::string_view name, std::string_view by) {
  std::string out;
  std::size_t from = 0;
  for (const IdentMatch& m : identMatches(text, name)) {
    out.append(text.substr(from, m.nameAt - from)).append(by);
    from = m.nameAt + name.size();
  }
  return out.append(text.substr(from));
}

std::optional<LoadedDerivatives> loadAtenDerivatives(const std::string& path, std::string_view content,
                                                     const model::Operators& ops, support::Diagnostics& diags) {
  std::optional<YamlNode> doc = support::parseYaml(content, path, diags);
  if (!doc) return std::nullopt;
  return loadAtenDerivatives(path, *doc, ops, diags);
}

std::optional<LoadedDerivatives> loadAtenDerivatives(const std::string& path, const support::YamlNode& doc,
                                                     const model::Operators& ops, support::Diagnostics& diags) {
  return loadDerivatives(path, doc, ops, DerivativesOptions{}, diags);
}

std::optional<LoadedDerivatives> loadDerivatives(const std::string& path, const support::YamlNode& doc,
                                                 const model::Operators& ops, const DerivativesOptions& options,
                                                 support::Diagnostics& diags) {
  LoadedDerivatives out;
  if (!Loader(path, ops, options).load(doc, out, diags)) return std::nullopt;
  return out;
}

}  // namespace opgen::api::autograd
