#include "api/DifferentiabilityInfo.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <unordered_map>

#include "api/Cpp.h"
#include "api/Signatures.h"
#include "support/Strings.h"
#include "support/Yaml.h"

namespace opgen::api::autograd {

namespace {

using model::NativeFunction;
using model::SchemaKind;
using support::SourceLoc;
using support::YamlNode;

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

// Python's str.title().
std::string title(std::string_view s) {
  std::string out;
  bool previousCased = false;
  for (char c : s) {
    const bool letter = std::isalpha(static_cast<unsigned char>(c)) != 0;
    out += letter ? static_cast<char>(previousCased ? std::tolower(static_cast<unsigned char>(c))
                                                    : std::toupper(static_cast<unsigned char>(c)))
                  : c;
    previousCased = letter;
  }
  return out;
}

std::string createOpPrefix(std::string_view name) {
  std::string camel;
  for (std::string_view part : support::split(name, "_")) camel += title(part);
  return support::replaceAll(camel + "Backward", "ForwardBackward", "Backward");
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

// A problem that stops the load (torchgen raises), with where it is.
struct Failure {
  SourceLoc loc;
  std::string message;
};

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
  Loader(const std::string& path, const model::Operators& ops) : path_(path), ops_(ops) {}
  std::optional<Failure> load(const YamlNode& doc, LoadedDerivatives& out);

 private:
  SourceLoc loc(const YamlNode& n) const { return support::locOf(n, path_); }
  std::optional<Failure> entry(const YamlNode& e, LoadedDerivatives& out);
  std::optional<Failure> setUp(const NativeFunction& f, const YamlNode& defn, const YamlNode& at, DifferentiabilityInfo& info);
  std::optional<Failure> savedVariables(std::string& formula, const std::vector<NamedCType>& nctypes,
                                        const std::vector<std::string>& varNames, std::vector<SavedAttribute>& saved,
                                        const SourceLoc& at);
  std::optional<Failure> postprocessForward(const NativeFunction& f, DifferentiabilityInfo& info,
                                            const std::vector<std::string>& allArgNames, const SourceLoc& at);
  std::optional<Failure> checkGradUsage(const DifferentiabilityInfo& info, const SourceLoc& at);
  std::vector<Binding> cppArguments(const NativeFunction& f);

  const std::string& path_;
  const model::Operators& ops_;
  std::string defnName_, specification_;
  std::optional<std::vector<bool>> outputDifferentiability_;
  std::unordered_map<std::string, const NativeFunction*> bySchema_;
  std::unordered_map<std::string, std::vector<const NativeFunction*>> bySignature_;
  std::map<std::string, int> opCounter_;
  std::map<std::string, std::size_t> entryIndex_;  // canonical schema -> entries index
};

std::vector<Binding> Loader::cppArguments(const NativeFunction& f) {
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
    for (const Replacement& r : replacements()) {
      const std::string_view first = r.prefix.empty() ? std::string_view(name) : r.prefix;
      std::string out, group;
      std::size_t from = 0;
      bool any = false;
      for (std::size_t at2 = formula.find(first); at2 != std::string::npos; at2 = formula.find(first, at2 + 1)) {
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
      if (any) formula = out.append(formula, from, std::string::npos);
    }
    if (nctype.type == CType::optional(CType::base(stringT)))
      formula = subWordBoundary(formula, name,
                                name + ".has_value() ? std::optional<std::string_view>(" + name + ".value()) : std::nullopt");
    if (pyIdentSearch(formula, name)) saved.push_back({nctype, name});
  }
  return std::nullopt;
}

std::optional<Failure> Loader::postprocessForward(const NativeFunction& f, DifferentiabilityInfo& info,
                                                  const std::vector<std::string>& allArgNames, const SourceLoc& at) {
  const bool foreach = f.func.name.name.base.starts_with("_foreach_");
  const auto requiredInputs = [&](const std::string& formula, const std::string& postfix,
                                  std::vector<std::string>& out) -> std::optional<Failure> {
    out.clear();
    for (const Binding& arg : info.argsWithDerivatives) {
      const std::string type = arg.type();
      if ((type == "at::TensorList" || type == "const at::ITensorListRef &") && !foreach) continue;
      if (pyIdentSearch(formula, arg.name))
        return Failure{at, "The forward formula for " + defnName_ + " is using the base name of the " + arg.name +
                               " argument which is ambiguous. You should use " + arg.name + "_p to access the primal "
                               "value and " + arg.name + "_t to access the tangent."};
      if (pyIdentSearch(formula, arg.name + postfix)) out.push_back(arg.name);
    }
    return std::nullopt;
  };
  for (ForwardDerivative& defn : info.forwardDerivatives) {
    std::string formula = defn.formula;
    if (auto failure = requiredInputs(formula, "_t", defn.requiredInputsFwGrad)) return failure;
    if (formula == "auto_element_wise") {
      if (f.func.kind() == SchemaKind::Inplace)
        return Failure{at, "Cannot use auto_element_wise with " + f.func.name.str() + " because it is an in-place variant"};
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
      if (f.hasVariant(model::Variant::Function)) {
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

std::optional<Failure> Loader::setUp(const NativeFunction& f, const YamlNode& defn, const YamlNode& at,
                                     DifferentiabilityInfo& info) {
  const std::vector<Binding> args = cppArguments(f);
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
  for (std::size_t i = 0; i < returns.size(); ++i)
    namedReturns.push_back({returnNames[i] == "self" ? std::string("result") : returnNames[i],
                            cpp::returnType(returns[i], options).removeConstRef()});
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
      if (!typed) return Failure{loc(*key), "No matching output for forward derivative definition"};
      info.forwardDerivatives.push_back(std::move(fw));
      continue;
    }
    if (lower(pyStrip(formula)) == "non_differentiable") {
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
    info.derivatives.push_back(std::move(d));
    withDerivatives.insert(names.begin(), names.end());
  }
  for (const std::string& n : info.nonDifferentiableArgNames)
    if (withDerivatives.count(n))
      return Failure{loc(at), "derivatives definition for " + specification_ + " have overlapped non_differentiable and "
                              "differentiable variables: {'" + n + "'}"};
  for (const Binding& b : args)
    if (withDerivatives.count(b.name)) info.argsWithDerivatives.push_back(b);
  if (auto failure = postprocessForward(f, info, allArgNames, loc(at))) return failure;
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

std::optional<Failure> Loader::entry(const YamlNode& e, LoadedDerivatives& out) {
  if (!e.isMap()) return Failure{loc(e), "a derivatives.yaml entry must be a mapping, not " + support::describeNode(e)};
  std::set<std::string> seenKeys;
  for (const auto& [key, value] : e.entries())
    if (!seenKeys.insert(key.text()).second)
      return Failure{loc(key), "Found a duplicate key in the yaml. key=" + key.text()};
  const YamlNode& nameNode = e["name"];
  if (!nameNode.isScalar()) return Failure{loc(e), "the entry has no 'name: SCHEMA'"};
  specification_ = nameNode.text();
  const SourceLoc at = loc(nameNode);
  const std::optional<std::string> defnName = splitName(specification_);
  if (!defnName) return Failure{at, "Unsupported function schema: " + specification_};
  defnName_ = *defnName;

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
      conditions = strings;
      outputDifferentiability_ = std::vector<bool>{true};
    } else if (!bools.empty()) {
      outputDifferentiability_ = bools;
    } else {
      outputDifferentiability_ = std::vector<bool>();  // an empty list: every output differentiable
    }
  }

  const auto found = bySchema_.find(specification_);
  if (found == bySchema_.end()) {
    std::vector<std::string> available;
    for (const NativeFunction* f : ops_.functions())
      if (cpp::name(f->func) == defnName_) available.push_back(f->func.str());
    return Failure{at, "could not find ATen function for schema: " + specification_ +
                           (available.empty() ? std::string() : " (available: " + support::join(available, "; ") + ")")};
  }
  const std::vector<const NativeFunction*>& functions = bySignature_.at(found->second->func.signature().str());
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
  for (const Binding& b : cppArguments(*canonical)) {
    if (b.name == "grad_input_mask")
      return Failure{at, "Schema for " + defnName_ + " has an argument named grad_input_mask, but this name would be "
                         "shadowed by our codegen. Please use a different name in native_functions.yaml."};
    if (b.name == "result")
      return Failure{at, "Schema for " + defnName_ + " has an argument named result, but this is only allowed for "
                         "outputs.Please use a different name in native_functions.yaml."};
  }

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
    if (auto failure = setUp(*canonical, *defn, nameNode, info)) return failure;
    for (const Derivative& d : info.derivatives) info.usedNamedGradients.insert(d.namedGradients.begin(), d.namedGradients.end());
    if (!info.argsWithDerivatives.empty()) {
      std::string prefix = createOpPrefix(defnName_);
      if (key != "Default") prefix += key;
      info.op = prefix + std::to_string(opCounter_[prefix]++);
    }
    std::set<std::string> seenIn, seenOut;
    for (const Derivative& d : info.derivatives) dedupInto(info.allSavedInputs, d.savedInputs, seenIn);
    for (const Derivative& d : info.derivatives) dedupInto(info.allSavedOutputs, d.savedOutputs, seenOut);
    result.byKey.emplace_back(key, std::move(info));
  }
  const std::string schema = canonical->func.str();
  if (const auto it = entryIndex_.find(schema); it != entryIndex_.end()) {
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
    if (!copy.byKey.empty() && !index.count(lastCopy->func.str())) {
      copy.canonical = lastCopy;
      added.push_back(std::move(copy));
    }
  }
  for (DerivativesEntry& e : added) {
    const std::string schema = e.canonical->func.str();
    if (const auto it = index.find(schema); it != index.end()) {
      out.entries[it->second] = std::move(e);
    } else {
      index[schema] = out.entries.size();
      out.entries.push_back(std::move(e));
    }
  }
}

std::optional<Failure> Loader::load(const YamlNode& doc, LoadedDerivatives& out) {
  for (const model::FunctionOrViewGroup& item : ops_.groupedByView()) {
    std::vector<const NativeFunction*> fs;
    if (const auto* f = std::get_if<const NativeFunction*>(&item)) fs = {*f};
    else fs = std::get<model::NativeFunctionsViewGroup>(item).functions(true);
    for (const NativeFunction* f : fs) {
      bySignature_[f->func.signature().str()].push_back(f);
      bySchema_.emplace(f->func.str(), f);
    }
  }
  if (!doc.isSequence()) return Failure{loc(doc), "derivatives.yaml must be a list of entries, not " + support::describeNode(doc)};
  for (const YamlNode& e : doc.items())
    if (auto failure = entry(e, out)) return failure;
  addViewCopyDerivatives(out, ops_, entryIndex_);
  return std::nullopt;
}

}  // namespace

namespace {

// --- match_differentiability_info -------------------------------------------------------------

bool isForeach(const NativeFunction& f) { return f.func.name.name.base.starts_with("_foreach_"); }

bool hasTag(const NativeFunction& f, std::string_view tag) { return f.tags.count(std::string(tag)) != 0; }

// The infos of functional (or not) schemas by signature without defaults, in dict order.
class InfoBySignature {
 public:
  struct Item {
    model::FunctionSchema schema;
    const DerivativesEntry* entry;
  };
  void put(model::FunctionSchema key, const DerivativesEntry* entry) {
    const std::string k = key.str();
    if (const auto it = index_.find(k); it != index_.end()) {
      items_[it->second].entry = entry;
      return;
    }
    index_.emplace(k, items_.size());
    items_.push_back({std::move(key), entry});
  }
  const DerivativesEntry* get(const model::FunctionSchema& key) const {
    const auto it = index_.find(key.str());
    return it == index_.end() ? nullptr : items_[it->second].entry;
  }
  const std::vector<Item>& items() const { return items_; }

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, std::size_t> index_;
};

const DifferentiabilityInfo* infoFor(const DerivativesEntry& e, std::string_view key) {
  for (const auto& [k, info] : e.byKey)
    if (k == key) return &info;
  return nullptr;
}

bool isReferenceForForeach(const NativeFunction& f, const model::FunctionSchema& schema) {
  static const std::set<std::string> kSkipArgumentLenCheck = {
      "_foreach_add.Scalar",      "_foreach_add_.Scalar", "_foreach_add.ScalarList", "_foreach_add_.ScalarList",
      "_foreach_sub.Scalar",      "_foreach_sub_.Scalar", "_foreach_sub.ScalarList", "_foreach_sub_.ScalarList"};
  const std::string& base = f.func.name.name.base;
  const std::string name = f.func.name.str();
  const std::size_t cut = base.rfind("_foreach_");
  if ((cut == std::string::npos ? base : base.substr(cut + 9)) != schema.name.name.base) return false;
  if (schema.name.name.inplace && name != "_foreach_zero_") return false;
  const std::vector<const model::Argument*> args = f.func.arguments.flatNonOut(), refs = schema.arguments.flatNonOut();
  if (!kSkipArgumentLenCheck.count(name) && args.size() != refs.size()) return false;
  for (std::size_t i = 0; i < std::min(args.size(), refs.size()); ++i) {
    const model::Type& t = args[i]->type;
    const bool hasElem = t.isList() || t.isOptional();
    if (!(refs[i]->type == t || (hasElem && refs[i]->type == t.elem()))) return false;
  }
  return true;
}

struct ForeachResult {
  const DerivativesEntry* existing = nullptr;  // an in-place foreach function's reference entry
  std::optional<DifferentiabilityInfo> generated;
};

// torchgen's gen_foreach_derivativeinfo for the key Default.
std::optional<std::string> genForeachInfo(const NativeFunction& f, const InfoBySignature& functional,
                                          const InfoBySignature& nonFunctional, ForeachResult& out) {
  const DifferentiabilityInfo* ref = nullptr;
  const model::FunctionSchema* refSchema = nullptr;
  const DerivativesEntry* refEntry = nullptr;
  const auto search = [&](const InfoBySignature& infos) -> std::optional<std::string> {
    for (const InfoBySignature::Item& item : infos.items()) {
      if (!isReferenceForForeach(f, item.schema)) continue;
      ref = infoFor(*item.entry, "Default");
      if (ref == nullptr) return "the derivatives of " + item.schema.str() + ", which " + f.func.name.str() +
                                 " uses, have no Default formulas";
      refSchema = &item.schema;
      refEntry = item.entry;
      return std::nullopt;
    }
    return std::nullopt;
  };
  if (auto problem = search(functional)) return problem;
  if (ref == nullptr && f.func.kind() == SchemaKind::Inplace && f.func.name.str() == "_foreach_zero_")
    if (auto problem = search(nonFunctional)) return problem;
  if (ref == nullptr) return std::nullopt;
  if (f.func.kind() == SchemaKind::Inplace) {
    out.existing = refEntry;
    return std::nullopt;
  }
  const std::vector<const model::Argument*> args = f.func.arguments.flatNonOut(), refArgs = refSchema->arguments.flatNonOut();
  std::map<std::string, std::string> refToForeach;
  std::map<std::string, const model::Argument*> byName;
  for (std::size_t i = 0; i < std::min(args.size(), refArgs.size()); ++i) {
    refToForeach[refArgs[i]->name] = args[i]->name;
    byName[args[i]->name] = args[i];
  }
  const Options options = Options::of(f);
  DifferentiabilityInfo info;
  std::vector<std::string> allVarNames;
  std::vector<SavedAttribute> allSavedInputs, allSavedOutputs;
  for (const Derivative& d : ref->derivatives) {
    std::string formula = support::replaceAll(support::replaceAll(d.formula, "grad", "grads[i]"), "result", "result[i]");
    Derivative m;
    for (const SavedAttribute& input : d.savedInputs) {
      const std::string jitName = input.expr.substr(0, input.expr.find('.'));
      const auto mapped = refToForeach.find(jitName);
      if (mapped == refToForeach.end())
        return "the derivative of " + f.func.name.str() + " saves '" + input.expr + "', which names no argument";
      const model::Argument& arg = *byName.at(mapped->second);
      const std::string mappedExpr = arg.type.isList() ? mapped->second + "[i]" : mapped->second;
      formula = support::replaceAll(formula, input.nctype.name.str(), support::replaceAll(input.expr, jitName, mappedExpr));
      const NamedCType nctype = cpp::argumentType(arg, mapped->second, options);
      m.savedInputs.push_back({NamedCType{nctype.name, nctype.type.removeConstRef()}, mapped->second});
    }
    for (const SavedAttribute& output : d.savedOutputs) {
      if (output.nctype.name.str() != "result") return "the derivative of " + f.func.name.str() + " saves an output other than result";
      m.savedOutputs.push_back({NamedCType{std::string("result"), CType::base(tensorListT)}, "result"});
    }
    for (const std::string& v : d.varNames) {
      const auto mapped = refToForeach.find(v);
      if (mapped == refToForeach.end()) return "the derivative of " + f.func.name.str() + " is for '" + v + "', which is no argument";
      m.varNames.push_back(mapped->second);
    }
    allVarNames.insert(allVarNames.end(), m.varNames.begin(), m.varNames.end());
    allSavedInputs.insert(allSavedInputs.end(), m.savedInputs.begin(), m.savedInputs.end());
    allSavedOutputs.insert(allSavedOutputs.end(), m.savedOutputs.begin(), m.savedOutputs.end());
    m.formula = formula;
    m.originalFormula = d.formula;
    info.derivatives.push_back(std::move(m));
  }
  for (const model::Argument* arg : args)
    if (contains(allVarNames, arg->name)) {
      Binding b{arg->name, cpp::argumentType(*arg, arg->name, options), arg, std::nullopt};
      info.argsWithDerivatives.push_back(std::move(b));
    }
  for (const ForwardDerivative& fw : ref->forwardDerivatives) {
    ForwardDerivative m = fw;
    std::string formula = fw.formula;
    if (formula.find("result") != std::string::npos) formula = support::replaceAll(fw.formula, "result", "result[i]");
    const std::vector<const model::Argument*> ownRefArgs = ref->func->func.arguments.flatNonOut();
    for (std::size_t i = 0; i < std::min(args.size(), ownRefArgs.size()); ++i) {
      const model::Argument& a = *args[i];
      const std::string& refName = ownRefArgs[i]->name;
      if (a.type.isList() && !a.type.isTensorLike()) {
        formula = support::replaceAll(formula, refName, a.name + "[i]");
      } else if (a.type.isTensorLike()) {
        static const std::set<std::string> kTensorOverload = {"_foreach_add.Tensor", "_foreach_mul.Tensor", "_foreach_div.Tensor"};
        if (!(a.type.isList() || (a.type.isBase(model::BaseTy::Tensor) && kTensorOverload.count(f.func.name.str()))))
          return f.func.name.str() + ", " + a.type.str();
        for (const char* suffix : {"_p", "_t"})
          if (formula.find(refName + suffix) != std::string::npos)
            formula = support::replaceAll(formula, refName + suffix, a.name + suffix);
      } else if (a.name != refName) {
        formula = support::replaceAll(formula, refName, a.name);
      }
      for (std::size_t k = 0; k < m.varNames.size(); ++k)
        if (m.varNames[k] == refName) {
          m.varNames[k] = a.name;
          m.varTypes[k] = a.type;
        }
      for (std::string& n : m.requiredInputsFwGrad)
        if (n == refName) n = a.name;
      for (std::string& n : m.requiredInputsPrimal)
        if (n == refName) n = a.name;
    }
    m.formula = formula;
    info.forwardDerivatives.push_back(std::move(m));
  }
  info.name = f.func.name.name.base;
  info.func = &f;
  info.op = "Foreach" + ref->op.value_or("None") + f.func.name.overloadName;
  // (torchgen keeps them in a Python set; they are emitted sorted by name)
  std::set<std::string> seenIn, seenOut;
  const auto key = [](const SavedAttribute& a) { return a.name() + "\n" + a.nctype.cppType() + "\n" + a.expr; };
  for (const SavedAttribute& a : allSavedInputs)
    if (seenIn.insert(key(a)).second) info.allSavedInputs.push_back(a);
  for (const SavedAttribute& a : allSavedOutputs)
    if (seenOut.insert(key(a)).second) info.allSavedOutputs.push_back(a);
  info.loc = ref->loc;
  out.generated = std::move(info);
  return std::nullopt;
}

// Python's re.fullmatch(r"self_t.([\w]*)\((.*)\)", formula): the method and what is between the parentheses.
bool singleMethodOnSelfT(const std::string& formula, std::string& op, std::string& between) {
  if (formula.size() < 8 || !formula.starts_with("self_t") || formula[6] == '\n' || formula.back() != ')') return false;
  std::size_t i = 7;
  while (i < formula.size() && isWord(formula[i])) ++i;
  if (i >= formula.size() || formula[i] != '(') return false;
  const std::string inner = formula.substr(i + 1, formula.size() - i - 2);
  if (inner.find('\n') != std::string::npos) return false;
  op = formula.substr(7, i - 7);
  between = inner;
  return true;
}

// The forward formulas an in-place function uses (torchgen's rewrite in match_differentiability_info).
std::optional<std::string> inplaceForward(const NativeFunction& f, const DifferentiabilityInfo& info, bool exact,
                                          std::vector<ForwardDerivative>& out) {
  if (info.forwardDerivatives.size() != 1)
    return "Only single output inplace should exist, got " + std::to_string(info.forwardDerivatives.size());
  const ForwardDerivative& fw = info.forwardDerivatives[0];
  std::string formula = fw.formula;
  if (pyIdentSearch(formula, "self_p")) {
    if (exact)
      return "The formula for \"" + f.func.name.str() + "\" is using the original value of self that is being modified "
             "inplace. This would lead to wrong forward gradients. Please use \"result\" in the formula only.";
    formula = pyIdentSub(formula, "self_p", "original_self_p");
    formula = pyIdentSub(formula, "self_t", "original_self_t");
  }
  formula = pyIdentSub(formula, "result", "self_p");
  std::vector<std::string> primals = fw.requiredInputsPrimal;
  if (pyIdentSearch(formula, "self_p")) primals.push_back("self");
  if (!exact) {
    std::string op, between;
    bool direct = false;
    if (singleMethodOnSelfT(formula, op, between)) {
      int level = 1;
      bool nested = true;
      for (char ch : between) {
        if (ch == ')' && --level == 0) {
          nested = false;
          break;
        }
        if (ch == '(') ++level;
      }
      direct = nested && op == info.name;
    }
    formula = direct ? "self_t_raw.defined() ? self_t_raw." + op + "_(" + between + ") : " + formula
                     : "self_t_raw.defined() ? self_t_raw.copy_(" + formula + ") : " + formula;
  }
  ForwardDerivative m;
  m.formula = formula;
  m.varNames = {"self"};
  m.varTypes = fw.varTypes;
  m.requiredInputsFwGrad = fw.requiredInputsFwGrad;
  m.requiredInputsFwGradFromSet = fw.requiredInputsFwGradFromSet;
  m.requiredInputsPrimal = primals;
  m.requiredInputsPrimalFromSet = fw.requiredInputsPrimalFromSet;
  m.requiredOriginalSelfValue = pyIdentSearch(formula, "original_self_p") || pyIdentSearch(formula, "original_self_t");
  m.isReusingOutplaceFormula = !exact;
  out = {std::move(m)};
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<FunctionWithInfo>> matchDifferentiabilityInfo(const std::vector<const NativeFunction*>& functions,
                                                                        LoadedDerivatives& derivatives,
                                                                        support::Diagnostics& diags) {
  InfoBySignature functional, nonFunctional;
  std::unordered_map<std::string, const DerivativesEntry*> bySchema;
  for (const DerivativesEntry& e : derivatives.entries) {
    bySchema[e.canonical->func.str()] = &e;
    (e.canonical->func.kind() == SchemaKind::Functional ? functional : nonFunctional)
        .put(e.canonical->func.signature({.stripDefault = true}), &e);
  }
  std::vector<FunctionWithInfo> result;
  for (const NativeFunction* f : functions) {
    const DerivativesEntry* entry = nullptr;
    const DifferentiabilityInfo* defaultOnly = nullptr;
    bool exact = false;
    const model::FunctionSchema sig = f->func.signature({.stripDefault = true});
    if (hasTag(*f, "generated") && f->func.kind() == SchemaKind::Out) {
      // generated out= variants get no formulas
    } else if (const auto it = bySchema.find(f->func.str()); it != bySchema.end()) {
      entry = it->second;
      exact = true;
    } else if (const DerivativesEntry* e = functional.get(sig); e != nullptr && !isForeach(*f)) {
      entry = e;
    } else if (const DerivativesEntry* e2 = hasTag(*f, "generated") ? nonFunctional.get(sig) : nullptr) {
      for (const auto& [key, info] : e2->byKey)
        for (const SavedAttribute& input : info.allSavedInputs)
          if (input.nctype.name.str().find("self") != std::string::npos) {
            model::reportError(diags, *f, "Attempted to convert a derivative formula for a mutable operator to be used "
                                          "automatically by its functional variant (\"" + f->func.str() + "\"). This is "
                                          "not currently supported (we'd need to fix up the formula in the codegen).");
            return std::nullopt;
          }
      entry = e2;
    } else if (isForeach(*f)) {
      ForeachResult foreach;
      if (std::optional<std::string> problem = genForeachInfo(*f, functional, nonFunctional, foreach)) {
        model::reportError(diags, *f, *problem);
        return std::nullopt;
      }
      if (foreach.generated) {
        derivatives.entries.push_back({f, {{"Default", std::move(*foreach.generated)}}});
        entry = &derivatives.entries.back();
        bySchema[f->func.str()] = entry;
        functional.put(f->func, entry);
        exact = true;
      } else if (foreach.existing != nullptr) {
        defaultOnly = infoFor(*foreach.existing, "Default");  // an in-place foreach function: its reference's
      }
    }
    FunctionWithInfo fi{f, {}, {}};
    if (entry != nullptr)
      for (const auto& [key, info] : entry->byKey) fi.info.emplace_back(key, &info);
    if (defaultOnly != nullptr) fi.info.emplace_back("Default", defaultOnly);
    if (f->func.kind() == SchemaKind::Inplace)
      for (const auto& [key, info] : fi.info)
        for (const Derivative& d : info->derivatives)
          if (contains(d.varNames, "self"))
            for (const SavedAttribute& input : d.savedInputs)
              if (input.expr.find("strides_or_error") != std::string::npos) {
                model::reportError(diags, *f, "Calling '.strides()' in the 'self' derivative formula of an in-place "
                                              "function is not supported: " + f->func.str());
                return std::nullopt;
              }
    for (const auto& [key, info] : fi.info) {
      std::vector<ForwardDerivative> fws = info->forwardDerivatives;
      if (!fws.empty() && f->func.kind() == SchemaKind::Inplace)
        if (std::optional<std::string> problem = inplaceForward(*f, *info, exact, fws)) {
          model::reportError(diags, *f, *problem);
          return std::nullopt;
        }
      fi.fwDerivatives.emplace_back(key, std::move(fws));
    }
    result.push_back(std::move(fi));
  }
  return result;
}

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
  LoadedDerivatives out;
  if (std::optional<Failure> failure = Loader(path, ops).load(*doc, out)) {
    diags.error(failure->loc, failure->message);
    return std::nullopt;
  }
  return out;
}

}  // namespace opgen::api::autograd
