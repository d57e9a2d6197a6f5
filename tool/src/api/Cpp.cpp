#include "api/Cpp.h"

#include <algorithm>
#include <array>
#include <utility>

namespace opgen::api::cpp {

using model::BaseTy;
using model::Type;

namespace {

// What a type that torchgen cannot translate becomes (checkSupported reports it).
constexpr BaseCppType kUnsupportedT{"", "__unsupported__"};

bool isBase(const Type& t, BaseTy b) { return t.isBase(b); }
bool isOptionalOf(const Type& t, BaseTy b) { return t.isOptional() && t.elem().isBase(b); }

bool isDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A schema string literal ('...') as a C++ one ("...").
std::string cppStringLiteral(std::string_view d) {
  std::string s = "\"";
  size_t i = 1;
  while (i + 1 < d.size()) {
    if (d[i] != '\\') {
      if (d[i] == '"') {
        s += "\\\"";
      } else {
        s += d[i];
      }
      i += 1;
    } else {
      if (d[i + 1] == '\'') {
        s += '\'';
      } else {
        s.append(d.substr(i, 2));
      }
      i += 2;
    }
  }
  return s + "\"";
}

constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kJitToCppDefault = {{
    {"False", "false"},
    {"True", "true"},
    {"Mean", "at::Reduction::Mean"},
    {"[]", "{}"},
    {"contiguous_format", "c10::MemoryFormat::Contiguous"},
    {"long", "at::kLong"},
}};

}  // namespace

std::string name(const model::FunctionSchema& func, bool faithfulNameForOutOverloads, bool symintOverload) {
  return model::cppName(func, faithfulNameForOutOverloads, symintOverload);
}

std::optional<NamedCType> valuetypeType(const Type& t, const ArgName& binds, bool symint) {
  switch (t.kind()) {
    case Type::Kind::Base: {
      BaseTy b = t.baseTy();
      if (b == BaseTy::Tensor || b == BaseTy::Scalar) return std::nullopt;
      if (b == BaseTy::SymInt) return NamedCType{binds, CType::base(symint ? SymIntT : longT)};
      return NamedCType{binds, CType::base(baseTypeToCpp(b).value_or(kUnsupportedT))};
    }
    case Type::Kind::Optional: {
      auto elem = valuetypeType(t.elem(), binds, symint);
      if (!elem) return std::nullopt;
      return NamedCType{binds, CType::optional(std::move(elem->type))};
    }
    case Type::Kind::List:
      if (t.elem().isBase(BaseTy::Bool)) {
        if (!t.size()) return NamedCType{binds, CType::base(kUnsupportedT)};
        return NamedCType{binds, CType::array(CType::base(boolT), *t.size())};
      }
      return std::nullopt;
    case Type::Kind::CustomClass:
      return NamedCType{binds, CType::base(kUnsupportedT)};
  }
  return std::nullopt;
}

NamedCType argumenttypeType(const Type& t, bool isMutable, const ArgName& binds, const Options& options,
                            bool removeNonOwningRefTypes, bool symint) {
  if (auto r = valuetypeType(t, binds, symint)) return std::move(*r);
  const bool mutableRef = isMutable && !options.constRefForMutableTensors;
  const CType tensor = CType::base(tensorT);
  const CType scalar = CType::base(scalarT);
  // The most frequent argument types, made once and shared (CType is immutable) instead of
  // allocated for every argument of every signature.
  static const CType kConstTensorRef = CType::constRef(tensor);
  static const CType kMutTensorRef = CType::mutRef(tensor);
  static const CType kConstOptionalTensorRef = CType::constRef(CType::optional(tensor));
  static const CType kConstScalarRef = CType::constRef(scalar);
  switch (t.kind()) {
    case Type::Kind::Base:
      if (t.baseTy() == BaseTy::Tensor) {
        if (mutableRef) return NamedCType{binds, kMutTensorRef};
        if (removeNonOwningRefTypes) return NamedCType{binds, tensor};
        return NamedCType{binds, kConstTensorRef};
      }
      // Scalar (the only other base type that is not a value type)
      if (removeNonOwningRefTypes) return NamedCType{binds, scalar};
      return NamedCType{binds, kConstScalarRef};
    case Type::Kind::Optional: {
      const Type& e = t.elem();
      if (e.isBase(BaseTy::Tensor)) {
        // Not ::std::optional<at::Tensor> &: torchgen's "discrepancy", kept.
        if (mutableRef) return NamedCType{binds, kMutTensorRef};
        if (removeNonOwningRefTypes) return NamedCType{binds, CType::optional(tensor)};
        return NamedCType{binds, kConstOptionalTensorRef};
      }
      if (e.isBase(BaseTy::Scalar)) {
        if (removeNonOwningRefTypes) return NamedCType{binds, CType::optional(scalar)};
        return NamedCType{binds, CType::constRef(CType::optional(scalar))};
      }
      if (e.isList() && e.elem().isBase(BaseTy::Int)) return NamedCType{binds, CType::base(optionalIntArrayRefT)};
      if (e.isList() && e.elem().isBase(BaseTy::SymInt))
        return NamedCType{binds, CType::base(symint ? optionalSymIntArrayRefT : optionalIntArrayRefT)};
      NamedCType elem = argumenttypeType(e, isMutable, binds, options, false, symint);
      return NamedCType{binds, CType::optional(std::move(elem.type))};
    }
    case Type::Kind::List: {
      const Type& e = t.elem();
      if (e.isBase(BaseTy::Int)) {
        if (removeNonOwningRefTypes) return NamedCType{binds, CType::vector(CType::base(longT))};
        return NamedCType{binds, CType::base(intArrayRefT)};
      }
      if (e.isBase(BaseTy::SymInt)) {
        if (removeNonOwningRefTypes) return NamedCType{binds, CType::vector(CType::base(symint ? SymIntT : longT))};
        return NamedCType{binds, CType::base(symint ? symIntArrayRefT : intArrayRefT)};
      }
      if (e.isBase(BaseTy::Tensor)) {
        if (options.ilistRefForTensorLists) return NamedCType{binds, CType::constRef(CType::base(iTensorListRefT))};
        return NamedCType{binds, CType::base(tensorListT)};
      }
      if (e.isBase(BaseTy::Scalar)) return NamedCType{binds, CType::arrayRef(scalar)};
      if (isOptionalOf(e, BaseTy::Tensor))
        return NamedCType{binds, CType::constRef(CType::list(CType::optional(tensor)))};
      // Older inputs only: PyTorch 1.x spelled Dimname[] as at::DimnameList.
      if (e.isBase(BaseTy::Dimname)) return NamedCType{binds, CType::base(dimnameListT)};
      NamedCType elem = argumenttypeType(e, isMutable, binds, options, false, symint);
      return NamedCType{binds, CType::arrayRef(std::move(elem.type))};
    }
    case Type::Kind::CustomClass:
      break;
  }
  return NamedCType{binds, CType::base(kUnsupportedT)};
}

NamedCType argumentType(const model::Argument& a, const ArgName& binds, const Options& options, bool symint) {
  return argumenttypeType(a.type, a.isWrite(), binds, options, false, symint);
}

CType returntypeType(const Type& t, bool isMutable, const Options& options) {
  // Returns always use SymInt (torchgen ignores `symint` here).
  if (auto r = valuetypeType(t, ArgName("__placeholder__"), true)) return std::move(r->type);
  switch (t.kind()) {
    case Type::Kind::Base:
      if (t.baseTy() == BaseTy::Tensor) {
        if (isMutable) {
          return options.constRefForMutableTensors ? CType::constRef(CType::base(tensorT))
                                                   : CType::mutRef(CType::base(tensorT));
        }
        return CType::base(tensorT);
      }
      if (t.baseTy() == BaseTy::Scalar) return CType::base(scalarT);
      break;
    case Type::Kind::List:
      // (mutable and fixed-size list returns are rejected by checkSupported)
      return CType::vector(returntypeType(t.elem(), false, options));
    case Type::Kind::Optional:
      if (t.elem().isBase(BaseTy::Tensor)) return CType::optional(returntypeType(t.elem(), isMutable, options));
      break;
    case Type::Kind::CustomClass:
      break;
  }
  return CType::base(kUnsupportedT);
}

CType returnType(const model::Return& r, const Options& options) {
  return returntypeType(r.type, r.isWrite(), options);
}

CType returnsType(const std::vector<model::Return>& returns, const Options& options) {
  if (returns.empty()) return CType::base(voidT);
  if (returns.size() == 1) return returnType(returns[0], options);
  std::vector<CType> elems;
  elems.reserve(returns.size());
  for (const auto& r : returns) elems.push_back(returnType(r, options));
  return CType::tuple(std::move(elems));
}

std::vector<std::string> returnNames(const model::NativeFunction& f, std::string_view fallbackName) {
  const auto& func = f.func;
  std::vector<std::string> names;
  names.reserve(func.returns.size());
  for (size_t i = 0; i < func.returns.size(); ++i) {
    const auto& r = func.returns[i];
    if (func.name.name.inplace) {
      names.emplace_back("self");  // an in-place function has exactly one return
    } else if (func.isOutFn()) {
      names.push_back(i < func.arguments.out.size() ? func.arguments.out[i].name : std::string());
    } else if (r.name && !r.name->empty()) {
      bool conflict = false;
      for (const model::Argument* a : func.schemaOrderArguments()) conflict = conflict || a->name == *r.name;
      names.push_back(conflict ? *r.name + "_return" : *r.name);
    } else {
      names.push_back(func.returns.size() == 1 ? std::string(fallbackName)
                                               : std::string(fallbackName) + std::to_string(i));
    }
  }
  return names;
}

std::string defaultExpr(std::string_view d, const Type& t, bool symint, const Spelling& spelling) {
  if (d == "None" && isOptionalOf(t, BaseTy::Tensor)) return "{}";
  if (isBase(t, BaseTy::Str) && d.size() >= 2 && d.front() == '\'' && d.back() == '\'') return cppStringLiteral(d);
  if (d == "None") return std::string(spelling.nullopt);
  if (t.isOptional()) return defaultExpr(d, t.elem(), symint, spelling);
  if (t.isList()) {
    if (!d.empty() && d.front() == '[' && d.back() == ']') return "{" + std::string(d.substr(1, d.size() - 2)) + "}";
    if (symint && isDigits(d) && t.elem().isBase(BaseTy::SymInt)) return "c10::SymInt(" + std::string(d) + ")";
    // (a non-list default of an unsized list is rejected by checkSupported)
  }
  for (const auto& [jit, cpp] : kJitToCppDefault)
    if (jit == d) return std::string(cpp);
  return std::string(d);
}

Binding argument(const model::Argument& a, bool symint, const std::set<std::string>& cppNoDefaultArgs,
                 bool hasTensorOptions, const Options& options) {
  ArgName binds =
      (a.name == "memory_format" && hasTensorOptions) ? ArgName::possiblyRedundantMemoryFormat() : ArgName(a.name);
  std::optional<std::string> def;
  if (a.defaultValue && !cppNoDefaultArgs.count(a.name))
    def = defaultExpr(*a.defaultValue, a.type, symint, options.spelling());
  return Binding{a.name, argumentType(a, binds, options, symint), &a, std::move(def)};
}

namespace {

// argument(item) appended to `out`: the bindings are built in place, not in a vector of their own
// (every C++ signature of every function goes through here).
void appendArgument(std::vector<Binding>& out, const ArgumentItem& a, const Flavor& flavor,
                    const std::set<std::string>& cppNoDefaultArgs, bool hasTensorOptions, const Options& options) {
  switch (a.kind) {
    case ArgumentItem::Kind::Plain:
      out.push_back(argument(*a.argument, flavor.symint, cppNoDefaultArgs, hasTensorOptions, options));
      return;
    case ArgumentItem::Kind::Self:
      if (flavor.method) return;  // the caller provides the implicit this
      out.push_back(argument(*a.argument, flavor.symint, cppNoDefaultArgs, hasTensorOptions, options));
      return;
    case ArgumentItem::Kind::TensorOptions: {
      const model::TensorOptionsArguments& to = *a.tensorOptions;
      if (flavor.faithful) {
        for (const model::Argument* x : to.all())
          out.push_back(argument(*x, flavor.symint, cppNoDefaultArgs, hasTensorOptions, options));
        return;
      }
      std::optional<std::string> def;
      bool allNone = true;
      for (const model::Argument* x : to.all()) allNone = allNone && x->defaultValue == "None";
      if (allNone) {
        def = "{}";
      } else if (to.dtype.defaultValue == "long") {
        def = "at::kLong";
      }
      out.push_back(Binding{"options", NamedCType{"options", CType::base(tensorOptionsT)}, &to, std::move(def)});
      return;
    }
  }
}

}  // namespace

std::vector<Binding> argument(const ArgumentItem& a, const Flavor& flavor,
                              const std::set<std::string>& cppNoDefaultArgs, bool hasTensorOptions,
                              const Options& options) {
  std::vector<Binding> r;
  appendArgument(r, a, flavor, cppNoDefaultArgs, hasTensorOptions, options);
  return r;
}

std::vector<Binding> arguments(const model::Arguments& args, const Flavor& flavor,
                               const std::set<std::string>& cppNoDefaultArgs, const Options& options) {
  std::vector<ArgumentItem> items;
  if (flavor.faithful) {
    items = nonOutItems(args);
    for (const auto& i : outItems(args)) items.push_back(i);
  } else {
    items = outItems(args);
    for (const auto& i : nonOutItems(args)) items.push_back(i);
  }
  const bool hasTensorOptions = args.tensorOptions.has_value();
  std::vector<Binding> r;
  r.reserve(items.size() + 3);
  for (const auto& item : items) {
    const size_t first = r.size();
    appendArgument(r, item, flavor, cppNoDefaultArgs, hasTensorOptions, options);
    if (flavor.faithful)
      for (size_t i = first; i < r.size(); ++i) r[i].defaultValue.reset();
  }
  return r;
}

namespace {

std::optional<std::string> unsupportedType(const Type& t) {
  switch (t.kind()) {
    case Type::Kind::Base:
      if (t.baseTy() == BaseTy::GraphModule) return "the type GraphModule has no C++ API type";
      return std::nullopt;
    case Type::Kind::Optional:
      return unsupportedType(t.elem());
    case Type::Kind::List:
      if (t.elem().isBase(BaseTy::Bool) && !t.size()) return "bool[] needs a size (bool[N]) in the C++ API";
      return unsupportedType(t.elem());
    case Type::Kind::CustomClass:
      return "custom class types have no C++ API type";
  }
  return std::nullopt;
}

std::optional<std::string> unsupportedReturn(const Type& t, bool isMutable) {
  if (auto why = unsupportedType(t)) return why;
  if (valuetypeType(t, ArgName("r"), true)) return std::nullopt;
  switch (t.kind()) {
    case Type::Kind::Base:
      return std::nullopt;
    case Type::Kind::List:
      if (isMutable) return "native functions should never return a mutable tensor list; they should return void";
      if (t.size()) return "fixed size list returns are not supported: " + t.str();
      return unsupportedReturn(t.elem(), false);
    case Type::Kind::Optional:
      if (t.elem().isBase(BaseTy::Tensor)) return std::nullopt;
      return "unrecognized return type " + t.str();
    case Type::Kind::CustomClass:
      return "unrecognized return type " + t.str();
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> checkSupported(const model::Type& argumentType) { return unsupportedType(argumentType); }

std::optional<std::string> checkSupported(const model::Argument& a) {
  if (auto why = unsupportedType(a.type)) return why;
  if (!a.defaultValue) return std::nullopt;
  const std::string& d = *a.defaultValue;
  const Type* t = &a.type;
  if (t->isOptional() && d != "None") t = &t->elem();
  if (t->isList() && !(d.size() >= 2 && d.front() == '[' && d.back() == ']') && !t->size() &&
      !(isDigits(d) && t->elem().isBase(BaseTy::SymInt)))
    return "expected a list default '[...]' but found: '" + d + "'";
  return std::nullopt;
}

std::optional<std::string> checkSupported(const model::Return& r) { return unsupportedReturn(r.type, r.isWrite()); }

std::optional<std::string> checkSupported(const model::FunctionSchema& func) {
  std::optional<std::string> problem;
  // The arguments in schema order (called for every function by several families: no list made).
  func.arguments.anyOf([&](const model::Argument& a) {
    if (auto why = checkSupported(a)) problem = "argument '" + a.name + "': " + *why;
    return problem.has_value();
  });
  if (problem) return problem;
  for (const auto& r : func.returns)
    if (auto why = checkSupported(r)) return "return: " + *why;
  return std::nullopt;
}

}  // namespace opgen::api::cpp
