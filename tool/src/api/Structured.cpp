#include "api/Structured.h"

#include "api/Cpp.h"
#include "support/Strings.h"

namespace opgen::api::structured {

using model::BaseTy;

NamedCType argumenttypeType(const model::Type& t, bool isMutable, const ArgName& binds) {
  // Structured kernels always use real ints.
  if (auto r = cpp::valuetypeType(t, binds, false)) return std::move(*r);
  switch (t.kind()) {
    case model::Type::Kind::Base:
      if (t.baseTy() == BaseTy::Tensor) return NamedCType{binds, CType::constRef(CType::base(tensorT))};
      return NamedCType{binds, CType::constRef(CType::base(scalarT))};  // Scalar
    case model::Type::Kind::Optional: {
      const model::Type& e = t.elem();
      if (e.isBase(BaseTy::Tensor)) return NamedCType{binds, CType::base(optionalTensorRefT)};
      if (e.isBase(BaseTy::Scalar)) return NamedCType{binds, CType::base(optionalScalarRefT)};
      if (e.isList() && e.elem().isBase(BaseTy::Int)) return NamedCType{binds, CType::base(optionalIntArrayRefT)};
      return NamedCType{binds, CType::optional(argumenttypeType(e, isMutable, binds).type)};
    }
    case model::Type::Kind::List: {
      const model::Type& e = t.elem();
      if (e.isBase(BaseTy::Tensor)) return NamedCType{binds, CType::constRef(CType::base(iTensorListRefT))};
      if (e.isOptional() && e.elem().isBase(BaseTy::Tensor)) return NamedCType{binds, CType::base(iOptTensorListRefT)};
      if (e.isBase(BaseTy::Int)) return NamedCType{binds, CType::base(intArrayRefT)};
      return NamedCType{binds, CType::arrayRef(argumenttypeType(e, isMutable, binds).type)};
    }
    case model::Type::Kind::CustomClass:
      break;
  }
  // Unsupported types: the same placeholder as the C++ API's.
  return cpp::argumenttypeType(t, isMutable, binds, Options{}, false, false);
}

NamedCType argumentType(const model::Argument& a, const ArgName& binds) {
  return argumenttypeType(a.type, a.isWrite(), binds);
}

Binding argument(const model::Argument& a) { return Binding{a.name, argumentType(a, a.name), &a, std::nullopt}; }

std::vector<Binding> argument(const ArgumentItem& a) {
  if (a.kind == ArgumentItem::Kind::TensorOptions) return {};
  return {argument(*a.argument)};
}

namespace {
std::vector<Binding> bindingsOf(const std::vector<ArgumentItem>& items) {
  std::vector<Binding> r;
  r.reserve(items.size());
  for (const auto& i : items)
    for (auto& b : argument(i)) r.push_back(std::move(b));
  return r;
}
}  // namespace

std::vector<Binding> implArguments(const model::NativeFunctionsGroup& g) {
  const model::NativeFunction& out = *g.out;
  std::vector<Binding> r;
  if (out.precomputed) {
    // Non-out arguments with some replaced by their precomputed elements, then the added elements.
    for (const auto& item : nonOutItems(out.func.arguments)) {
      const std::vector<model::Argument>* replacement = nullptr;
      if (item.kind == ArgumentItem::Kind::Plain)
        for (const auto& [name, elems] : out.precomputed->replace)
          if (name == item.argument->name) replacement = &elems;
      if (replacement) {
        for (const auto& a : *replacement) r.push_back(argument(a));
      } else {
        for (auto& b : argument(item)) r.push_back(std::move(b));
      }
    }
    for (const auto& a : out.precomputed->add) r.push_back(argument(a));
  } else {
    r = bindingsOf(nonOutItems(out.func.arguments));
  }
  for (const auto& a : out.func.arguments.out) r.push_back(argument(a));
  return r;
}

std::vector<Binding> metaArguments(const model::NativeFunctionsGroup& g) {
  return bindingsOf(nonOutItems(g.functional->func.arguments));
}

std::vector<Binding> outArguments(const model::NativeFunctionsGroup& g) {
  return bindingsOf(outItems(g.out->func.arguments));
}

std::optional<std::string> checkSupported(const model::NativeFunctionsGroup& g) {
  for (const model::NativeFunction* f : {g.functional, g.out})
    if (f->func.arguments.tensorOptions) return "structured kernels don't support TensorOptions yet";
  return std::nullopt;
}

}  // namespace opgen::api::structured

namespace opgen::api::meta {

std::string name(const model::NativeFunctionsGroup& g) {
  return support::replaceAll(g.functional->func.name.str(), ".", "_");
}

}  // namespace opgen::api::meta
