#include "api/Dispatcher.h"

#include "api/Cpp.h"

namespace opgen::api::dispatcher {

std::string name(const model::FunctionSchema& func) { return cpp::name(func); }

NamedCType argumenttypeType(const model::Type& t, bool isMutable, const ArgName& binds, const Options& options,
                            bool removeNonOwningRefTypes, bool symint) {
  return cpp::argumenttypeType(t, isMutable, binds, options, removeNonOwningRefTypes, symint);
}

NamedCType argumentType(const model::Argument& a, const ArgName& binds, const Options& options,
                        bool removeNonOwningRefTypes, bool symint) {
  return argumenttypeType(a.type, a.isWrite(), binds, options, removeNonOwningRefTypes, symint);
}

CType returnsType(const std::vector<model::Return>& returns, const Options& options) {
  return cpp::returnsType(returns, options);
}

std::vector<const model::Argument*> jitArguments(const model::FunctionSchema& func) {
  return func.schemaOrderArguments();
}

Binding argument(const model::Argument& a, const Options& options, bool removeNonOwningRefTypes, bool symint) {
  return Binding{a.name, argumentType(a, a.name, options, removeNonOwningRefTypes, symint), &a, std::nullopt};
}

std::vector<Binding> arguments(const model::FunctionSchema& func, const Options& options, bool symint) {
  std::vector<Binding> r;
  for (const model::Argument* a : jitArguments(func)) r.push_back(argument(*a, options, false, symint));
  return r;
}

}  // namespace opgen::api::dispatcher
