#include "dest/RegisterDispatchKey.h"

#include "api/Cpp.h"
#include "api/Translate.h"
#include "dest/SnippetFill.h"
#include "dest/StructuredKernels.h"

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
}

KernelTable::Names KernelTable::namesOf(const model::Operators& ops) {
  Names names;
  names.reserve(ops.functions().size());
  for (const model::NativeFunction* f : ops.functions()) names.emplace(f->func.name.str(), f);
  return names;
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

DirectApiCache::Entry::Entry(const model::NativeFunction& f, const api::Options& options)
    : group(api::CppSignatureGroup::fromNativeFunction(f, {.method = false, .fallbackBinding = false}, options)),
      signatures(group.signatures(/*symint=*/true)) {
  for (const api::CppSignature* s : signatures) {
    declarations.append("TORCH_API ").append(s->decl()).append(";\n");
    definitions.push_back(s->defn());
  }
}

std::string WrapperCache::NamelessDefn::withName(std::string_view name) const {
  std::string s;
  s.reserve(beforeName.size() + name.size() + afterName.size());
  s.append(beforeName).append(name).append(afterName);
  return s;
}

namespace {

// `sig`'s definition head split where its name goes ("RET NAME(PARAMS)").
template <class Signature>
WrapperCache::NamelessDefn namelessDefn(const Signature& sig) {
  std::string head = sig.defn({.name = std::string()});
  const size_t namePos = sig.returnsType().cppType().size() + 1;
  return {head.substr(0, namePos), head.substr(namePos)};
}

}  // namespace

const WrapperCache::Dispatcher& WrapperCache::dispatcher(const model::NativeFunction& f, const api::Options& options) {
  const Key key = functionApiKey(f, options);
  auto it = dispatcher_.find(key);
  if (it == dispatcher_.end()) {
    api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, options, "", /*symint=*/true);
    std::string name = sig.name();
    NamelessDefn defn = namelessDefn(sig);
    it = dispatcher_.emplace(key, Dispatcher{std::move(sig), std::move(name), std::move(defn)}).first;
  }
  return it->second;
}

const WrapperCache::Native& WrapperCache::native(const model::NativeFunction& f, const api::Options& options,
                                                 bool symint) {
  const std::pair<Key, bool> key{functionApiKey(f, options), symint};
  auto it = native_.find(key);
  if (it == native_.end()) {
    api::NativeSignature sig(f.func, symint, options);
    std::string name = sig.name();
    NamelessDefn defn = namelessDefn(sig);
    it = native_.emplace(key, Native{std::move(sig), std::move(name), std::move(defn)}).first;
  }
  return it->second;
}

const std::string* WrapperCache::registeredName(const model::NativeFunction& f, const OperatorSelector& selector) {
  auto it = registered_.find(&f);
  if (it == registered_.end()) {
    std::optional<std::string> name;
    if (selector.isNativeFunctionSelected(f)) name = f.func.name.str();
    it = registered_.emplace(&f, std::move(name)).first;
  }
  return it->second ? &*it->second : nullptr;
}

const support::Expected<std::string>& WrapperCache::kernelArguments(const model::NativeFunction& f,
                                                                    const api::Options& options, bool external,
                                                                    bool symint) {
  const std::tuple<Key, bool, bool> key{functionApiKey(f, options), external, symint};
  auto it = kernelArgs_.find(key);
  if (it != kernelArgs_.end()) return it->second;
  const std::vector<api::Binding>& wrapperArgs = dispatcherSignature(f, options).arguments();
  std::optional<api::DispatcherSignature> externalSig;
  if (external && !symint) externalSig.emplace(api::DispatcherSignature::fromSchema(f.func, options, "", false));
  const std::vector<api::Binding>& kernelArgs = !external ? nativeSignature(f, options, symint).arguments()
                                                : symint  ? wrapperArgs
                                                          : externalSig->arguments();
  support::Expected<std::vector<api::Expr>> args = api::translate(wrapperArgs, kernelArgs);
  if (!args) return kernelArgs_.emplace(key, args.error()).first->second;
  return kernelArgs_.emplace(key, api::joinExprs(*args)).first->second;
}

const support::Expected<std::vector<std::string>>& WrapperCache::directApiArguments(const model::NativeFunction& f,
                                                                                    const api::Options& options,
                                                                                    const DirectApiCache::Entry& api,
                                                                                    Bindings bindings) {
  const std::pair<Key, Bindings> key{functionApiKey(f, options), bindings};
  auto it = directApi_.find(key);
  if (it != directApi_.end()) return it->second;
  const std::vector<api::Binding>& wrapperArgs =
      bindings == Bindings::Dispatcher
          ? dispatcherSignature(f, options).arguments()
          : nativeSignature(f, options, /*symint=*/bindings == Bindings::SymIntNative).arguments();
  std::vector<std::string> joined;
  for (const api::CppSignature* s : api.signatures) {
    support::Expected<std::vector<api::Expr>> args = api::translate(s->arguments(), wrapperArgs);
    if (!args) return directApi_.emplace(key, args.error()).first->second;
    joined.push_back(api::joinExprs(*args));
  }
  return directApi_.emplace(key, std::move(joined)).first->second;
}

RegisterDispatchKeyEmitter::RegisterDispatchKeyEmitter(const EmitContext& ctx, const model::BackendIndex& index,
                                                       KernelTargets targets, const KernelTable::Names* names,
                                                       DirectApiCache* apiCache, WrapperCache* wrapperCache)
    : ctx_(ctx),
      index_(index),
      targets_(targets),
      keyName_(model::dispatchKeyName(index.dispatchKey())),
      ownNames_(names != nullptr ? nullptr : std::make_unique<KernelTable::Names>(KernelTable::namesOf(ctx.ops))),
      kernels_(index, names != nullptr ? *names : *ownNames_),
      ownApiCache_(apiCache != nullptr ? nullptr : std::make_unique<DirectApiCache>()),
      apiCache_(apiCache != nullptr ? apiCache : ownApiCache_.get()),
      ownWrapperCache_(wrapperCache != nullptr ? nullptr : std::make_unique<WrapperCache>()),
      wrapperCache_(wrapperCache != nullptr ? wrapperCache : ownWrapperCache_.get()) {}

bool RegisterDispatchKeyEmitter::fail(const model::NativeFunction& f, const std::string& message) const {
  ctx_.diags.error(f.loc.sourceLoc(), "in '" + f.func.name.str() + "': " + message);
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

  const api::Options options = api::Options::of(f);
  if (!targets_.definitions) {
    if (targets_.declarations) emitDirectApi(f, options, "", WrapperCache::Bindings::Dispatcher, out);
    return;
  }
  const WrapperCache::Dispatcher& sig = wrapperCache_->dispatcher(f, options);
  const std::string name = wrapperName(f, sig);
  if (!emitDirectApi(f, options, name, WrapperCache::Bindings::Dispatcher, out)) return;

  if (inplaceMeta) {
    if (!f.func.arguments.selfArg) {
      fail(f, "Expected self_arg to be non-None for inplace_meta");
      return;
    }
    out.anonymousDefinitions.push_back(
        fillSnippet(kInplaceMetaWrapper, {{"signature", sig.defn.withName(name)}, {"self", f.func.arguments.selfArg->name}}));
  } else if (outInplaceWrapper) {
    if (!emitOutInplaceWrapper(f, *g, options, sig, name, out)) return;
  } else if (!emitKernelWrapper(f, options, sig, name, out)) {
    return;
  }

  if (ctx_.skipDispatcherOpRegistration) return;
  if (const std::string* op = registeredName(f))
    out.registrations.push_back(fillSnippet(kRegistration, {{"name", *op}, {"wrapper", name}}));
}

std::string RegisterDispatchKeyEmitter::wrapperName(const model::NativeFunction& f,
                                                    const WrapperCache::Dispatcher& sig) const {
  std::string name = "wrapper_";
  name.append(keyName_).append("_").append(f.func.name.overloadName).append("_").append(sig.name);
  return name;
}

bool RegisterDispatchKeyEmitter::emitDirectApi(const model::NativeFunction& f, const api::Options& options,
                                               const std::string& wrapperName, WrapperCache::Bindings wrapperBindings,
                                               KernelCode& out) const {
  const DirectApiCache::Entry& api = apiCache_->get(f, options);
  if (targets_.declarations) out.namespacedDeclarations.push_back(api.declarations);
  if (targets_.definitions) {
    const support::Expected<std::vector<std::string>>& args =
        wrapperCache_->directApiArguments(f, options, api, wrapperBindings);
    if (!args) return fail(f, args.error().message);
    std::string text;
    for (size_t i = 0; i < api.signatures.size(); ++i)
      appendSnippet(text, kDirectDefinition,
                    {{"signature", api.definitions[i]}, {"wrapper", wrapperName}, {"args", (*args)[i]}});
    out.namespacedDefinitions.push_back(std::move(text));
  }
  return true;
}

std::string RegisterDispatchKeyEmitter::deviceCheck(const model::NativeFunction& f, std::string_view methodName) {
  if (f.deviceCheck == model::DeviceCheckType::NoCheck) return std::string(kNoDeviceCheck);
  std::string text(kDeviceCheckHead);
  auto check = [&](const model::Argument& a) {
    if (a.type.isTensorLike()) appendSnippet(text, kDeviceCheckArgument, {{"arg", a.name}, {"method", methodName}});
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
  return fillSnippet(kTensorDeviceGuard, {{"arg", deviceOf->name}});
}

bool RegisterDispatchKeyEmitter::emitKernelWrapper(const model::NativeFunction& f, const api::Options& options,
                                                   const WrapperCache::Dispatcher& sig, const std::string& name,
                                                   KernelCode& out) const {
  const model::BackendMetadata* metadata = kernels_.find(f);
  if (metadata == nullptr) return false;
  // The kernel's signature (api::kernelSignature) and the translation are the same for every key.
  const bool symint = metadata->supportsSymInt();
  if (std::optional<std::string> problem = api::kernelSignatureProblem(f, index_, symint)) return fail(f, *problem);
  const support::Expected<std::string>& args = wrapperCache_->kernelArguments(f, options, index_.external(), symint);
  if (!args) return fail(f, args.error().message);
  // Backends that need device guards presumably need device checks too.
  const std::string check = index_.deviceGuard() ? deviceCheck(f, name) : std::string(kNoDeviceCheck);
  const std::string kernel = metadata->cppNamespace + "::" + metadata->kernel;
  out.anonymousDefinitions.push_back(fillSnippet(kKernelWrapper, {{"signature", sig.defn.withName(name)},
                                                                  {"device_check", check},
                                                                  {"device_guard", deviceGuard(f)},
                                                                  {"kernel", kernel},
                                                                  {"args", *args}}));
  return true;
}

// torchgen's gen_out_inplace_wrapper.
bool RegisterDispatchKeyEmitter::emitOutInplaceWrapper(const model::NativeFunction& f,
                                                       const model::NativeFunctionsGroup& g,
                                                       const api::Options& options,
                                                       const WrapperCache::Dispatcher& sig, const std::string& name,
                                                       KernelCode& out) const {
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
      updates.append(copy).append("(std::get<").append(std::to_string(i)).append(">(").append(result).append("), ");
      updates.append(returnNames[i]).append(");");
    }
    returns = sig.sig.returnsType().cppType() + "(";
    for (size_t i = 0; i < returnNames.size(); ++i) returns.append(i ? ", " : "").append(returnNames[i]);
    returns.append(")");
  } else if (returnNames.size() == 1) {
    updates.append(copy).append("(").append(result).append(", ").append(returnNames[0]).append(");");
    returns = returnNames[0];
  } else {
    if (f.func.arguments.out.size() != 1)
      return fail(f, "Expected exactly 1 out argument, got " + std::to_string(f.func.arguments.out.size()));
    const model::Argument& outArg = f.func.arguments.out[0];
    if (outArg.type.listLike() != nullptr) {
      updates = fillSnippet(kCopyListResult, {{"copy", copy}, {"result", result}, {"out", outArg.name}});
    } else {
      updates.append(copy).append("(").append(result).append(", ").append(outArg.name).append(");");
    }
  }
  const WrapperCache::Dispatcher& functional = wrapperCache_->dispatcher(*g.functional, options);
  support::Expected<std::vector<api::Expr>> args = api::translate(sig.sig.arguments(), functional.sig.arguments());
  if (!args) return fail(f, args.error().message);
  out.anonymousDefinitions.push_back(fillSnippet(kOutInplaceWrapper, {{"signature", sig.defn.withName(name)},
                                                                      {"result", result},
                                                                      {"functional", wrapperName(*g.functional, functional)},
                                                                      {"args", api::joinExprs(*args)},
                                                                      {"updates", updates},
                                                                      {"returns", returns}}));
  return true;
}

}  // namespace opgen::dest
