// The kernels of one dispatch key, function by function: torchgen's RegisterDispatchKey
// (dest/register_dispatch_key.py). For every native function (or group) with a kernel for the key it
// produces
//   - the anonymous wrapper registered with the dispatcher (`wrapper_CPU_add_Tensor`): device checks
//     and guards around a call of the kernel, an out=/in-place wrapper around the functional kernel
//     (backends whose primary kernel is the functional one), or the meta in-place check;
//   - the direct C++ API of the key (`at::cpu::add`), declared in {Key}Functions_inl.h and defined
//     in Register{Key}.cpp as calls of the wrapper;
//   - the `m.impl("add.Tensor", TORCH_FN(...))` registration.
// Structured groups are delegated to StructuredKernelEmitter (dest/common/StructuredKernels.h).
//
// torchgen computes each of its four targets in a separate pass; here one pass fills the targets
// asked for. Failures (a translation torchgen cannot make, an unsupported schema) are reported to
// ctx.diags at the function's location and the function contributes nothing.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/Signatures.h"
#include "dest/common/ApiTable.h"
#include "dest/common/Emit.h"
#include "support/Expected.h"

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
  // The function of each registration, in order.
  std::vector<const model::NativeFunction*> registered;

  void clear();
};

// "cpu" for CPU: the namespace of a key's direct C++ API (at::cpu) and the suffix of its headers
// (torchgen's lower()).
std::string lowerKeyName(model::DispatchKey key);

// torchgen's get_kernel_namespace: the C++ namespace of the item's kernel for `key` (at::native when
// it has none); an error when it does not end in "::native".
support::Expected<std::string> kernelNamespace(const KernelTable& kernels, model::DispatchKey key,
                                               const model::FunctionOrGroup& item);

// torchgen's NamespaceHelper: the lines that open and close the nested namespace `ns` (at most
// `maxLevel` levels: an error beyond).
struct NamespaceLines {
  std::string prologue, epilogue;
};
support::Expected<NamespaceLines> namespaceLines(const std::string& ns, size_t maxLevel);

class RegisterDispatchKeyEmitter {
 public:
  // `index` is torchgen's backend_indices[key]: for a key without kernels, an empty index whose key
  // is Undefined (its wrappers, helpers and checks then follow Undefined, as torchgen's do). What
  // does not depend on the key comes from the run's table (ctx.api).
  // `classMethodName`: the class that an external backend's unstructured kernels are static members
  // of (torchgen's class_method_name: XLANativeFunctions), or empty.
  RegisterDispatchKeyEmitter(const EmitContext& ctx, const model::BackendIndex& index, KernelTargets targets,
                             std::string classMethodName = {});

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
  const std::string& classMethodName() const { return classMethodName_; }
  // The operator's name in f's registration, or null when the run does not select f.
  const std::string* registeredName(const FunctionApi& f) const;
  // The set_output_* overrides of the key's structured classes by kind of function, indented, in the
  // pieces between the parent's set_output_raw_strided calls of groups with structured_inherits (they
  // depend on nothing else): made on first use.
  std::map<model::SchemaKind, support::Expected<std::vector<std::string>>>& structuredSetOutputs() const {
    return structuredSetOutputs_;
  }

  // The key's direct C++ API for f (every overload of CppSignatureGroup, SymInt ones included):
  // declarations and definitions that call `wrapperName`, whose parameters are `wrapperBindings`.
  bool emitDirectApi(const FunctionApi& f, const std::string& wrapperName, WrapperBindings wrapperBindings,
                     KernelCode& out) const;
  // torchgen's gen_device_check: the checks that every tensor argument (out arguments first) is on
  // the same device, naming `methodName` in the message; its optional spelled for `libtorch`.
  static std::string deviceCheck(const model::NativeFunction& f, std::string_view methodName,
                                 const api::LibtorchFacts& libtorch = {});
  // Reports `message` at f's location; returns false.
  bool fail(const model::NativeFunction& f, const std::string& message) const;
  // Reports a schema the C++ API cannot express; false when there is one.
  bool checkSupported(const model::NativeFunction& f) const;

 private:
  void emitUnstructured(const model::NativeFunction& f, const model::NativeFunctionsGroup* g, KernelCode& out) const;
  // `sig` is the wrapper's signature without a prefix, `name` the wrapper's name.
  bool emitKernelWrapper(const FunctionApi& f, const DispatcherWrapper& sig, const std::string& name, KernelCode& out) const;
  bool emitOutInplaceWrapper(const FunctionApi& f, const model::NativeFunctionsGroup& g, const DispatcherWrapper& sig,
                             const std::string& name, KernelCode& out) const;
  std::string deviceGuard(const model::NativeFunction& f) const;
  // torchgen's wrapper_kernel_sig: the name of f's wrapper, wrapper_KEY_OVERLOAD_NAME (so that
  // overloads get distinct names), from `sig` (f's dispatcher signature without a prefix).
  std::string wrapperName(const model::NativeFunction& f, const DispatcherWrapper& sig) const;

  const EmitContext& ctx_;
  const model::BackendIndex& index_;
  KernelTargets targets_;
  std::string keyName_;
  std::string classMethodName_;
  const KernelTable& kernels_;
  mutable std::map<model::SchemaKind, support::Expected<std::vector<std::string>>> structuredSetOutputs_;
};

}  // namespace opgen::dest
