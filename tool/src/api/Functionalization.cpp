#include "api/Functionalization.h"

#include "api/Dispatcher.h"

namespace opgen::api::functionalization {

namespace {

// A binding with an Argument of its own (a function-local constant: built once, never changed).
struct FixedBinding {
  model::Argument argument;
  Binding binding;
  FixedBinding(const char* name, const char* argName, model::BaseTy argType, CType type)
      : argument{argName, model::Type::base(argType), std::nullopt, std::nullopt},
        binding{name, NamedCType{name, std::move(type)}, &argument, std::nullopt} {}
  FixedBinding(const FixedBinding&) = delete;
};

}  // namespace

const Binding& baseBinding() {
  static const FixedBinding b("base", "base", model::BaseTy::Tensor, CType::constRef(CType::base(tensorT)));
  return b.binding;
}

const Binding& hasSymbolicInputsBinding() {
  static const FixedBinding b("has_symbolic_inputs", "has_symbolic_inputs", model::BaseTy::Bool, CType::base(boolT));
  return b.binding;
}

const Binding& mutatedViewBinding() {
  // (torchgen names its argument "base")
  static const FixedBinding b("mutated_view", "base", model::BaseTy::Tensor, CType::constRef(CType::base(tensorT)));
  return b.binding;
}

const Binding& outIndexBinding() {
  static const FixedBinding b("out_index", "out_index", model::BaseTy::Int, CType::base(longT));
  return b.binding;
}

const Binding& reapplyViewsBinding() {
  static const FixedBinding b("reapply_views", "reapply_views", model::BaseTy::Bool, CType::base(boolT));
  return b.binding;
}

const Binding& inverseReturnModeBinding() {
  // (torchgen's argument says bool; it is never looked at)
  static const FixedBinding b("inverse_return_mode", "inverse_return_mode", model::BaseTy::Bool,
                              CType::base(InverseReturnModeT));
  return b.binding;
}

std::string classname(const model::FunctionSchema& func, bool withNamespace) {
  return (withNamespace ? "at::functionalization::" : "") + func.name.unambiguousName() + "_ViewMeta";
}

std::string forwardName(const model::NativeFunctionsViewGroup& g, bool reapplyViews) {
  const model::NativeFunction* f = reapplyViews || !g.viewCopy ? g.view : g.viewCopy;
  return "at::_ops::" + f->func.name.unambiguousName() + "::call";
}

std::string reverseName(const model::NativeFunction& f, bool includeNamespace) {
  std::string name = f.func.name.unambiguousName() + "_inverse";
  return includeNamespace ? "at::functionalization::FunctionalInverses::" + name : name;
}

CType returnsType(const model::FunctionSchema&) { return CType::base(tensorT); }

bool isMultiOutput(const model::FunctionSchema& func) {
  return func.returns.size() > 1 || (func.returns.size() == 1 && func.returns[0].type.listLike() != nullptr);
}

std::vector<Binding> baseCtorArguments(const model::FunctionSchema& func) {
  std::vector<Binding> r{hasSymbolicInputsBinding()};
  if (isMultiOutput(func)) r.push_back(outIndexBinding());
  return r;
}

std::vector<Binding> extraCtorArguments(const model::FunctionSchema& func, const Options& options) {
  return attributes(func, options, false);
}

std::vector<Binding> attributes(const model::FunctionSchema& func, const Options& options, bool owning) {
  std::vector<Binding> r{reapplyViewsBinding(), inverseReturnModeBinding()};
  const auto args = func.arguments.flatAll();
  for (size_t i = 1; i < args.size(); ++i) r.push_back(dispatcher::argument(*args[i], options, owning));
  return r;
}

std::vector<Binding> opArguments(const model::FunctionSchema& func, bool isReverse, const Options& options) {
  std::vector<Binding> r{baseBinding()};
  if (isReverse) {
    r.push_back(mutatedViewBinding());
    r.push_back(inverseReturnModeBinding());
    if (isMultiOutput(func)) r.push_back(outIndexBinding());
  }
  const auto args = func.arguments.flatAll();
  for (size_t i = 1; i < args.size(); ++i) r.push_back(dispatcher::argument(*args[i], options));
  return r;
}

support::Expected<std::string> hasSymbolicValues(const std::string& expr, const CType& type) {
  if (type.isBase(SymIntT)) return expr + ".is_symbolic()";
  if (type.is(CType::Kind::Optional)) {
    auto inner = hasSymbolicValues("(*" + expr + ")", type.elem());
    if (!inner) return inner;
    return expr + ".has_value() ? " + *inner + " : false";
  }
  if (type.isBase(optionalSymIntArrayRefT)) return hasSymbolicValues(expr, CType::optional(CType::base(symIntArrayRefT)));
  if (type.isBase(symIntArrayRefT) || (type.is(CType::Kind::Vector) && type.elem().isBase(SymIntT)))
    return "std::any_of(" + expr + ".begin(), " + expr + ".end(), [=](auto& arg) { return arg.is_symbolic(); })";
  return support::makeError(
      "unsupported type for has_symbolic_values check. It should be a SymInt or a collection of those. Got: " +
      type.cppType());
}

}  // namespace opgen::api::functionalization
