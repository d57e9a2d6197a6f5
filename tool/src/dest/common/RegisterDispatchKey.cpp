#include "dest/common/RegisterDispatchKey.h"

#include "api/Cpp.h"
#include "api/Translate.h"
#include "dest/common/StructuredKernels.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using model::DispatchKey;
using model::SchemaKind;

// ---------------------------------------------------------------------------------------------
// Snippets

// A definition of the key's direct C++ API (at::cpu::add).
//   $signature$ the C++ API overload's definition head, $wrapper$ the wrapper it calls,
//   $args$ the wrapper's arguments
constexpr std::string_view kDirectDefinition = R"cc(
$signature$ {
return $wrapper$($args$);
}
)cc";

// The anonymous wrapper around a kernel.
//   $signature$ the wrapper's definition head, $device_check$ and $device_guard$ (see below),
//   $kernel$ the kernel's qualified name, $args$ its arguments
constexpr std::string_view kKernelWrapper = R"cc(namespace {

$signature$ {
  $device_check$

  $device_guard$
  return $kernel$($args$);
}

} // anonymous namespace
)cc";

// Meta's in-place kernel for an operator without a meta kernel of its own: only checks.
//   $signature$ the wrapper's definition head, $self$ the in-place argument
constexpr std::string_view kInplaceMetaWrapper = R"cc(
$signature$ {
  TORCH_CHECK_NOT_IMPLEMENTED($self$.is_meta(),
    "Cannot inplace into non-meta tensor with meta tensor argument");
  return $self$;
}
)cc";

// An out= or in-place wrapper that calls the functional wrapper and copies its result.
//   $signature$ the wrapper's definition head, $result$ the functional result's variable,
//   $functional$ the functional wrapper, $args$ its arguments, $updates$ the copies, $returns$ the
//   returned expression
constexpr std::string_view kOutInplaceWrapper = R"cc($signature$ {
  auto $result$ = $functional$($args$);
  $updates$
  return $returns$;
}
)cc";

// The copy of one result into the argument it updates.  $copy$ the copy function, $result$ the
// functional result (or, $i$, its element), $out$ the argument; $type$ the returned tuple, $returns$
// the returned names
constexpr std::string_view kCopyResult = "$copy$($result$, $out$);";
constexpr std::string_view kCopyTupleElement = "$copy$(std::get<$i$>($result$), $out$);";
constexpr std::string_view kReturnedTuple = "$type$($returns$)";

// The copy of a list result into a list out argument.
//   $copy$ the copy function, $result$ the functional result, $out$ the out argument
constexpr std::string_view kCopyListResult = R"cc(    for (int64_t i = 0; i < $result$.size(); ++i) {
        $copy$($result$[i], $out$[i]);
    })cc";

// The dispatcher registration of an unstructured wrapper.
//   $name$ the operator's name, $wrapper$ the wrapper
constexpr std::string_view kRegistration = "m.impl(\"$name$\",\nTORCH_FN($wrapper$));\n";

// Device checks: the head, then one line per tensor argument ($arg$), naming the wrapper ($method$).
constexpr std::string_view kNoDeviceCheck = "  // No device check\n";
constexpr std::string_view kDeviceCheckHead =
    "std::optional<Device> common_device = std::nullopt;\n"
    "(void)common_device; // Suppress unused variable warning\n";
// The same for a libtorch whose c10::optional is not std::optional (check_and_update_common_device
// takes a c10::optional).
constexpr std::string_view kDeviceCheckHeadC10 =
    "c10::optional<Device> common_device = c10::nullopt;\n"
    "(void)common_device; // Suppress unused variable warning\n";
constexpr std::string_view kDeviceCheckArgument =
    "\n  c10::impl::check_and_update_common_device(common_device, $arg$, \"$method$\", \"$arg$\");";

// Device guards: none, for a factory function (with CUDA's lazy initialization first), or on the
// device of the first tensor argument $arg$.
constexpr std::string_view kNoDeviceGuard = "// DeviceGuard omitted";
constexpr std::string_view kFactoryDeviceGuard = "\n  const DeviceGuard device_guard(device_or_default(device));";
constexpr std::string_view kCudaLazyInit = "globalContext().lazyInitDevice(c10::DeviceType::CUDA);\n";
constexpr std::string_view kTensorDeviceGuard = "const OptionalDeviceGuard device_guard(device_of($arg$));";

// ---------------------------------------------------------------------------------------------

// torchgen's gets_generated_out_inplace_wrapper.
bool getsOutInplaceWrapper(const model::NativeFunction& f, const model::NativeFunctionsGroup& g,
                           const KernelTable& kernels) {
  return f.func.kind() != SchemaKind::Functional && !kernels.has(f) && kernels.has(*g.functional);
}

}  // namespace

void KernelCode::clear() {
  anonymousDefinitions.clear();
  namespacedDefinitions.clear();
  namespacedDeclarations.clear();
  registrations.clear();
  registered.clear();
}

std::string lowerKeyName(DispatchKey key) {
  std::string s(model::dispatchKeyName(key));
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

support::Expected<std::string> kernelNamespace(const KernelTable& kernels, DispatchKey key,
                                               const model::FunctionOrGroup& item) {
  const model::BackendMetadata* m = kernels.find(item);
  if (m == nullptr) return std::string("at::native");
  if (!support::contains(m->cppNamespace, "::native"))
    return support::makeError("The kernel for function " + model::representative(item).func.name.str() +
                              " with dispatch key " + std::string(model::dispatchKeyName(key)) +
                              " has a namespace " + m->cppNamespace + " and it's not ending with '::native'.");
  return m->cppNamespace;
}

support::Expected<NamespaceLines> namespaceLines(const std::string& ns, size_t maxLevel) {
  const std::vector<std::string_view> parts = support::split(ns, "::");
  if (parts.size() > maxLevel)
    return support::makeError("Codegen doesn't support more than " + std::to_string(maxLevel) +
                              " level(s) of custom namespace. Got " + ns + ".");
  NamespaceLines lines;
  for (size_t i = 0; i < parts.size(); ++i) {
    lines.prologue.append(i ? "\n" : "").append("namespace ").append(parts[i]).append(" {");
    lines.epilogue.append(i ? "\n" : "").append("} // namespace ").append(parts[parts.size() - 1 - i]);
  }
  return lines;
}

RegisterDispatchKeyEmitter::RegisterDispatchKeyEmitter(const EmitContext& ctx, const model::BackendIndex& index,
                                                       KernelTargets targets, std::string classMethodName)
    : ctx_(ctx),
      index_(index),
      targets_(targets),
      keyName_(model::dispatchKeyName(index.dispatchKey())),
      classMethodName_(std::move(classMethodName)),
      kernels_(ctx.api.kernels(ctx.ops, index)) {}

const std::string* RegisterDispatchKeyEmitter::registeredName(const FunctionApi& f) const {
  return ctx_.selector.isNativeFunctionSelected(f.function()) ? &f.operatorName() : nullptr;
}

bool RegisterDispatchKeyEmitter::fail(const model::NativeFunction& f, const std::string& message) const {
  model::reportError(ctx_.diags, f, message);
  return false;
}

bool RegisterDispatchKeyEmitter::checkSupported(const model::NativeFunction& f) const {
  if (std::optional<std::string> problem = api::cpp::checkSupported(f.func)) return fail(f, *problem);
  return true;
}

void RegisterDispatchKeyEmitter::emit(const model::FunctionOrGroup& item, KernelCode& out) const {
  if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item)) {
    emit(*g, out);
  } else {
    emit(*std::get<const model::NativeFunction*>(item), out);
  }
}

void RegisterDispatchKeyEmitter::emit(const model::NativeFunctionsGroup& g, KernelCode& out) const {
  // Structured groups get generated kernels for Meta and CompositeExplicitAutogradNonFunctional
  // whatever the index says (gen_structured); elsewhere only when the backend's kernel is structured.
  bool structured = g.structured();
  if (structured) {
    const DispatchKey key = index_.dispatchKey();
    if (key == DispatchKey::Meta || key == DispatchKey::CompositeExplicitAutogradNonFunctional) {
      if (kernels_.has(*g.out)) {
        fail(*g.out, key == DispatchKey::Meta
                         ? "Do not explicitly specify Meta dispatch key on structured functions, they will be "
                           "automatically generated for you"
                         : "Do not explicitly specify CompositeExplicitAutograd dispatch key on structured "
                           "functions, they will be automatically generated for you");
        return;
      }
    } else {
      const model::BackendMetadata* metadata = kernels_.find(g);
      structured = metadata != nullptr && metadata->structured;
    }
  }
  if (structured) {
    const StructuredKernelEmitter kernels(*this, g);
    g.forEachFunction([&](const model::NativeFunction& f) { kernels.emit(f, out); });
  } else {
    g.forEachFunction([&](const model::NativeFunction& f) { emitUnstructured(f, &g, out); });
  }
}

// torchgen's gen_unstructured.
void RegisterDispatchKeyEmitter::emitUnstructured(const model::NativeFunction& f, const model::NativeFunctionsGroup* g,
                                                  KernelCode& out) const {
  bool inplaceMeta = false;
  bool outInplaceWrapper = false;
  if (!kernels_.has(f)) {
    if (index_.dispatchKey() == DispatchKey::Meta && f.func.kind() == SchemaKind::Inplace &&
        !f.hasCompositeKernel() && f.func.returns.size() == 1) {
      inplaceMeta = true;  // defer to composites for meta; in-place list operations are not supported
    } else if (!index_.useOutAsPrimary() && g != nullptr && getsOutInplaceWrapper(f, *g, kernels_)) {
      outInplaceWrapper = true;
    } else {
      return;
    }
  }
  if (f.manualKernelRegistration || !checkSupported(f)) return;

  const FunctionApi& api = ctx_.api.of(f);
  if (!targets_.definitions) {
    if (targets_.declarations) emitDirectApi(api, "", WrapperBindings::Dispatcher, out);
    return;
  }
  const DispatcherWrapper& sig = api.dispatcher();
  const std::string name = wrapperName(f, sig);
  if (!emitDirectApi(api, name, WrapperBindings::Dispatcher, out)) return;

  if (inplaceMeta) {
    if (!f.func.arguments.selfArg) {
      fail(f, "Expected self_arg to be non-None for inplace_meta");
      return;
    }
    out.anonymousDefinitions.push_back(
        support::fillSnippet(kInplaceMetaWrapper, {{"signature", sig.defn.withName(name)}, {"self", f.func.arguments.selfArg->name}}));
  } else if (outInplaceWrapper) {
    if (!emitOutInplaceWrapper(api, *g, sig, name, out)) return;
  } else if (!emitKernelWrapper(api, sig, name, out)) {
    return;
  }

  if (ctx_.skipDispatcherOpRegistration) return;
  if (const std::string* op = registeredName(api)) {
    out.registrations.push_back(support::fillSnippet(kRegistration, {{"name", *op}, {"wrapper", name}}));
    out.registered.push_back(&f);
  }
}

std::string RegisterDispatchKeyEmitter::wrapperName(const model::NativeFunction& f, const DispatcherWrapper& sig) const {
  std::string name = "wrapper_";
  name.append(keyName_).append("_").append(f.func.name.overloadName).append("_").append(sig.name);
  return name;
}

bool RegisterDispatchKeyEmitter::emitDirectApi(const FunctionApi& f, const std::string& wrapperName,
                                               WrapperBindings wrapperBindings, KernelCode& out) const {
  const DirectApi& api = f.direct();
  if (targets_.declarations) out.namespacedDeclarations.push_back(api.declarations);
  if (targets_.definitions) {
    const support::Expected<std::vector<std::string>>& args = f.directApiArguments(wrapperBindings);
    if (!args) return fail(f.function(), args.error().message);
    std::string text;
    for (size_t i = 0; i < api.signatures.size(); ++i)
      support::appendSnippet(text, kDirectDefinition,
                    {{"signature", api.definitions[i]}, {"wrapper", wrapperName}, {"args", (*args)[i]}});
    out.namespacedDefinitions.push_back(std::move(text));
  }
  return true;
}

std::string RegisterDispatchKeyEmitter::deviceCheck(const model::NativeFunction& f, std::string_view methodName,
                                                    const api::LibtorchFacts& libtorch) {
  if (f.deviceCheck == model::DeviceCheckType::NoCheck) return std::string(kNoDeviceCheck);
  std::string text(!libtorch.stdOptional ? kDeviceCheckHeadC10 : kDeviceCheckHead);
  auto check = [&](const model::Argument& a) {
    if (a.type.isTensorLike()) support::appendSnippet(text, kDeviceCheckArgument, {{"arg", a.name}, {"method", methodName}});
  };
  for (const model::Argument& a : f.func.arguments.out) check(a);
  for (const model::Argument* a : f.func.arguments.flatPositional()) check(*a);
  return text;
}

std::string RegisterDispatchKeyEmitter::deviceGuard(const model::NativeFunction& f) const {
  if (!f.deviceGuard || !index_.deviceGuard()) return std::string(kNoDeviceGuard);
  const model::Arguments& args = f.func.arguments;
  if (args.tensorOptions) {  // the kernel creates a tensor
    std::string guard(kFactoryDeviceGuard);
    if (model::isCudaDispatchKey(index_.dispatchKey())) guard.insert(0, kCudaLazyInit);
    return guard;
  }
  // The kernel operates on existing tensors: self first, then out arguments, then the positional ones.
  const model::Argument* deviceOf = nullptr;
  auto consider = [&](const model::Argument& a) {
    if (deviceOf == nullptr && a.type.isTensorLike()) deviceOf = &a;
  };
  if (args.selfArg) consider(*args.selfArg);
  for (const model::Argument& a : args.out) consider(a);
  for (const model::Argument* a : args.flatPositional()) consider(*a);
  if (deviceOf == nullptr) return std::string(kNoDeviceGuard);
  return support::fillSnippet(kTensorDeviceGuard, {{"arg", deviceOf->name}});
}

bool RegisterDispatchKeyEmitter::emitKernelWrapper(const FunctionApi& api, const DispatcherWrapper& sig,
                                                   const std::string& name, KernelCode& out) const {
  const model::NativeFunction& f = api.function();
  const model::BackendMetadata* metadata = kernels_.find(f);
  if (metadata == nullptr) return false;
  // The kernel's signature (api::kernelSignature) and the translation are the same for every key.
  const bool symint = metadata->supportsSymInt();
  if (std::optional<std::string> problem = api::kernelSignatureProblem(f, index_, symint)) return fail(f, *problem);
  const support::Expected<std::string>& args = api.kernelArguments(index_.external(), symint);
  if (!args) return fail(f, args.error().message);
  // Backends that need device guards presumably need device checks too.
  const std::string check = index_.deviceGuard() ? deviceCheck(f, name, ctx_.libtorch()) : std::string(kNoDeviceCheck);
  const std::string kernel = metadata->cppNamespace + "::" + (classMethodName_.empty() ? "" : classMethodName_ + "::") +
                             metadata->kernel;
  out.anonymousDefinitions.push_back(support::fillSnippet(kKernelWrapper, {{"signature", sig.defn.withName(name)},
                                                                  {"device_check", check},
                                                                  {"device_guard", deviceGuard(f)},
                                                                  {"kernel", kernel},
                                                                  {"args", *args}}));
  return true;
}

// torchgen's gen_out_inplace_wrapper.
bool RegisterDispatchKeyEmitter::emitOutInplaceWrapper(const FunctionApi& api, const model::NativeFunctionsGroup& g,
                                                       const DispatcherWrapper& sig, const std::string& name,
                                                       KernelCode& out) const {
  const model::NativeFunction& f = api.function();
  const SchemaKind kind = f.func.kind();
  std::string_view copy;
  if (kind == SchemaKind::Inplace) {
    copy = "at::_copy_from";
  } else if (kind == SchemaKind::Out) {
    copy = "at::_copy_from_and_resize";
  } else {
    return fail(f, "gen_out_inplace_wrapper called on a functional op");
  }
  const std::string result = name + "_tmp";
  const std::vector<std::string> returnNames = api::cpp::returnNames(f);
  std::string updates;
  std::string returns;
  if (returnNames.size() > 1) {
    for (size_t i = 0; i < returnNames.size(); ++i) {
      if (i) updates.append("\n  ");
      support::appendSnippet(updates, kCopyTupleElement,
                             {{"copy", copy}, {"i", std::to_string(i)}, {"result", result}, {"out", returnNames[i]}});
    }
    returns = support::fillSnippet(kReturnedTuple, {{"type", sig.sig.returnsType().cppType(false, api.options().spelling())},
                                                    {"returns", support::join(returnNames, ", ")}});
  } else if (returnNames.size() == 1) {
    updates = support::fillSnippet(kCopyResult, {{"copy", copy}, {"result", result}, {"out", returnNames[0]}});
    returns = returnNames[0];
  } else {
    if (f.func.arguments.out.size() != 1)
      return fail(f, "Expected exactly 1 out argument, got " + std::to_string(f.func.arguments.out.size()));
    const model::Argument& outArg = f.func.arguments.out[0];
    if (outArg.type.listLike() != nullptr) {
      updates = support::fillSnippet(kCopyListResult, {{"copy", copy}, {"result", result}, {"out", outArg.name}});
    } else {
      updates = support::fillSnippet(kCopyResult, {{"copy", copy}, {"result", result}, {"out", outArg.name}});
    }
  }
  // The functional wrapper under this function's options (as torchgen's native_function_manager(f)).
  const DispatcherWrapper& functional = ctx_.api.of(*g.functional, api.options()).dispatcher();
  support::Expected<std::vector<api::Expr>> args = api::translate(
      sig.sig.arguments(), functional.sig.arguments(), api::TranslateOptions{.libtorch = api.options().libtorch});
  if (!args) return fail(f, args.error().message);
  out.anonymousDefinitions.push_back(support::fillSnippet(kOutInplaceWrapper, {{"signature", sig.defn.withName(name)},
                                                                      {"result", result},
                                                                      {"functional", wrapperName(*g.functional, functional)},
                                                                      {"args", api::joinExprs(*args)},
                                                                      {"updates", updates},
                                                                      {"returns", returns}}));
  return true;
}

}  // namespace opgen::dest
