// What emitters compute about a function once per run and share between output families, dispatch
// keys and threads (torchgen computes it again for every file): the function's C++ API overloads
// through the dispatcher, its direct C++ API, the signatures of its kernel wrappers and the
// translations between them; and each dispatch key's kernels by function. One table per run, held
// by the emit context (EmitContext::api); every value is made on first use, once, by the thread that
// asks for it first.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "api/Signatures.h"
#include "model/Operators.h"
#include "support/Expected.h"
#include "support/OnceMap.h"

namespace opgen::dest {

// The public C++ API overloads of f (faithful and SymInt variants included), as functions or methods.
api::CppSignatureGroup cppSignatures(const model::NativeFunction& f, bool method);
// f's dispatcher signature (at::_ops::NAME::call's).
api::DispatcherSignature dispatcherSignature(const model::NativeFunction& f);
// The arguments of at::_ops::NAME::call (`target`) expressed with `sig`'s bindings.
support::Expected<std::string> dispatcherArgs(const api::DispatcherSignature& target, const api::CppSignature& sig,
                                              bool method);

// What f's at:: and at::redispatch:: functions have in common: its C++ API overloads (not methods)
// and, for each, the arguments of at::_ops::NAME::call in terms of the overload's.
struct CallApi {
  struct Overload {
    std::string decl;               // sig.decl()
    std::string declWithoutSuffix;  // sig.decl({.suppressSymintSuffix = true}), for SymInt functions
    std::string redispatchDecl;     // sig.decl({.isRedispatchingFn = true})
    bool symint = false;
    support::Expected<std::string> args;  // the dispatcher's arguments, or why they cannot be made
  };
  explicit CallApi(const model::NativeFunction& f);

  support::Expected<std::string> check;  // checkCppApi: an error when f has no C++ API
  std::vector<Overload> overloads;
};

// A dispatch key's direct C++ API of f (at::cpu::add), the same for every key: its CppSignatureGroup,
// the declarations and the definitions' heads.
struct DirectApi {
  DirectApi(const model::NativeFunction& f, const api::Options& options);

  std::unique_ptr<const api::CppSignatureGroup> group;
  std::vector<const api::CppSignature*> signatures;  // group->signatures(/*symint=*/true)
  std::string declarations;                          // "TORCH_API DECL;\n" for each signature
  std::vector<std::string> definitions;              // each signature's defn()
};

// What a kernel wrapper's parameters are: the dispatcher's (unstructured kernels) or the native ones,
// with SymInt or without (structured kernels, following the backend's kernel).
enum class WrapperBindings { Dispatcher, Native, SymIntNative };

// A signature's definition head without its name: the heads of a function's wrappers differ only by
// the name, which includes the key.
struct NamelessDefn {
  std::string beforeName;  // "RET "
  std::string afterName;   // "(PARAMS)"
  std::string withName(std::string_view name) const;
};
// A wrapper's signature without a prefix, its name and its nameless head.
struct DispatcherWrapper {
  api::DispatcherSignature sig;  // SymInt
  std::string name;
  NamelessDefn defn;
};
struct NativeWrapper {
  api::NativeSignature sig;
  std::string name;
  NamelessDefn defn;
};

// The statements of a structured kernel's wrapper that do not depend on the key (made by
// StructuredKernelEmitter): meta()'s call after the class's construction, then, after the kernel's
// call, the proxies' copies and the return.
struct StructuredWrapperParts {
  std::string metaCall;
  // What the kernel's call is translated from: the wrapper's arguments, the precomputed values and
  // the outputs.
  std::vector<api::Expr> context;
  // The error of a kind of function without outputs to return, reported after the kernel call's.
  support::Expected<std::string> epilogue = std::string();
  // op.impl(...) (the backends' kernel call), or the translation's error (Meta and
  // CompositeExplicitAutogradNonFunctional do not call impl, and do not report it).
  support::Expected<std::string> implCall = std::string();
};

// Everything the table knows about one function under one set of api options.
class FunctionApi {
 public:
  FunctionApi(const model::NativeFunction& f, const api::Options& options) : f_(f), options_(options) {}
  FunctionApi(const FunctionApi&) = delete;
  FunctionApi& operator=(const FunctionApi&) = delete;

  const model::NativeFunction& function() const { return f_; }
  const api::Options& options() const { return options_; }

  // The at:: overloads (made with api::Options::of(f), whatever this entry's options: ATen's API).
  const CallApi& call() const;
  const DirectApi& direct() const;
  // "name.overload": the operator's name in registrations.
  const std::string& operatorName() const;
  const DispatcherWrapper& dispatcher() const;
  const NativeWrapper& native(bool symint) const;
  // What each overload of the direct C++ API passes to a wrapper with `bindings`: the translation's
  // expressions joined, or its error.
  const support::Expected<std::vector<std::string>>& directApiArguments(WrapperBindings bindings) const;
  // What the unstructured wrapper (dispatcher signature) passes to a backend's kernel, whose signature
  // (api::kernelSignature) is the dispatcher's for external backends and the native one otherwise,
  // SymInt or not: the translation's expressions joined, or its error.
  const support::Expected<std::string>& kernelArguments(bool external, bool symint) const;
  // The structured wrapper's parts for a kernel with SymInt or without, made by `make` on first use.
  template <class Make>
  const support::Expected<StructuredWrapperParts>& structuredWrapper(bool symint, Make make) const {
    return structured_[symint].get(lock_, make);
  }

 private:
  const model::NativeFunction& f_;
  const api::Options options_;
  // The values, made on first use (the entry is shared as const: making them changes nothing it says).
  mutable std::recursive_mutex lock_;  // held while a value is made
  mutable support::OnceValue<CallApi> call_;
  mutable support::OnceValue<DirectApi> direct_;
  mutable support::OnceValue<std::string> operatorName_;
  mutable support::OnceValue<DispatcherWrapper> dispatcher_;
  mutable support::OnceValue<NativeWrapper> native_[2];                                      // by symint
  mutable support::OnceValue<support::Expected<std::vector<std::string>>> directApiArgs_[3];  // by WrapperBindings
  mutable support::OnceValue<support::Expected<std::string>> kernelArgs_[2][2];               // by external, symint
  mutable support::OnceValue<support::Expected<StructuredWrapperParts>> structured_[2];       // by symint
};

// The kernels of one backend index by native function (BackendIndex looks a kernel up by the
// operator's name, which costs building the name's string on every call).
class KernelTable {
 public:
  // Every native function by its operator name.
  using Names = std::unordered_map<std::string, const model::NativeFunction*>;

  KernelTable(const model::BackendIndex& index, const Names& names);
  const model::BackendMetadata* find(const model::NativeFunction& f) const;
  // torchgen's BackendIndex.get_kernel(g): the kernel of the group's primary function (out= unless
  // the backend's primary kernels are functional).
  const model::BackendMetadata* find(const model::NativeFunctionsGroup& g) const;
  const model::BackendMetadata* find(const model::FunctionOrGroup& item) const;
  bool has(const model::NativeFunction& f) const { return find(f) != nullptr; }

 private:
  const model::BackendIndex& index_;
  std::unordered_map<const model::NativeFunction*, const model::BackendMetadata*> kernels_;
};

class ApiTable {
 public:
  // The table of a run whose code is compiled against `libtorch` (every entry's options say it).
  explicit ApiTable(const api::LibtorchFacts& libtorch = {}) : libtorch_(libtorch) {}
  const api::LibtorchFacts& libtorch() const { return libtorch_; }

  // f under `options` (api::Options::of(f), or a group's).
  const FunctionApi& of(const model::NativeFunction& f, const api::Options& options) {
    return functions_.get(Key{&f, options.constRefForMutableTensors, options.ilistRefForTensorLists}, f, options);
  }
  const FunctionApi& of(const model::NativeFunction& f) { return of(f, api::Options::of(f, libtorch_)); }
  // The kernels of `index`, an index of `ops`.
  const KernelTable& kernels(const model::Operators& ops, const model::BackendIndex& index);

 private:
  using Key = std::tuple<const model::NativeFunction*, bool, bool>;
  // A function's address ends in zero bits (its alignment), where the options go.
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return reinterpret_cast<size_t>(std::get<0>(k)) ^ (size_t{std::get<1>(k)} << 1) ^ size_t{std::get<2>(k)};
    }
  };
  const api::LibtorchFacts libtorch_;
  support::OnceMap<Key, FunctionApi, KeyHash> functions_;
  std::recursive_mutex namesLock_;
  support::OnceValue<KernelTable::Names> names_;
  support::OnceMap<const model::BackendIndex*, KernelTable> kernels_;
};

}  // namespace opgen::dest
