#include "api/Native.h"

#include "api/Cpp.h"

namespace opgen::api::native {

using model::BaseTy;

std::string name(const model::FunctionSchema& func) {
  std::string n = func.name.name.str();
  if (func.isOutFn()) n += "_out";
  if (!func.name.overloadName.empty()) n += "_" + func.name.overloadName;
  return n;
}

NamedCType argumenttypeType(const model::Type& t, bool isMutable, const ArgName& binds, bool symint,
                            const Options& options) {
  if (t.isOptional() && t.elem().isBase(BaseTy::Tensor)) {
    CType tensor = CType::optional(CType::base(tensorT));
    if (isMutable && !options.constRefForMutableTensors) return NamedCType{binds, CType::mutRef(std::move(tensor))};
    return NamedCType{binds, CType::constRef(std::move(tensor))};
  }
  if (t.isList() && !t.size() && t.elem().isOptional() && t.elem().elem().isBase(BaseTy::Tensor))
    return NamedCType{binds, CType::constRef(CType::list(CType::optional(CType::base(tensorT))))};
  if (t.isBase(BaseTy::Scalar)) return NamedCType{binds, CType::constRef(CType::base(scalarT))};
  if (t.isOptional() && t.elem().isBase(BaseTy::Scalar))
    return NamedCType{binds, CType::constRef(CType::optional(CType::base(scalarT)))};
  return cpp::argumenttypeType(t, isMutable, binds, options, false, symint);
}

NamedCType argumentType(const model::Argument& a, const ArgName& binds, bool symint, const Options& options) {
  return argumenttypeType(a.type, a.isWrite(), binds, symint, options);
}

CType returnsType(const std::vector<model::Return>& returns, const Options& options) {
  return cpp::returnsType(returns, options);
}

std::vector<Binding> argument(const ArgumentItem& a, bool isOut, bool symint, const Options& options) {
  // Native kernels should never be defaulted, but some callers of at::native:: rely on the defaults
  // of non-out functions (no sensible default exists for out ones).
  const bool shouldDefault = !isOut;
  if (a.kind != ArgumentItem::Kind::TensorOptions) {
    const model::Argument& arg = *a.argument;
    std::optional<std::string> def;
    if (shouldDefault && arg.defaultValue) def = cpp::defaultExpr(*arg.defaultValue, arg.type, symint, options.spelling());
    return {Binding{arg.name, argumentType(arg, arg.name, symint, options), &arg, std::move(def)}};
  }
  std::optional<std::string> def;
  if (shouldDefault) def = "{}";
  const model::TensorOptionsArguments* to = a.tensorOptions;
  auto make = [&](const char* n, BaseCppType t) {
    return Binding{n, NamedCType{n, CType::optional(CType::base(t))}, to, def};
  };
  return {make("dtype", scalarTypeT), make("layout", layoutT), make("device", deviceT), make("pin_memory", boolT)};
}

std::vector<Binding> arguments(const model::FunctionSchema& func, bool symint, const Options& options) {
  std::vector<ArgumentItem> items = nonOutItems(func.arguments);
  for (const auto& i : outItems(func.arguments)) items.push_back(i);
  const bool isOut = func.isOutFn();
  std::vector<Binding> r;
  r.reserve(items.size() + 3);
  for (const auto& item : items)
    for (auto& b : argument(item, isOut, symint, options)) r.push_back(std::move(b));
  return r;
}

}  // namespace opgen::api::native
