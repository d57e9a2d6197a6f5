// torchgen's match_differentiability_info (api/autograd.py): which infos each function uses, the
// in-place functions' forward formulas, and the foreach functions' infos derived from their per-tensor
// functions' (see DifferentiabilityInfo.h).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>

#include "api/Cpp.h"
#include "api/DifferentiabilityInfo.h"
#include "support/Strings.h"

namespace opgen::api::autograd {

namespace {

using model::NativeFunction;
using model::SchemaKind;

bool isWord(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }

bool contains(const std::vector<std::string>& xs, std::string_view x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

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
  const DerivativesEntry* get(const std::string& key) const {  // key: a schema's str()
    const auto it = index_.find(key);
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
  const std::string_view base = f.func.name.name.base;
  const std::size_t cut = base.rfind("_foreach_");
  if ((cut == std::string::npos ? base : base.substr(cut + 9)) != schema.name.name.base) return false;
  const std::string name = f.func.name.str();
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
    bySchema[e.canonical->schemaString] = &e;
    (e.canonical->func.kind() == SchemaKind::Functional ? functional : nonFunctional)
        .put(e.canonical->func.signature({.stripDefault = true}), &e);
  }
  // Base names of the infos' functions: a function of another base name has no info of the same
  // signature (a signature keeps the base name), and needs none computed.
  std::set<std::string> bases;
  for (const DerivativesEntry& e : derivatives.entries) bases.insert(e.canonical->func.name.name.base);
  std::vector<FunctionWithInfo> result;
  for (const NativeFunction* f : functions) {
    const DerivativesEntry* entry = nullptr;
    const DifferentiabilityInfo* defaultOnly = nullptr;
    bool exact = false;
    const bool sameBase = bases.count(f->func.name.name.base) != 0;
    std::optional<std::string> signature;  // without defaults; printed when an exact match fails
    const auto bySignature = [&](const InfoBySignature& infos) -> const DerivativesEntry* {
      if (!sameBase) return nullptr;
      if (!signature) signature = f->func.signature({.stripDefault = true}).str();
      return infos.get(*signature);
    };
    if (hasTag(*f, "generated") && f->func.kind() == SchemaKind::Out) {
      // generated out= variants get no formulas
    } else if (const auto it = bySchema.find(f->schemaString); it != bySchema.end()) {
      entry = it->second;
      exact = true;
    } else if (const DerivativesEntry* e = bySignature(functional); e != nullptr && !isForeach(*f)) {
      entry = e;
    } else if (const DerivativesEntry* e2 = hasTag(*f, "generated") ? bySignature(nonFunctional) : nullptr) {
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
        bySchema[f->schemaString] = entry;
        functional.put(f->func, entry);
        bases.insert(f->func.name.name.base);
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
          diags.error(info->loc, support::aboutOperator(f->func.name.str(), *problem));  // (the formula's problem)
          return std::nullopt;
        }
      fi.fwDerivatives.emplace_back(key, std::move(fws));
    }
    result.push_back(std::move(fi));
  }
  return result;
}

}  // namespace opgen::api::autograd
