#include "dest/common/ApiTable.h"

#include <optional>

#include "api/Translate.h"
#include "dest/common/FunctionContext.h"

namespace opgen::dest {

api::CppSignatureGroup cppSignatures(const model::NativeFunction& f, bool method) {
  return api::CppSignatureGroup::fromNativeFunction(f, {.method = method, .fallbackBinding = f.manualCppBinding},
                                                    api::Options::of(f));
}

api::DispatcherSignature dispatcherSignature(const model::NativeFunction& f) {
  return api::DispatcherSignature::fromSchema(f.func, api::Options::of(f));
}

support::Expected<std::string> dispatcherArgs(const api::DispatcherSignature& target, const api::CppSignature& sig,
                                              bool method) {
  support::Expected<std::vector<api::Expr>> exprs =
      api::translate(sig.arguments(), target.arguments(), api::TranslateOptions{.method = method});
  if (!exprs) return exprs.error();
  return api::joinExprs(*exprs);
}

CallApi::CallApi(const model::NativeFunction& f) : check(checkCppApi(f)) {
  if (!check) return;
  const api::CppSignatureGroup group = cppSignatures(f, /*method=*/false);
  const api::DispatcherSignature target = dispatcherSignature(f);
  const bool symintFunction = f.func.hasSymInt();
  for (const api::CppSignature* sig : group.signatures()) {
    overloads.push_back(Overload{.decl = sig->decl(),
                                 .declWithoutSuffix = symintFunction ? sig->decl({.suppressSymintSuffix = true}) : "",
                                 .redispatchDecl = sig->decl({.isRedispatchingFn = true}),
                                 .symint = sig->symint(),
                                 .args = dispatcherArgs(target, *sig, /*method=*/false)});
  }
}

DirectApi::DirectApi(const model::NativeFunction& f, const api::Options& options)
    : group(std::make_unique<const api::CppSignatureGroup>(
          api::CppSignatureGroup::fromNativeFunction(f, {.method = false, .fallbackBinding = false}, options))),
      signatures(group->signatures(/*symint=*/true)) {
  for (const api::CppSignature* s : signatures) {
    declarations.append("TORCH_API ").append(s->decl()).append(";\n");
    definitions.push_back(s->defn());
  }
}

std::string NamelessDefn::withName(std::string_view name) const {
  std::string s;
  s.reserve(beforeName.size() + name.size() + afterName.size());
  s.append(beforeName).append(name).append(afterName);
  return s;
}

namespace {

// `sig`'s definition head split where its name goes ("RET NAME(PARAMS)").
template <class Signature>
NamelessDefn namelessDefn(const Signature& sig, const api::Spelling& spelling) {
  std::string head = sig.defn({.name = std::string()});
  const size_t namePos = sig.returnsType().cppType(false, spelling).size() + 1;
  return {head.substr(0, namePos), head.substr(namePos)};
}

}  // namespace

const CallApi& FunctionApi::call() const {
  return call_.get(lock_, [&] { return CallApi(f_); });
}

const DirectApi& FunctionApi::direct() const {
  return direct_.get(lock_, [&] { return DirectApi(f_, options_); });
}

const std::string& FunctionApi::operatorName() const {
  return operatorName_.get(lock_, [&] { return f_.func.name.str(); });
}

const DispatcherWrapper& FunctionApi::dispatcher() const {
  return dispatcher_.get(lock_, [&] {
    api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f_.func, options_, "", /*symint=*/true);
    std::string name = sig.name();
    NamelessDefn defn = namelessDefn(sig, options_.spelling());
    return DispatcherWrapper{std::move(sig), std::move(name), std::move(defn)};
  });
}

const NativeWrapper& FunctionApi::native(bool symint) const {
  return native_[symint].get(lock_, [&] {
    api::NativeSignature sig(f_.func, symint, options_);
    std::string name = sig.name();
    NamelessDefn defn = namelessDefn(sig, options_.spelling());
    return NativeWrapper{std::move(sig), std::move(name), std::move(defn)};
  });
}

const support::Expected<std::string>& FunctionApi::kernelArguments(bool external, bool symint) const {
  return kernelArgs_[external][symint].get(lock_, [&]() -> support::Expected<std::string> {
    const std::vector<api::Binding>& wrapperArgs = dispatcher().sig.arguments();
    std::optional<api::DispatcherSignature> externalSig;
    if (external && !symint) externalSig.emplace(api::DispatcherSignature::fromSchema(f_.func, options_, "", false));
    const std::vector<api::Binding>& kernelArgs = !external ? native(symint).sig.arguments()
                                                  : symint  ? wrapperArgs
                                                            : externalSig->arguments();
    support::Expected<std::vector<api::Expr>> args =
        api::translate(wrapperArgs, kernelArgs, api::TranslateOptions{.libtorch = options_.libtorch});
    if (!args) return args.error();
    return api::joinExprs(*args);
  });
}

const support::Expected<std::vector<std::string>>& FunctionApi::directApiArguments(WrapperBindings bindings) const {
  return directApiArgs_[static_cast<int>(bindings)].get(lock_, [&]() -> support::Expected<std::vector<std::string>> {
    const std::vector<api::Binding>& wrapperArgs =
        bindings == WrapperBindings::Dispatcher
            ? dispatcher().sig.arguments()
            : native(/*symint=*/bindings == WrapperBindings::SymIntNative).sig.arguments();
    std::vector<std::string> joined;
    for (const api::CppSignature* s : direct().signatures) {
      support::Expected<std::vector<api::Expr>> args =
          api::translate(s->arguments(), wrapperArgs, api::TranslateOptions{.libtorch = options_.libtorch});
      if (!args) return args.error();
      joined.push_back(api::joinExprs(*args));
    }
    return joined;
  });
}

KernelTable::KernelTable(const model::BackendIndex& index, const Names& names) : index_(index) {
  kernels_.reserve(index.size());
  for (const auto& [name, metadata] : index.entries())
    if (auto it = names.find(name); it != names.end()) kernels_.emplace(it->second, &metadata);
}

const model::BackendMetadata* KernelTable::find(const model::NativeFunction& f) const {
  auto it = kernels_.find(&f);
  return it == kernels_.end() ? nullptr : it->second;
}

const model::BackendMetadata* KernelTable::find(const model::NativeFunctionsGroup& g) const {
  return find(index_.useOutAsPrimary() ? *g.out : *g.functional);
}

const model::BackendMetadata* KernelTable::find(const model::FunctionOrGroup& item) const {
  if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item)) return find(*g);
  return find(*std::get<const model::NativeFunction*>(item));
}

const KernelTable& ApiTable::kernels(const model::Operators& ops, const model::BackendIndex& index) {
  const KernelTable::Names& names = names_.get(namesLock_, [&] {
    KernelTable::Names byName;
    byName.reserve(ops.functions().size());
    for (const model::NativeFunction* f : ops.functions()) byName.emplace(f->func.name.str(), f);
    return byName;
  });
  return kernels_.get(&index, index, names);
}

}  // namespace opgen::dest
