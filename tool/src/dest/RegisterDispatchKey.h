// The kernels of one dispatch key, function by function: torchgen's RegisterDispatchKey
// (dest/register_dispatch_key.py). For every native function (or group) with a kernel for the key it
// produces
//   - the anonymous wrapper registered with the dispatcher (`wrapper_CPU_add_Tensor`): device checks
//     and guards around a call of the kernel, an out=/in-place wrapper around the functional kernel
//     (backends whose primary kernel is the functional one), or the meta in-place check;
//   - the direct C++ API of the key (`at::cpu::add`), declared in {Key}Functions_inl.h and defined
//     in Register{Key}.cpp as calls of the wrapper;
//   - the `m.impl("add.Tensor", TORCH_FN(...))` registration.
// Structured groups are delegated to StructuredKernelEmitter (dest/StructuredKernels.h).
//
// torchgen computes each of its four targets in a separate pass; here one pass fills the targets
// asked for. Failures (a translation torchgen cannot make, an unsupported schema) are reported to
// ctx.diags at the function's location and the function contributes nothing.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "api/Signatures.h"
#include "dest/Emit.h"
#include "support/Expected.h"
#include "support/OnceMap.h"

namespace opgen::dest {

// Which of torchgen's targets to compute.
struct KernelTargets {
  bool declarations = false;  // Target.NAMESPACED_DECLARATION
  bool definitions = false;   // Target.ANONYMOUS_DEFINITION, NAMESPACED_DEFINITION and REGISTRATION
};

// What one item (native function or group) contributes to each target, one string per function
// (torchgen's lists; a namespaced declaration or definition string covers every C++ overload).
struct KernelCode {
  std::vector<std::string> anonymousDefinitions;
  std::vector<std::string> namespacedDefinitions;
  std::vector<std::string> namespacedDeclarations;
  std::vector<std::string> registrations;

  void clear();
};

// The kernels of one backend index by native function (BackendIndex looks a kernel up by the
// operator's name, which costs building the name's string on every call).
class KernelTable {
 public:
  // Every native function by its operator name (one map can serve the tables of every key).
  using Names = std::unordered_map<std::string, const model::NativeFunction*>;
  static Names namesOf(const model::Operators& ops);

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

// What the caches below are keyed by: a function and the options its signatures depend on.
using FunctionApiKey = std::tuple<const model::NativeFunction*, bool, bool>;
inline FunctionApiKey functionApiKey(const model::NativeFunction& f, const api::Options& options) {
  return {&f, options.constRefForMutableTensors, options.ilistRefForTensorLists};
}
// Hashes of the caches' keys (FunctionApiKey, alone or with a few small values): the caches are
// looked up for every function of every key, and ordered maps of tuples compare slowly. A function's
// address ends in zero bits (its alignment), where the small values go.
struct FunctionApiKeyHash {
  static size_t of(const FunctionApiKey& k) {
    return reinterpret_cast<size_t>(std::get<0>(k)) ^ (size_t{std::get<1>(k)} << 1) ^ size_t{std::get<2>(k)};
  }
  template <class T>
  static size_t mix(size_t h, T v) {
    return h * 31 + static_cast<size_t>(v);
  }
  size_t operator()(const FunctionApiKey& k) const { return of(k); }
  template <class T>
  size_t operator()(const std::pair<FunctionApiKey, T>& k) const {
    return mix(of(k.first), k.second);
  }
  size_t operator()(const std::tuple<FunctionApiKey, bool, bool>& k) const {
    return mix(mix(of(std::get<0>(k)), std::get<1>(k)), std::get<2>(k));
  }
};

// The parts of a function's direct C++ API that are the same in every key's files (torchgen
// computes them again for each key): its CppSignatureGroup, the declarations and the definitions'
// signatures. Filled on use; one cache may serve the emitters of several keys and families, on
// several threads.
class DirectApiCache {
 public:
  struct Entry {
    Entry(const model::NativeFunction& f, const api::Options& options);
    Entry(const Entry&) = delete;  // `signatures` point into `group`
    Entry& operator=(const Entry&) = delete;

    api::CppSignatureGroup group;
    std::vector<const api::CppSignature*> signatures;  // group.signatures(/*symint=*/true)
    std::string declarations;                          // "TORCH_API DECL;\n" for each signature
    std::vector<std::string> definitions;              // each signature's defn()
  };
  // Thread-safe: each entry is computed once, by the first thread that asks for it.
  const Entry& get(const model::NativeFunction& f, const api::Options& options) {
    return entries_.get(functionApiKey(f, options), f, options);
  }

 private:
  support::OnceMap<FunctionApiKey, Entry, FunctionApiKeyHash> entries_;
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
  // op.impl(...) (the backends' kernel call), or the translation's error: made on first use (Meta
  // and CompositeExplicitAutogradNonFunctional do not call impl, and must not fail for its sake).
  std::optional<support::Expected<std::string>> implCall;
};

// The parts of a function's Register{Key}.cpp code that do not depend on the key (torchgen computes
// them again for each key): the signatures of its wrappers, whose names differ only by the key's
// prefix, and the arguments its direct C++ API passes to a wrapper. Filled on use; one cache may serve
// the emitters of several keys, on one thread.
class WrapperCache {
 public:
  // What a wrapper's parameters are: the dispatcher's (unstructured kernels) or the native ones, with
  // SymInt or without (structured kernels, following the backend's kernel).
  enum class Bindings { Dispatcher, Native, SymIntNative };

  // A signature's definition head without its name: the heads of a function's wrappers differ only
  // by the name, which includes the key.
  struct NamelessDefn {
    std::string beforeName;  // "RET "
    std::string afterName;   // "(PARAMS)"
    std::string withName(std::string_view name) const;
  };
  struct Dispatcher {
    api::DispatcherSignature sig;  // SymInt, without a prefix
    std::string name;              // sig.name()
    NamelessDefn defn;
  };
  struct Native {
    api::NativeSignature sig;  // without a prefix
    std::string name;          // sig.name()
    NamelessDefn defn;
  };

  // f's dispatcher signature (SymInt), without a prefix, and the pieces wrappers use.
  const Dispatcher& dispatcher(const model::NativeFunction& f, const api::Options& options);
  const api::DispatcherSignature& dispatcherSignature(const model::NativeFunction& f, const api::Options& options) {
    return dispatcher(f, options).sig;
  }
  // f's native signature, without a prefix, and the pieces wrappers use.
  const Native& native(const model::NativeFunction& f, const api::Options& options, bool symint);
  const api::NativeSignature& nativeSignature(const model::NativeFunction& f, const api::Options& options, bool symint) {
    return native(f, options, symint).sig;
  }
  // What each overload of `api` (f's direct C++ API) passes to a wrapper with `bindings`: the
  // translation's expressions joined, or its error.
  const support::Expected<std::vector<std::string>>& directApiArguments(const model::NativeFunction& f,
                                                                        const api::Options& options,
                                                                        const DirectApiCache::Entry& api,
                                                                        Bindings bindings);
  // What f's unstructured wrapper (dispatcher signature) passes to a backend's kernel, whose signature
  // (api::kernelSignature) is the dispatcher's for external backends and the native one otherwise,
  // SymInt or not: the translation's expressions joined, or its error.
  const support::Expected<std::string>& kernelArguments(const model::NativeFunction& f, const api::Options& options,
                                                        bool external, bool symint);
  // The operator's name in f's registration (m.impl("NAME", ...)), or null when `selector` does not
  // select f: the same for every key, and what building the selector's "ns::name.overload" costs.
  const std::string* registeredName(const model::NativeFunction& f, const OperatorSelector& selector);
  // f's structured wrapper parts, for a kernel with SymInt or without: made by `make` on first use.
  template <class Make>
  support::Expected<StructuredWrapperParts>& structuredWrapper(const model::NativeFunction& f,
                                                              const api::Options& options, bool symint, Make make) {
    const std::pair<Key, bool> key{functionApiKey(f, options), symint};
    auto it = structured_.find(key);
    if (it == structured_.end()) it = structured_.emplace(key, make()).first;
    return it->second;
  }

 private:
  using Key = FunctionApiKey;

  // Unordered: nodes (and the references handed out) never move.
  std::unordered_map<Key, Dispatcher, FunctionApiKeyHash> dispatcher_;
  std::unordered_map<std::pair<Key, bool>, Native, FunctionApiKeyHash> native_;
  std::unordered_map<std::pair<Key, Bindings>, support::Expected<std::vector<std::string>>, FunctionApiKeyHash>
      directApi_;
  std::unordered_map<std::tuple<Key, bool, bool>, support::Expected<std::string>, FunctionApiKeyHash> kernelArgs_;
  std::unordered_map<std::pair<Key, bool>, support::Expected<StructuredWrapperParts>, FunctionApiKeyHash> structured_;
  std::unordered_map<const model::NativeFunction*, std::optional<std::string>> registered_;
};

class RegisterDispatchKeyEmitter {
 public:
  // `index` is torchgen's backend_indices[key]: for a key without kernels, an empty index whose key
  // is Undefined (its wrappers, helpers and checks then follow Undefined, as torchgen's do).
  // `names` (KernelTable::namesOf(ctx.ops)) may be shared between emitters; made here when null.
  // `apiCache` and `wrapperCache` may be shared likewise; made here when null.
  RegisterDispatchKeyEmitter(const EmitContext& ctx, const model::BackendIndex& index, KernelTargets targets,
                             const KernelTable::Names* names = nullptr, DirectApiCache* apiCache = nullptr,
                             WrapperCache* wrapperCache = nullptr);

  // Appends what `item` contributes (torchgen's RegisterDispatchKey.__call__).
  void emit(const model::FunctionOrGroup& item, KernelCode& out) const;
  void emit(const model::NativeFunctionsGroup& g, KernelCode& out) const;
  void emit(const model::NativeFunction& f, KernelCode& out) const { emitUnstructured(f, nullptr, out); }

  // ---- shared with StructuredKernelEmitter ----
  const EmitContext& ctx() const { return ctx_; }
  const model::BackendIndex& index() const { return index_; }
  const KernelTable& kernels() const { return kernels_; }
  model::DispatchKey key() const { return index_.dispatchKey(); }
  const std::string& keyName() const { return keyName_; }
  KernelTargets targets() const { return targets_; }
  // The operator's name in f's registration, or null when the run does not select f.
  const std::string* registeredName(const model::NativeFunction& f) const {
    return wrapperCache_->registeredName(f, ctx_.selector);
  }

  WrapperCache& wrapperCache() const { return *wrapperCache_; }
  // The set_output_* overrides of the key's structured classes by kind of function, indented, in the
  // pieces between the parent's set_output_raw_strided calls of groups with structured_inherits (they
  // depend on nothing else): made on first use.
  std::map<model::SchemaKind, support::Expected<std::vector<std::string>>>& structuredSetOutputs() const {
    return structuredSetOutputs_;
  }

  // The key's direct C++ API for f (every overload of CppSignatureGroup, SymInt ones included):
  // declarations and definitions that call `wrapperName`, whose parameters are `wrapperBindings`.
  bool emitDirectApi(const model::NativeFunction& f, const api::Options& options, const std::string& wrapperName,
                     WrapperCache::Bindings wrapperBindings, KernelCode& out) const;
  // torchgen's gen_device_check: the checks that every tensor argument (out arguments first) is on
  // the same device, naming `methodName` in the message.
  static std::string deviceCheck(const model::NativeFunction& f, std::string_view methodName);
  // Reports `message` at f's location; returns false.
  bool fail(const model::NativeFunction& f, const std::string& message) const;
  // Reports a schema the C++ API cannot express; false when there is one.
  bool checkSupported(const model::NativeFunction& f) const;

 private:
  void emitUnstructured(const model::NativeFunction& f, const model::NativeFunctionsGroup* g, KernelCode& out) const;
  // `sig` is the wrapper's signature without a prefix, `name` the wrapper's name.
  bool emitKernelWrapper(const model::NativeFunction& f, const api::Options& options,
                         const WrapperCache::Dispatcher& sig, const std::string& name, KernelCode& out) const;
  bool emitOutInplaceWrapper(const model::NativeFunction& f, const model::NativeFunctionsGroup& g,
                             const api::Options& options, const WrapperCache::Dispatcher& sig,
                             const std::string& name, KernelCode& out) const;
  std::string deviceGuard(const model::NativeFunction& f) const;
  // torchgen's wrapper_kernel_sig: the name of f's wrapper, wrapper_KEY_OVERLOAD_NAME (so that
  // overloads get distinct names), from `sig` (f's dispatcher signature without a prefix).
  std::string wrapperName(const model::NativeFunction& f, const WrapperCache::Dispatcher& sig) const;

  const EmitContext& ctx_;
  const model::BackendIndex& index_;
  KernelTargets targets_;
  std::string keyName_;
  std::unique_ptr<KernelTable::Names> ownNames_;  // when no names were given
  KernelTable kernels_;
  std::unique_ptr<DirectApiCache> ownApiCache_;  // when no cache was given
  DirectApiCache* apiCache_;
  std::unique_ptr<WrapperCache> ownWrapperCache_;  // when no cache was given
  WrapperCache* wrapperCache_;
  mutable std::map<model::SchemaKind, support::Expected<std::vector<std::string>>> structuredSetOutputs_;
};

}  // namespace opgen::dest
