#include "dest/common/StructuredKernels.h"

#include "api/Structured.h"
#include "api/Translate.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using model::DispatchKey;
using model::SchemaKind;
using support::Expected;
using support::makeError;

// ---------------------------------------------------------------------------------------------
// Snippets

// One set_output_* override of the structured class, up to the line of the call of the parent's
// set_output_raw_strided when the group inherits from a class of its own (kSetOutputSuper indented),
// which is empty otherwise; kSetOutputEnd follows that line.
//   $name$ strided or raw_strided, $body$ what it does (indented), $names$ the extra parameter of
//   libtorch 1.x (kNamesParameter), or nothing
constexpr std::string_view kSetOutputFunction = R"cc(
void set_output_$name$(
    int64_t output_idx, IntArrayRef sizes, IntArrayRef strides,
    TensorOptions options$names$
) override {
$body$
    // super must happen after, so that downstream can use maybe_get_output
    // to retrieve the output
)cc";
constexpr std::string_view kSetOutputEnd = "\n}\n";

// The parent's set_output_raw_strided, for groups with `structured_inherits`.  $parent$ the parent class
constexpr std::string_view kSetOutputSuper = "$parent$::set_output_raw_strided(output_idx, sizes, strides, options$names$);";

// libtorch 1.x (EmitContext::libtorch()): set_output_* also take the outputs' dimension names, which
// the outputs then carry.
constexpr std::string_view kNamesParameter = ", DimnameList names";
constexpr std::string_view kNamesArgument = ", names";
constexpr std::string_view kPropagateNames =
    "\nif (!names.empty()) namedinference::propagate_names(maybe_get_output(output_idx), names);";

// On devices with a guard: the outputs must all be on one device, which the guard switches to.
constexpr std::string_view kSetDeviceGuard = R"cc(
auto current_device = guard_.current_device();
if (C10_UNLIKELY(current_device.has_value())) {
  TORCH_INTERNAL_ASSERT(*current_device == options.device(),
    "structured kernels don't support multi-device outputs");
} else {
  guard_.reset_device(options.device());
}
)cc";

// set_output_strided of out= and in-place kernels: a temporary output when the strides differ.
constexpr std::string_view kCreateProxy = R"cc(
auto maybe_proxy = maybe_create_proxy(out, sizes, strides, options);
if (C10_UNLIKELY(maybe_proxy.has_value())) {
    proxy_outputs_[output_idx] = std::move(maybe_proxy).value();
}
)cc";

// The bodies of set_output_* by kind.  $guard$ kSetDeviceGuard and a newline, or nothing;
// $proxy$ kCreateProxy or nothing
constexpr std::string_view kSetOutputFunctional = "$guard$\noutputs_[output_idx] = create_out(sizes, strides, options);";
constexpr std::string_view kSetOutputInplace = R"cc($guard$
const auto& out = outputs_[output_idx].get();
check_inplace(out, sizes, options);
$proxy$)cc";
constexpr std::string_view kSetOutputOut = R"cc($guard$
const auto& out = outputs_[output_idx].get();
resize_out(out, sizes, strides, options);
$proxy$)cc";

// The constructors of the in-place and out= classes.  $class$ the class, $params$ `Tensor& out0, ...`,
// $refs$ `std::ref(out0), ...`
constexpr std::string_view kInplaceConstructor = "$class$(Tensor& self) : outputs_{std::ref(self)} {}";
constexpr std::string_view kOutConstructor = "$class$($params$) : outputs_{ $refs$ } {}";

// The lines of the class (empty ones are left out).  $class$, $parent$, $constructor$ and
// $set_output$ (indented), $output_value$ what maybe_get_output returns, $output_type$ and $count$
// the outputs' array, $proxy_field$ and $guard_field$ (indented) further members
constexpr std::string_view kClassLines[] = {
    "struct $class$ final : public $parent$ {",
    "$constructor$",
    "$set_output$",
    "    const Tensor& maybe_get_output(int64_t output_idx) override {",
    "      return $output_value$;\n",
    "    }",
    "    std::array<$output_type$, $count$> outputs_;",
    "$proxy_field$",
    "$guard_field$",
    "};",
};
//   $optional$ the libtorch's optional, $count$ the outputs
constexpr std::string_view kProxyField = "std::array<$optional$<Tensor>, $count$> proxy_outputs_;";

// The anonymous definition: the class, then the wrapper.  $class_definition$, $signature$ the
// wrapper's definition head, $body$ its statements
constexpr std::string_view kStructuredWrapper = R"cc($class_definition$

$signature$ {
$body$
}
)cc";

// The statements of the wrapper.  $class$ the class, $outs$ the out arguments, $args$ arguments,
// $i$ an output's index, $name$ a function's name
constexpr std::string_view kConstructFunctional = "$class$ op;";
constexpr std::string_view kConstructInplace = "$class$ op(self);";
constexpr std::string_view kConstructOut = "$class$ op($outs$);";
constexpr std::string_view kCallMetaPrecompute = "auto precompute = op.meta($args$);\n(void)precompute;";
constexpr std::string_view kCallMeta = "op.meta($args$);";
constexpr std::string_view kCallOutFunction = "at::$name$($args$);";
constexpr std::string_view kCallImpl = "op.impl($args$);";
constexpr std::string_view kCopyProxy =
    "if (op.proxy_outputs_[$i$].has_value()) op.outputs_[$i$].get().copy_(*op.proxy_outputs_[$i$]);";
// An output after meta(), as the kernel's call takes it.  $i$ its index
constexpr std::string_view kOutOutput = "op.maybe_get_output($i$)";
constexpr std::string_view kOutput = "op.outputs_[$i$]";
// What the wrapper returns.  $i$ an output's index, $outputs$ the joined outputs, $result$ the whole
constexpr std::string_view kMovedOutput = "std::move(op.outputs_[$i$])";
constexpr std::string_view kMakeTuple = "std::make_tuple($outputs$)";
constexpr std::string_view kForwardAsTuple = "std::forward_as_tuple($outputs$)";
constexpr std::string_view kReturn = "return $result$;";
// The out= constructor's parameters and the references it stores.  $i$ an output's index
constexpr std::string_view kOutParam = "Tensor& out$i$";
constexpr std::string_view kOutRef = "std::ref(out$i$)";

// The registration.  $name$ the operator, $wrapper$ the wrapper
constexpr std::string_view kRegistration = "m.impl(\"$name$\", TORCH_FN($wrapper$));";

// ---------------------------------------------------------------------------------------------

bool hasDeviceGuardField(DispatchKey key) {
  return key == DispatchKey::CUDA || key == DispatchKey::CompositeExplicitAutogradNonFunctional ||
         key == DispatchKey::MPS || key == DispatchKey::XPU || key == DispatchKey::MTIA;
}

std::string guardField(DispatchKey key) {
  if (key == DispatchKey::CUDA) return "c10::cuda::OptionalCUDAGuard guard_;";
  return hasDeviceGuardField(key) ? "c10::OptionalDeviceGuard guard_;" : "";
}

bool setsDeviceGuard(DispatchKey key) {
  return key == DispatchKey::CUDA || key == DispatchKey::MPS || key == DispatchKey::XPU ||
         key == DispatchKey::CompositeExplicitAutogradNonFunctional;
}

bool createsFunctionalOutputs(DispatchKey key) {
  return key == DispatchKey::Meta || key == DispatchKey::CPU || key == DispatchKey::CUDA || key == DispatchKey::MPS ||
         key == DispatchKey::XPU || key == DispatchKey::MTIA || key == DispatchKey::CompositeExplicitAutogradNonFunctional;
}

support::Error unsupportedKind(SchemaKind kind) {
  return makeError(std::string("SchemaKind.") + std::string(model::schemaKindName(kind)) +
                   " structured operators are currently not supported");
}

}  // namespace

void StructuredKernelEmitter::emit(const model::NativeFunction& f, KernelCode& out) const {
  if (f.manualKernelRegistration) {
    base_.fail(f, "Function " + f.func.name.str() + " has manual_kernel_registration=True");
    return;
  }
  // CompositeExplicitAutogradNonFunctional never gets a default out= kernel: backends define that one.
  const DispatchKey key = base_.key();
  if (key == DispatchKey::CompositeExplicitAutogradNonFunctional && f.func.kind() == SchemaKind::Out) return;
  if (!base_.checkSupported(f)) return;

  const FunctionApi& api = base_.ctx().api.of(f);
  const KernelTargets targets = base_.targets();
  const model::BackendMetadata* kernel = base_.kernels().find(f);
  const bool symint = kernel != nullptr && kernel->supportsSymInt();
  const WrapperBindings bindings = symint ? WrapperBindings::SymIntNative : WrapperBindings::Native;
  if (!targets.definitions) {
    if (targets.declarations) base_.emitDirectApi(api, "", bindings, out);
    return;
  }
  // The wrapper's signature is the native one, named wrapper_KEY_NAME.
  const NativeWrapper& sig = api.native(symint);
  const std::string name = "wrapper_" + base_.keyName() + "_" + sig.name;
  if (!base_.emitDirectApi(api, name, bindings, out)) return;
  Expected<std::string> definition = anonymousDefinition(api, sig, name);
  if (!definition) {
    base_.fail(f, definition.error().message);
    return;
  }
  out.anonymousDefinitions.push_back(definition.take());
  if (const std::string* op = base_.registeredName(api)) {
    out.registrations.push_back(support::fillSnippet(kRegistration, {{"name", *op}, {"wrapper", name}}));
    out.registered.push_back(&f);
  }
}

Expected<StructuredKernelEmitter::ClassNames> StructuredKernelEmitter::classNames(SchemaKind kind) const {
  const std::string_view kindName = model::schemaKindName(kind);
  const DispatchKey key = base_.key();
  if (key == DispatchKey::Meta || key == DispatchKey::CompositeExplicitAutogradNonFunctional) {
    const std::string meta = api::meta::name(g_);
    const std::string infix = key == DispatchKey::Meta ? "_meta_" : "_default_backend_";
    return ClassNames{"structured_" + meta + infix + std::string(kindName),
                      base_.ctx().metaNamespace + "::structured_" + meta};
  }
  const model::BackendMetadata* metadata = base_.kernels().find(g_);
  if (metadata == nullptr) return makeError("No kernel metadata found for " + g_.functional->func.name.str());
  // An external backend's structured kernel is a member of its class (beyond torchgen).
  const std::string& owner = base_.classMethodName();
  return ClassNames{"structured_" + metadata->kernel + "_" + std::string(kindName),
                    metadata->cppNamespace + "::" + (owner.empty() ? "" : owner + "::") + "structured_" + metadata->kernel};
}

Expected<std::string> StructuredKernelEmitter::anonymousDefinition(const FunctionApi& api, const NativeWrapper& sig,
                                                                   const std::string& name) const {
  const model::NativeFunction& f = api.function();
  const SchemaKind kind = f.func.kind();
  Expected<ClassNames> names = classNames(kind);
  if (!names) return names.error();
  Expected<std::string> body = wrapperBody(api, sig, name, names->name);
  if (!body) return body;
  Expected<std::string> definition = classDefinition(f, kind, *names);
  if (!definition) return definition;
  return support::fillSnippet(kStructuredWrapper, {{"class_definition", *definition}, {"signature", sig.defn.withName(name)}, {"body", *body}});
}

// The wrapper's statements: construct the class, run meta (keeping what it precomputes), run the
// kernel on the outputs (as the impl's arguments), copy proxies back, return the outputs. All but the
// construction and the kernel's call are the same for every key (FunctionApi::structuredWrapper).
Expected<std::string> StructuredKernelEmitter::wrapperBody(const FunctionApi& api, const NativeWrapper& sig,
                                                           const std::string& name,
                                                           const std::string& className) const {
  const model::NativeFunction& f = api.function();
  const SchemaKind kind = f.func.kind();
  const DispatchKey key = base_.key();
  const Expected<StructuredWrapperParts>& parts =
      api.structuredWrapper(sig.sig.symint(), [&] { return wrapperParts(f, sig); });
  if (!parts) return parts.error();

  std::string body;
  if (base_.index().deviceGuard()) body.append(RegisterDispatchKeyEmitter::deviceCheck(f, name, base_.ctx().libtorch())).push_back('\n');
  if (kind == SchemaKind::Functional) {
    support::appendSnippet(body, kConstructFunctional, {{"class", className}});
  } else if (kind == SchemaKind::Inplace) {
    support::appendSnippet(body, kConstructInplace, {{"class", className}});
  } else if (kind == SchemaKind::Out) {
    std::string outs;
    for (size_t i = 0; i < f.func.arguments.out.size(); ++i) outs.append(i ? ", " : "").append(f.func.arguments.out[i].name);
    support::appendSnippet(body, kConstructOut, {{"class", className}, {"outs", outs}});
  }
  body.append("\n").append(parts->metaCall);

  if (key == DispatchKey::CompositeExplicitAutogradNonFunctional) {
    // The default backend runs the out= function on the outputs.
    const api::CppSignatureGroup outGroup = api::CppSignatureGroup::fromNativeFunction(
        *g_.out, {.method = false, .fallbackBinding = f.manualCppBinding}, api.options());
    const api::CppSignature& outSig = outGroup.mostFaithfulSignature();
    Expected<std::vector<api::Expr>> outExprs =
        api::translate(parts->context, outSig.arguments(), api::TranslateOptions{.libtorch = base_.ctx().libtorch()});
    if (!outExprs) return outExprs.error();
    body.push_back('\n');
    support::appendSnippet(body, kCallOutFunction, {{"name", outSig.name()}, {"args", api::joinExprs(*outExprs)}});
  } else if (key != DispatchKey::Meta) {
    if (!parts->implCall) return parts->implCall.error();
    body.append("\n").append(*parts->implCall);
  }
  if (!parts->epilogue) return parts->epilogue.error();
  body.append("\n").append(*parts->epilogue);
  return body;
}

Expected<StructuredWrapperParts> StructuredKernelEmitter::wrapperParts(const model::NativeFunction& f,
                                                                      const NativeWrapper& sig) const {
  const SchemaKind kind = f.func.kind();
  StructuredWrapperParts parts;
  parts.context = api::toExprs(sig.sig.arguments());
  std::vector<api::Expr>& context = parts.context;

  const api::TranslateOptions translation{.libtorch = base_.ctx().libtorch()};
  Expected<std::vector<api::Expr>> metaArgs = api::translate(context, api::structured::metaArguments(g_), translation);
  if (!metaArgs) return metaArgs.error();
  if (const std::optional<model::Precompute>& precomputed = g_.out->precomputed) {
    // meta() returns a struct of the precomputed values; the impl takes them as arguments.
    parts.metaCall = support::fillSnippet(kCallMetaPrecompute, {{"args", api::joinExprs(*metaArgs)}});
    auto addToContext = [&](const std::vector<model::Argument>& elements) {
      for (const model::Argument& a : elements)
        context.push_back(api::Expr{"precompute." + a.name, api::structured::argumentType(a, a.name)});
    };
    for (const auto& [name, elements] : precomputed->replace) addToContext(elements);
    addToContext(precomputed->add);
  } else {
    parts.metaCall = support::fillSnippet(kCallMeta, {{"args", api::joinExprs(*metaArgs)}});
  }

  // After meta(), the outputs are valid.
  const api::CType tensorRef = api::CType::constRef(api::CType::base(api::tensorT));
  const std::vector<api::Binding> outArgs = api::structured::outArguments(g_);
  for (size_t i = 0; i < outArgs.size(); ++i) {
    if (!(outArgs[i].nctype.type == tensorRef))
      return makeError("Expected out_arg type to be ConstRefCType(BaseCType(tensorT)), got " +
                       outArgs[i].nctype.type.cppType());
    const std::string index = std::to_string(i);
    context.push_back(api::Expr{support::fillSnippet(kind == SchemaKind::Out ? kOutOutput : kOutput, {{"i", index}}),
                                api::NamedCType{outArgs[i].nctype.name, api::CType::mutRef(api::CType::base(api::tensorT))}});
  }
  Expected<std::vector<api::Expr>> implArgs = api::translate(context, api::structured::implArguments(g_), translation);
  if (implArgs) parts.implCall = support::fillSnippet(kCallImpl, {{"args", api::joinExprs(*implArgs)}});
  else parts.implCall = implArgs.error();

  std::string& epilogue = *parts.epilogue;
  const size_t returns = f.func.returns.size();
  if (kind == SchemaKind::Out || kind == SchemaKind::Inplace) {
    for (size_t i = 0; i < returns; ++i) {
      support::appendSnippet(epilogue, kCopyProxy, {{"i", std::to_string(i)}});
      epilogue.push_back('\n');
    }
  }
  const model::Arguments& args = f.func.arguments;
  std::string result;
  if (kind == SchemaKind::Functional) {
    std::vector<std::string> outputs;
    for (size_t i = 0; i < returns; ++i) outputs.push_back(support::fillSnippet(kMovedOutput, {{"i", std::to_string(i)}}));
    result = returns == 1 ? outputs[0] : support::fillSnippet(kMakeTuple, {{"outputs", support::join(outputs, ", ")}});
  } else if (kind == SchemaKind::Inplace) {
    result = "self";
  } else if (kind == SchemaKind::Out) {
    std::vector<std::string> outputs;
    for (const model::Argument& out : args.out) outputs.push_back(out.name);
    result = returns == 1 ? outputs[0] : support::fillSnippet(kForwardAsTuple, {{"outputs", support::join(outputs, ", ")}});
  } else {
    parts.epilogue = unsupportedKind(kind);
    return parts;
  }
  support::appendSnippet(epilogue, kReturn, {{"result", result}});
  return parts;
}

Expected<std::string> StructuredKernelEmitter::classDefinition(const model::NativeFunction& f, SchemaKind kind,
                                                               const ClassNames& names) const {
  const size_t returns = f.func.returns.size();
  const std::string count = std::to_string(returns);
  std::string outputType, outputValue, proxyField, constructor;
  if (kind == SchemaKind::Functional) {
    outputType = "Tensor";
    outputValue = "outputs_[output_idx]";
  } else if (kind == SchemaKind::Inplace || kind == SchemaKind::Out) {
    outputType = "std::reference_wrapper<Tensor>";
    outputValue = "proxy_outputs_[output_idx].has_value() ? *proxy_outputs_[output_idx] : outputs_[output_idx].get()";
    proxyField =
        support::fillSnippet(kProxyField, {{"optional", api::Spelling::of(base_.ctx().libtorch()).optional}, {"count", count}});
    if (kind == SchemaKind::Inplace) {
      constructor = support::fillSnippet(kInplaceConstructor, {{"class", names.name}});
    } else {
      std::vector<std::string> params, refs;
      for (size_t i = 0; i < returns; ++i) {
        const std::string index = std::to_string(i);
        params.push_back(support::fillSnippet(kOutParam, {{"i", index}}));
        refs.push_back(support::fillSnippet(kOutRef, {{"i", index}}));
      }
      constructor = support::fillSnippet(
          kOutConstructor,
          {{"class", names.name}, {"params", support::join(params, ", ")}, {"refs", support::join(refs, ", ")}});
    }
  } else {
    return makeError("Unsupported SchemaKind SchemaKind." + std::string(model::schemaKindName(kind)));
  }
  constexpr std::string_view kIndent = "    ";
  auto& shared = base_.structuredSetOutputs();
  auto it = shared.find(kind);
  if (it == shared.end()) it = shared.emplace(kind, setOutputFunctions(kind)).first;
  const Expected<std::vector<std::string>>& pieces = it->second;
  if (!pieces) return pieces.error();
  // The set_output_* functions, with the parent's set_output_raw_strided for a group with
  // structured_inherits (a line of its own in each function, indented twice).
  std::string super;
  if (g_.out->structuredInherits) {
    super = support::indentLines(
        support::fillSnippet(kSetOutputSuper, {{"parent", names.parent}, {"names", base_.ctx().libtorch().namedTensors ? kNamesArgument : ""}}),
        "        ");
  }
  std::string setOutput;
  for (size_t i = 0; i < pieces->size(); ++i) {
    if (i) setOutput.append(super);
    setOutput.append((*pieces)[i]);
  }

  const std::string constructorLines = support::indentLines(constructor, kIndent);
  const std::string proxyLines = support::indentLines(proxyField, kIndent);
  const std::string guardLines = support::indentLines(guardField(base_.key()), kIndent);
  std::string text;
  for (std::string_view line : kClassLines) {
    const size_t before = text.size();
    if (before) text.push_back('\n');
    support::appendSnippet(text, line, {{"class", names.name},
                               {"parent", names.parent},
                               {"constructor", constructorLines},
                               {"set_output", setOutput},
                               {"output_value", outputValue},
                               {"output_type", outputType},
                               {"count", count},
                               {"proxy_field", proxyLines},
                               {"guard_field", guardLines}});
    if (text.size() == before + (before ? 1 : 0)) text.resize(before);  // a line that comes out empty is left out
  }
  return text;
}

// The set_output_* functions indented, split where the parent's calls go (see kSetOutputFunction).
Expected<std::vector<std::string>> StructuredKernelEmitter::setOutputFunctions(SchemaKind kind) const {
  constexpr std::string_view kIndent = "    ";
  const bool names = base_.ctx().libtorch().namedTensors;
  std::vector<std::string> pieces;
  std::string text = "\n";
  for (const bool strided : {true, false}) {
    Expected<std::string> body = setOutputBody(kind, /*createProxy=*/strided);
    if (!body) return body.error();
    if (names) body->append(kPropagateNames);
    support::appendSnippet(text, kSetOutputFunction,
                  {{"name", strided ? "strided" : "raw_strided"},
                   {"names", names ? kNamesParameter : ""},
                   {"body", support::indentLines(*body, kIndent)}});
    // Each piece ends a line, and the next starts one: indenting them one by one is indenting the whole.
    pieces.push_back(support::indentLines(text, kIndent));
    text.assign(kSetOutputEnd).push_back('\n');
  }
  pieces.push_back(support::indentLines(text, kIndent));
  return pieces;
}

Expected<std::string> StructuredKernelEmitter::setOutputBody(SchemaKind kind, bool createProxy) const {
  const DispatchKey key = base_.key();
  const std::string guard = setsDeviceGuard(key) ? std::string(kSetDeviceGuard) + "\n" : std::string();
  const std::string_view proxy = createProxy ? kCreateProxy : std::string_view();
  switch (kind) {
    case SchemaKind::Functional:
      // An external backend's structured kernels create outputs with at::empty (beyond torchgen).
      if (!createsFunctionalOutputs(key) && !base_.index().external())
        return makeError("Unexpected dispatch key " + base_.keyName() + " for functional schema");
      return support::fillSnippet(kSetOutputFunctional, {{"guard", guard}});
    case SchemaKind::Inplace: return support::fillSnippet(kSetOutputInplace, {{"guard", guard}, {"proxy", proxy}});
    case SchemaKind::Out: return support::fillSnippet(kSetOutputOut, {{"guard", guard}, {"proxy", proxy}});
    case SchemaKind::Mutable:
    case SchemaKind::Scratch: break;
  }
  return unsupportedKind(kind);
}

}  // namespace opgen::dest
