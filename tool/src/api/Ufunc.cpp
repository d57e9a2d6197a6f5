#include "api/Ufunc.h"

#include "api/Cpp.h"
#include "api/Structured.h"

namespace opgen::api::ufunc {

using model::BaseTy;

std::string schemaKernelName(const model::FunctionSchema& func, model::DispatchKey key) {
  return "ufunc_" + func.name.name.str() + "_" + std::string(model::dispatchKeyName(key));
}

std::string kernelName(const model::NativeFunctionsGroup& g, model::DispatchKey key) {
  return schemaKernelName(g.out->func, key);
}

std::optional<BaseCppType> opmathType(const BaseCppType& s) {
  if (s == scalar_t) return opmath_t;
  return std::nullopt;
}

NamedCType ufunctorCtorType(const model::Type& t, const ArgName& binds, const BaseCppType& s) {
  if (auto r = cpp::valuetypeType(t, binds, false)) return std::move(*r);
  // Scalar, and Tensor: a CPU scalar tensor, kept in the higher precision.
  return NamedCType{binds, CType::base(opmathType(s).value_or(s))};
}

NamedCType ufunctorApplyType(const model::Type&, const ArgName& binds, const BaseCppType& s) {
  return NamedCType{binds, CType::base(s)};  // only tensors reach operator()
}

NamedCType ufuncType(const model::Type& t, const ArgName& binds, const CType& computeT) {
  if (auto r = cpp::valuetypeType(t, binds, false)) return std::move(*r);
  return NamedCType{binds, computeT};  // Scalar and Tensor
}

Binding ufunctorCtorArgument(const model::Argument& a, const BaseCppType& s) {
  return Binding{a.name, ufunctorCtorType(a.type, a.name, s), &a, std::nullopt};
}

Binding ufunctorApplyArgument(const model::Argument& a, const BaseCppType& s) {
  return Binding{a.name, ufunctorApplyType(a.type, a.name, s), &a, std::nullopt};
}

Binding ufuncArgument(const model::Argument& a, const CType& computeT) {
  return Binding{a.name, ufuncType(a.type, a.name, computeT), &a, std::nullopt};
}

UfunctorBindings ufunctorArguments(const model::NativeFunctionsGroup& g, std::optional<int> scalarTensorIdx,
                                   const BaseCppType& s) {
  UfunctorBindings r;
  int remaining = scalarTensorIdx.value_or(-1);  // tensors to skip before the CPU scalar; -1: none
  for (const model::Argument* a : g.functional->func.arguments.flatNonOut()) {
    if (a->type.isTensorLike()) {
      if (remaining == 0) {
        r.ctor.push_back(ufunctorCtorArgument(*a, s));  // the CPU scalar goes to the constructor
        remaining = -1;
      } else {
        if (remaining > 0) --remaining;
        r.apply.push_back(ufunctorApplyArgument(*a, s));
      }
    } else {
      r.ctor.push_back(ufunctorCtorArgument(*a, s));
    }
  }
  return r;
}

std::vector<Binding> ufuncArguments(const model::NativeFunctionsGroup& g, const CType& computeT) {
  std::vector<Binding> r;
  for (const model::Argument* a : g.functional->func.arguments.flatNonOut()) r.push_back(ufuncArgument(*a, computeT));
  return r;
}

std::vector<Binding> stubArguments(const model::NativeFunctionsGroup& g) {
  std::vector<Binding> r;
  for (const model::Argument* a : g.out->func.arguments.flatNonOut())
    if (!a->type.isTensorLike()) r.push_back(structured::argument(*a));
  return r;
}

}  // namespace opgen::api::ufunc
