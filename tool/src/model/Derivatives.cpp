#include "model/Derivatives.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "support/Strings.h"
#include "support/Yaml.h"

namespace opgen::model {

namespace {

using support::SourceLoc;
using support::YamlNode;

constexpr std::string_view kNonDifferentiable = "non_differentiable";
constexpr std::string_view kAutoElementWise = "auto_element_wise";
constexpr std::string_view kAutoLinear = "auto_linear";
constexpr std::string_view kGradInputMask = "grad_input_mask";

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where `name` occurs as a whole identifier in `text`, from `from`; npos when it does not.
std::size_t findIdentifier(std::string_view text, std::string_view name, std::size_t from = 0) {
  for (std::size_t at = text.find(name, from); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool startOk = at == 0 || !isWordChar(text[at - 1]);
    const std::size_t end = at + name.size();
    if (startOk && (end == text.size() || !isWordChar(text[end]))) return at;
  }
  return std::string_view::npos;
}

// The i of every `grads[i]` (torchgen's GRAD_INDEX_REGEX).
std::vector<std::size_t> gradIndices(std::string_view formula) {
  std::vector<std::size_t> out;
  constexpr std::string_view kGrads = "grads[";
  for (std::size_t at = formula.find(kGrads); at != std::string_view::npos; at = formula.find(kGrads, at + 1)) {
    if (at > 0 && isWordChar(formula[at - 1])) continue;
    std::size_t end = at + kGrads.size();
    std::size_t digits = end;
    while (digits < formula.size() && std::isdigit(static_cast<unsigned char>(formula[digits]))) ++digits;
    if (digits > end && digits < formula.size() && formula[digits] == ']')
      out.push_back(std::stoul(std::string(formula.substr(end, digits - end))));
  }
  return out;
}

std::size_t countIdentifier(std::string_view text, std::string_view name) {
  std::size_t n = 0;
  for (std::size_t at = findIdentifier(text, name); at != std::string_view::npos; at = findIdentifier(text, name, at + 1)) ++n;
  return n;
}

// Every identifier of `text` that starts with `prefix` (e.g. the grad_NAME it uses).
std::vector<std::string> identifiersStartingWith(std::string_view text, std::string_view prefix) {
  std::vector<std::string> out;
  for (std::size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
    if (at > 0 && isWordChar(text[at - 1])) continue;
    std::size_t end = at;
    while (end < text.size() && isWordChar(text[end])) ++end;
    out.emplace_back(text.substr(at, end - at));
  }
  return out;
}

// torchgen's cpp.return_names: how formulas name the returns.
std::vector<std::string> returnNamesOf(const FunctionSchema& func) {
  std::vector<std::string> names;
  const std::size_t n = func.returns.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Return& r = func.returns[i];
    if (func.kind() == SchemaKind::Inplace) names.emplace_back("result");
    else if (func.isOutFn()) names.push_back(func.arguments.out[i].name);
    else if (r.name) names.push_back(*r.name);
    else names.push_back(n == 1 ? "result" : "result" + std::to_string(i));
  }
  return names;
}

std::vector<std::string> splitNames(std::string_view raw) {
  std::vector<std::string> names;
  for (std::string_view part : support::split(raw, ",")) names.emplace_back(support::trim(part));
  return names;
}

// The types an argument with a gradient may have (torchgen's is_differentiable, without Tensor?[]).
bool isDifferentiableType(const Type& t) {
  return t.isBase(BaseTy::Tensor) || ((t.isOptional() || t.isList()) && t.elem().isBase(BaseTy::Tensor));
}

bool contains(const std::vector<std::string>& xs, std::string_view x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

// Reads one entry; reports its errors.
class EntryReader {
 public:
  EntryReader(const std::string& path, const YamlNode& entry, const Operators& ops, const std::string& ns,
              support::Diagnostics& diags)
      : path_(path), entry_(entry), ops_(ops), ns_(ns), diags_(diags) {}

  std::optional<Derivative> read();

 private:
  SourceLoc loc(const YamlNode& n) const { return support::locOf(n, path_); }
  void error(const YamlNode& at, std::string message) { errorAt(loc(at), std::move(message)); }
  void errorAt(SourceLoc at, std::string message) {
    diags_.error(std::move(at), name_.empty() ? std::move(message) : support::aboutOperator(name_, message));
    ok_ = false;
  }
  const NativeFunction* findFunction(const YamlNode& nameNode);
  void readKey(const YamlNode& key, const YamlNode& value);
  void readOutputDifferentiability(const YamlNode& value);
  void readView();
  void checkCoverage();
  void checkGradUsage();
  void expandForward();
  void checkForwardOutputs();
  void computeSaved();

  const std::string& path_;
  const YamlNode& entry_;
  const Operators& ops_;
  const std::string& ns_;
  support::Diagnostics& diags_;
  bool ok_ = true;
  std::string name_;  // the operator, for messages
  Derivative d_;
  std::vector<std::string> argNames_;
  std::map<std::string, const YamlNode*> formulaNodes_;  // first forward output -> its formula's node (messages)
  std::map<std::string, const YamlNode*> keyNodes_;      // first forward output -> its key's node
};

const NativeFunction* EntryReader::findFunction(const YamlNode& nameNode) {
  std::string_view text = nameNode.text();
  int offset = 0;
  const std::size_t paren = text.find('(');
  const std::size_t colons = text.find("::");
  if (colons != std::string_view::npos && colons < paren) {
    const std::string_view given = text.substr(0, colons);
    if (given != ns_) {
      error(nameNode, "operator '" + std::string(text.substr(0, paren)) + "' is not in the library's namespace '" + ns_ + "'");
      return nullptr;
    }
    offset = static_cast<int>(colons + 2);
    text.remove_prefix(colons + 2);
  }
  Expected<FunctionSchema> schema = FunctionSchema::parse(text);
  if (!schema) {
    diags_.error(loc(nameNode).shifted(offset + std::max(schema.error().offset, 0)), schema.error().message);
    ok_ = false;
    return nullptr;
  }
  const std::string wanted = schema->str();
  std::vector<std::string> sameName;
  for (const NativeFunction* f : ops_.functions()) {
    if (f->schemaString == wanted) return f;
    if (f->func.name.name.base == schema->name.name.base) sameName.push_back(f->schemaString);
  }
  std::string message = "no operator of the library has the schema '" + wanted + "'";
  if (!sameName.empty()) message += " (the library declares: " + support::join(sameName, "; ") + ")";
  error(nameNode, message);
  return nullptr;
}

void EntryReader::readOutputDifferentiability(const YamlNode& value) {
  const std::size_t returns = d_.function->func.returns.size();
  if (!value.isSequence() || value.size() > returns) {
    error(value, "output_differentiability must be a list of at most " + std::to_string(returns) + " bools (one per return)");
    return;
  }
  d_.outputDifferentiability.assign(returns, false);  // torchgen: returns past the list are not differentiable
  for (std::size_t i = 0; i < value.size(); ++i) {
    const YamlNode& item = value.items()[i];
    if (support::scalarKind(item) != support::ScalarKind::Bool) {
      error(item, "output_differentiability: expected True or False, not " + support::describeNode(item));
      return;
    }
    d_.outputDifferentiability[i] = support::scalarBool(item);
  }
}

void EntryReader::readKey(const YamlNode& key, const YamlNode& value) {
  if (key.text() == "output_differentiability") return readOutputDifferentiability(value);
  if (key.text() == "dispatch") return error(key, "per-dispatch-key formulas (dispatch:) are not supported yet");
  if (!value.isScalar() || value.text().empty()) return error(value, "'" + key.text() + "': expected a formula, not " + support::describeNode(value));
  const std::vector<std::string> names = splitNames(key.text());
  const std::string formula(support::trim(value.text()));
  if (contains(argNames_, names.front())) {
    for (const std::string& n : names) {
      if (!contains(argNames_, n)) return error(key, "'" + n + "' is not an argument of '" + name_ + "'");
      if (contains(d_.differentiableInputs, n) || contains(d_.nonDifferentiable, n))
        return error(key, "argument '" + n + "' has two formulas");
    }
    std::string lower = formula;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower == kNonDifferentiable) {
      for (const std::string& n : names) d_.nonDifferentiable.push_back(n);
      return;
    }
    for (const std::string& n : names) {
      const Type& type = d_.argument(n).type;
      if (!isDifferentiableType(type))
        return error(key, "argument '" + n + "' has type " + type.str() + ": " +
                              (type.isTensorLike() ? "gradients of lists of optional tensors are not supported yet"
                                                   : "only tensors (Tensor, Tensor?, Tensor[]) have gradients"));
      d_.differentiableInputs.push_back(n);
    }
    d_.backward.push_back({names, formula, loc(value)});
    return;
  }
  // Not an argument: the forward-mode formula of a return (torchgen's is_forward_derivative_definition).
  for (const std::string& n : names)
    if (!contains(d_.returnNames, n))
      return error(key, "'" + n + "' is neither an argument nor a return of '" + name_ + "' (returns: " +
                            support::join(d_.returnNames, ", ") + ")");
  for (const ForwardFormula& other : d_.forward)
    for (const std::string& n : names)
      if (contains(other.outputs, n)) return error(key, "return '" + n + "' has two forward formulas");
  for (std::size_t i = 0; i < names.size(); ++i)
    if (std::find(names.begin() + static_cast<std::ptrdiff_t>(i) + 1, names.end(), names[i]) != names.end())
      return error(key, "return '" + names[i] + "' is named twice");
  formulaNodes_[names.front()] = &value;
  keyNodes_[names.front()] = &key;
  ForwardFormula fw;
  fw.outputs = names;
  fw.formula = formula;
  fw.loc = loc(value);
  d_.forward.push_back(std::move(fw));
}

// torchgen's view operators: a return aliasing an argument without writing it.
void EntryReader::readView() {
  const FunctionSchema& func = d_.function->func;
  const std::vector<std::optional<std::string>> aliased = func.aliasedReturnNames();
  for (std::size_t i = 0; i < func.returns.size(); ++i) {
    const Return& r = func.returns[i];
    if (!r.annotation || r.annotation->isWrite || !aliased[i]) continue;
    if (func.returns.size() != 1 || !r.type.isBase(BaseTy::Tensor))
      return error(entry_["name"], "view operators with several outputs or a list of views are not supported yet: only "
                                   "one Tensor(a) return");
    d_.viewOf = *aliased[i];
  }
}

void EntryReader::checkCoverage() {
  for (const std::string& n : argNames_) {
    const Argument& a = d_.argument(n);
    if (!a.type.isTensorLike() || contains(d_.differentiableInputs, n) || contains(d_.nonDifferentiable, n)) continue;
    if (a.type.isBase(BaseTy::Tensor)) {
      error(entry_["name"], "tensor argument '" + n + "' has no formula: give one, not_implemented(\"" + name_ +
                                "\") or non_differentiable");
    } else {
      // torchgen's rule for the other tensor-like arguments: refused at run time when they require grad.
      d_.checkedNoGrad.push_back(n);
    }
  }
}

void EntryReader::checkGradUsage() {
  const std::size_t returns = d_.function->func.returns.size();
  std::vector<std::string> namedGradients;
  for (std::size_t i = 0; i < returns; ++i) {
    const Return& r = d_.function->func.returns[i];
    if (d_.outputDifferentiability[i] && r.name && r.type.isTensorLike()) namedGradients.push_back("grad_" + *r.name);
  }
  bool usesGrad = false, usesNamed = false;
  std::size_t gradsUses = 0, indexedUses = 0;
  std::set<std::size_t> indices;
  for (const BackwardFormula& b : d_.backward) {
    usesGrad = usesGrad || usesIdentifier(b.formula, "grad");
    gradsUses += countIdentifier(b.formula, "grads");
    for (std::size_t i : gradIndices(b.formula)) {
      ++indexedUses;
      indices.insert(i);
      if (i >= returns)
        errorAt(b.loc, "the formula uses grads[" + std::to_string(i) + "], but '" + name_ + "' returns only " +
                         std::to_string(returns) + " output(s)");
    }
    for (const std::string& id : identifiersStartingWith(b.formula, "grad_")) {
      if (id == kGradInputMask) continue;
      if (contains(namedGradients, id)) {
        usesNamed = true;
        continue;
      }
      errorAt(b.loc, "the formula names an unknown variable '" + id + "'" +
                       (namedGradients.empty() ? std::string(" (no return has a name)")
                                               : " (the named gradients are: " + support::join(namedGradients, ", ") + ")"));
    }
  }
  const YamlNode& at = entry_["name"];
  if (usesGrad && gradsUses > 0) error(at, "the formulas mix 'grad' and 'grads': write grads[0] instead of grad");
  if (gradsUses == indexedUses && indexedUses > 0 && indices == std::set<std::size_t>{0})
    error(at, "the formulas use only grads[0]: when the first output is the only differentiable one, write grad");
  if (usesNamed && (usesGrad || gradsUses > 0))
    error(at, "the formulas mix grad_NAME with 'grad' or 'grads[i]': use one way of naming gradients");
}

// torchgen's postprocess_forward_derivatives: auto_element_wise and auto_linear, the inputs a forward
// formula needs, and the base name of a differentiable input (ambiguous) refused.
void EntryReader::expandForward() {
  for (ForwardFormula& fw : d_.forward) {
    const YamlNode& node = *formulaNodes_[fw.outputs.front()];
    if (fw.formula == kAutoElementWise) {
      if (d_.isInplace())
        return error(node, "auto_element_wise cannot be used for an in-place operator: write a formula that modifies "
                           "self_t in place (e.g. self_t.mul_(...))");
      if (d_.differentiableInputs.size() != 1 || d_.forward.size() != 1 || fw.outputs.size() != 1 || d_.backward.size() != 1)
        return error(node, "auto_element_wise needs a single differentiable input with its backward formula and a "
                           "single forward formula");
      const std::string& input = d_.differentiableInputs.front();
      if (d_.argument(input).type.isList())
        return error(node, "auto_element_wise needs a tensor input, and '" + input + "' is a tensor list");
      std::string f = replaceIdentifier(d_.backward.front().formula, "grad", input + "_t.conj()");
      f = replaceIdentifier(f, input, input + "_p");
      fw.formula = "(" + f + ").conj()";
    } else if (fw.formula == kAutoLinear) {
      if (d_.forward.size() != 1 || fw.outputs.size() != 1 || d_.differentiableInputs.empty())
        return error(node, "auto_linear needs a single forward formula of a single output and a differentiable input");
      std::vector<std::string> args;
      for (const std::string& n : argNames_) args.push_back(contains(d_.differentiableInputs, n) ? n + "_t" : n);
      // For an in-place operator, the operator itself applied to self_t: the tangent is modified in place.
      fw.formula = ns_ + "::_ops::" + d_.function->func.name.unambiguousName() + "::call(" + support::join(args, ", ") + ")";
    }
    if (d_.isInplace()) {
      // torchgen's rules for an in-place operator's own formula: SELF_p would be the modified value
      // taken for the original one; `result` is the value after the call.
      const std::string self = d_.function->func.arguments.mutableArgNames().front();
      if (usesIdentifier(fw.formula, self + "_p"))
        return error(node, "the forward formula uses " + self + "_p, the value of '" + self + "' that the operator "
                               "modifies in place, which would give wrong tangents: write result for its value after the "
                               "call (or original_self_p for the one before)");
      fw.formula = replaceIdentifier(fw.formula, "result", self + "_p");
    }
    for (const std::string& n : argNames_) {
      const bool differentiable = contains(d_.differentiableInputs, n);
      const bool list = d_.argument(n).type.isList();
      if (differentiable && usesIdentifier(fw.formula, n)) {
        // torchgen's rule: a formula handles a tensor list itself (its tangents are the tensors').
        if (!list)
          return error(node, "the forward formula uses '" + n + "', which is ambiguous: write " + n + "_p for its value and " +
                                 n + "_t for its tangent");
        fw.listInputs.push_back(n);
      }
      for (std::string_view suffix : {"_t", "_p"}) {
        if (!usesIdentifier(fw.formula, n + std::string(suffix))) continue;
        if (!differentiable)
          return error(node, "the forward formula names an unknown variable '" + n + std::string(suffix) +
                                 "' ('" + n + "' is not a differentiable input)");
        (suffix == "_t" ? fw.tangentInputs : fw.primalInputs).push_back(n);
      }
    }
    for (std::string_view name : {"original_self_p", "original_self_t"}) {
      if (!usesIdentifier(fw.formula, name)) continue;
      if (!d_.isInplace() || !contains(argNames_, "self"))
        return error(node, "the forward formula names '" + std::string(name) +
                               "', which only the formulas of in-place operators modifying 'self' have");
      fw.usesOriginalSelf = true;
    }
    const bool anyTangent = std::any_of(fw.tangentInputs.begin(), fw.tangentInputs.end(), [&](const std::string& n) {
      return !d_.argument(n).type.isList();
    });
    const bool onlyAList = d_.differentiableInputs.size() == 1 && d_.argument(d_.differentiableInputs.front()).type.isList();
    if (!anyTangent && fw.listInputs.empty() && fw.tangentInputs.empty() && !onlyAList)
      return error(node, "the forward formula uses no input's tangent (NAME_t): it would run for no input (torchgen "
                         "allows that only for an operator whose single differentiable input is a tensor list)");
  }
  checkForwardOutputs();
}

// torchgen's rule: with forward formulas, every differentiable output has exactly one.
void EntryReader::checkForwardOutputs() {
  if (d_.forward.empty()) return;
  for (const ForwardFormula& fw : d_.forward)
    for (const std::string& name : fw.outputs)
      if (!d_.outputDifferentiability[d_.returnIndex(name)])
        return error(*keyNodes_[fw.outputs.front()],
                     "return '" + name + "' has a forward formula but is not differentiable (output_differentiability)");
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < d_.returnNames.size(); ++i) {
    const std::string& name = d_.returnNames[i];
    const bool given = std::any_of(d_.forward.begin(), d_.forward.end(), [&](const ForwardFormula& fw) { return contains(fw.outputs, name); });
    if (!given && d_.outputDifferentiability[i]) missing.push_back(name);
  }
  if (!missing.empty())
    error(entry_["name"], "the forward formulas give no tangent for the differentiable output(s) " + support::join(missing, ", ") +
                              ": give every differentiable output a forward formula, or none");
}

void EntryReader::computeSaved() {
  std::vector<std::string> inSchemaOrder;
  for (const std::string& n : argNames_)
    if (contains(d_.differentiableInputs, n)) inSchemaOrder.push_back(n);
  d_.differentiableInputs = std::move(inSchemaOrder);
  for (const std::string& n : argNames_)
    for (const BackwardFormula& b : d_.backward)
      if (usesIdentifier(b.formula, n)) {
        d_.savedInputs.push_back(n);
        break;
      }
  for (const std::string& n : d_.returnNames)
    for (const BackwardFormula& b : d_.backward)
      if (usesIdentifier(b.formula, n)) {
        d_.savedOutputs.push_back(n);
        break;
      }
}

std::optional<Derivative> EntryReader::read() {
  if (!entry_.isMap()) {
    error(entry_, "a derivatives.yaml entry must be a mapping with a 'name' key, not " + support::describeNode(entry_));
    return std::nullopt;
  }
  std::set<std::string> seen;
  for (const auto& [key, value] : entry_.entries())
    if (!seen.insert(key.text()).second) error(key, "duplicate key '" + key.text() + "'");
  const YamlNode& nameNode = entry_["name"];
  if (!nameNode.isScalar()) {
    error(entry_, "the entry has no 'name: SCHEMA'");
    return std::nullopt;
  }
  d_.function = findFunction(nameNode);
  if (d_.function == nullptr || !ok_) return std::nullopt;
  const FunctionSchema& func = d_.function->func;
  name_ = func.name.str();
  d_.loc = loc(entry_);
  if (func.isOutFn()) {
    // torchgen reads such an entry as its functional variant's: say so rather than guess.
    const FunctionSchema core = func.signature({.stripDefault = true});
    std::string functional;
    for (const NativeFunction* f : ops_.functions())
      if (f->func.kind() == SchemaKind::Functional && f->func.signature({.stripDefault = true}) == core) functional = f->schemaString;
    error(nameNode, functional.empty()
                        ? "an out= operator takes its autograd from its functional variant's entry, and it has none: "
                          "formulas for an out= operator alone are not supported"
                        : "an out= operator takes its autograd from its functional variant's entry: write the formulas "
                          "under 'name: " + functional + "'");
    return std::nullopt;
  }
  if (d_.function->hasCompositeImplicitAutogradKernel) {
    // The dispatcher prefers a CompositeImplicitAutograd kernel to an Autograd one: the formulas
    // would never run (torchgen refuses them too).
    error(nameNode, "the operator is CompositeImplicitAutograd (no dispatch:), so autograd differentiates its "
                    "kernel's ATen calls and formulas would never be used: give it a dispatch: entry (e.g. "
                    "CompositeExplicitAutograd) to use formulas");
    return std::nullopt;
  }
  func.arguments.anyOf([&](const Argument& a) {
    argNames_.push_back(a.name);
    return false;
  });
  for (std::string_view reserved : {std::string_view("result"), kGradInputMask})
    if (contains(argNames_, reserved))
      error(nameNode, "an argument is named '" + std::string(reserved) + "', a name formulas reserve: rename it in the ops.yaml");
  readView();
  d_.returnNames = returnNamesOf(func);
  d_.outputDifferentiability.assign(func.returns.size(), true);
  for (const auto& [key, value] : entry_.entries())
    if (key.text() != "name") readKey(key, value);
  if (!ok_) return std::nullopt;
  checkCoverage();
  checkGradUsage();
  expandForward();
  computeSaved();
  if (!ok_) return std::nullopt;
  return std::move(d_);
}

// The out= overloads that share f's signature (torchgen's match_differentiability_info) and reach an
// Autograd kernel (a CompositeImplicitAutograd one is differentiated through its kernel).
std::vector<const NativeFunction*> outVariantsOf(const NativeFunction& f, const Operators& ops) {
  std::vector<const NativeFunction*> out;
  const FunctionSchema core = f.func.signature({.stripDefault = true});
  for (const NativeFunction* g : ops.functions())
    if (g->func.kind() == SchemaKind::Out && !g->hasCompositeImplicitAutogradKernel &&
        g->func.signature({.stripDefault = true}) == core)
      out.push_back(g);
  return out;
}

// torchgen's rewrite of a functional operator's forward formula for its in-place overload: self's
// value and tangent before the call are original_self_p / original_self_t, the output's value is
// self_p (after the call), and the tangent of self is updated in place when it exists.
ForwardFormula inplaceForward(const ForwardFormula& functional, const std::string& result) {
  ForwardFormula fw = functional;
  std::string f = functional.formula;
  if (usesIdentifier(f, "self_p")) {
    f = replaceIdentifier(replaceIdentifier(f, "self_p", "original_self_p"), "self_t", "original_self_t");
    fw.usesOriginalSelf = true;
    fw.primalInputs.erase(std::remove(fw.primalInputs.begin(), fw.primalInputs.end(), "self"), fw.primalInputs.end());
  }
  if (usesIdentifier(f, result)) {
    f = replaceIdentifier(f, result, "self_p");
    if (std::find(fw.primalInputs.begin(), fw.primalInputs.end(), "self") == fw.primalInputs.end())
      fw.primalInputs.insert(fw.primalInputs.begin(), "self");
  }
  fw.formula = "self_t_raw.defined() ? self_t_raw.copy_(" + f + ") : " + f;
  fw.outputs = {"result"};
  return fw;
}

// The in-place overloads that share f's signature, have no entry of their own and reach an Autograd
// kernel; only for an operator whose first argument is `self` (torchgen's in-place rules name it).
std::vector<InplaceVariant> inplaceVariantsOf(const Derivative& d, const Operators& ops, const std::vector<Derivative>& entries) {
  std::vector<InplaceVariant> out;
  const FunctionSchema& func = d.function->func;
  if (func.returns.size() != 1 || !func.arguments.selfArg) return out;
  const FunctionSchema core = func.signature({.stripDefault = true});
  for (const NativeFunction* g : ops.functions()) {
    if (g->func.kind() != SchemaKind::Inplace || g->hasCompositeImplicitAutogradKernel ||
        g->func.signature({.stripDefault = true}) != core)
      continue;
    if (std::any_of(entries.begin(), entries.end(), [&](const Derivative& e) { return e.function == g; })) continue;
    InplaceVariant v{g, {}};
    for (const ForwardFormula& fw : d.forward) v.forward.push_back(inplaceForward(fw, d.returnNames.front()));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

std::string nodeNamePrefix(std::string_view name) {
  const std::string camel = support::titledParts(name);
  return support::replaceAll(camel + "Backward", "ForwardBackward", "Backward");
}

bool usesIdentifier(std::string_view text, std::string_view name) { return findIdentifier(text, name) != std::string_view::npos; }

std::string replaceIdentifier(std::string_view text, std::string_view name, std::string_view by) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = findIdentifier(text, name); at != std::string_view::npos; at = findIdentifier(text, name, from)) {
    out.append(text.substr(from, at - from)).append(by);
    from = at + name.size();
  }
  out.append(text.substr(from));
  return out;
}

const Argument& Derivative::argument(std::string_view name) const {
  const Argument* found = nullptr;
  function->func.arguments.anyOf([&](const Argument& a) {
    if (a.name == name) found = &a;
    return found != nullptr;
  });
  return *found;
}

std::size_t Derivative::returnIndex(std::string_view name) const {
  return static_cast<std::size_t>(std::find(returnNames.begin(), returnNames.end(), name) - returnNames.begin());
}

const Derivative* Derivatives::find(const NativeFunction& f) const {
  for (const Derivative& d : entries_)
    if (d.function == &f) return &d;
  return nullptr;
}

std::optional<Derivatives> loadDerivatives(const std::string& path, std::string_view content, const Operators& ops,
                                           const std::string& ns, support::Diagnostics& diags) {
  std::optional<YamlNode> doc = support::parseYaml(content, path, diags);
  if (!doc) return std::nullopt;
  if (doc->isNull()) return Derivatives();
  if (!doc->isSequence()) {
    diags.error(support::locOf(*doc, path), "derivatives.yaml must be a list of '- name: SCHEMA' entries, not " +
                                                support::describeNode(*doc));
    return std::nullopt;
  }
  const int errorsBefore = diags.errorCount();
  std::vector<Derivative> entries;
  std::map<std::string, int> counters;  // node name prefix -> the next number (torchgen's op_counter)
  for (const YamlNode& item : doc->items()) {
    std::optional<Derivative> d = EntryReader(path, item, ops, ns, diags).read();
    if (!d) continue;
    const auto first = std::find_if(entries.begin(), entries.end(), [&](const Derivative& e) { return e.function == d->function; });
    if (first != entries.end()) {
      diags.error(d->loc, support::aboutOperator(d->function->func.name.str(), "duplicate entry (the first is at line " +
                                                                              std::to_string(first->loc.line) + ")"));
      continue;
    }
    if (!d->differentiableInputs.empty()) {
      const std::string prefix = nodeNamePrefix(d->function->func.name.name.str());
      d->nodeName = prefix + std::to_string(counters[prefix]++);
    }
    // (an entry without differentiable inputs too: its overloads are then non-differentiable as well)
    if (d->function->func.kind() == SchemaKind::Functional) d->outVariants = outVariantsOf(*d->function, ops);
    entries.push_back(std::move(*d));
  }
  if (diags.errorCount() != errorsBefore) return std::nullopt;
  for (Derivative& d : entries)
    if (d.function->func.kind() == SchemaKind::Functional)
      d.inplaceVariants = inplaceVariantsOf(d, ops, entries);
  return Derivatives(std::move(entries));
}

}  // namespace opgen::model
