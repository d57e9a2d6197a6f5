#include "dest/library/Library.h"

#include <algorithm>
#include <map>

#include "api/LibraryPt2.h"
#include "dest/common/FunctionContext.h"
#include "dest/common/NativeDeclarations.h"
#include "dest/common/OperatorRoots.h"
#include "dest/common/RegisterDispatchKey.h"
#include "dest/library/AotiShims.h"
#include "dest/library/Autograd.h"
#include "dest/library/AutogenKernels.h"
#include "dest/library/Functionalize.h"
#include "dest/library/LibraryApi.h"
#include "dest/library/PythonPackage.h"
#include "dest/library/StableLibrary.h"
#include "support/CodeText.h"
#include "support/Sharding.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using model::DispatchKey;

constexpr std::string_view kAnchorPrefix = "opgen_link_";

// The files, in their folders.
constexpr std::string_view kOperatorsHeader = "Operators.h";
constexpr std::string_view kFunctionsHeader = "Functions.h";
constexpr std::string_view kNativeFunctionsHeader = "NativeFunctions.h";
constexpr std::string_view kOperatorsSource = "Operators.cpp";
constexpr std::string_view kSchemaSource = "RegisterSchema.cpp";
// Per-operator headers (below include/NS/): OP + suffix, and their templates.
constexpr std::string_view kOperatorHeaderDir = "ops/";
struct PerOperatorHeader {
  std::string_view suffix, templateName, aggregate, summary;
};
constexpr PerOperatorHeader kPerOperatorHeaders[] = {
    {"_ops", "PerOperator_ops.h", kOperatorsHeader,
     "The operators of namespace $namespace$ as the dispatcher sees them (their _ops structs)."},
    {"", "PerOperator.h", kFunctionsHeader, "The C++ API of the operators in namespace $namespace$."},
    {"_native", "PerOperator_native.h", kNativeFunctionsHeader,
     "The kernels of the operators in namespace $namespace$ (and their structured meta classes)."},
};
//   $header$ a header's path below the include directory
constexpr std::string_view kInclude = "#include <$header$>";

// Snippets.
//   $namespace$ the library's namespace, $impls$ kFallthrough for each registered operator ($name$)
constexpr std::string_view kAutogradMetaFallthroughs = R"cc(TORCH_LIBRARY_IMPL($namespace$, AutogradMeta, m) {
  $impls$
}
)cc";
constexpr std::string_view kFallthrough = R"cc(m.impl("$name$", torch::CppFunction::makeFallthrough());)cc";
// A block of kernel declarations (its lines).  $ns$ the kernels' namespace
constexpr std::string_view kNamespaceOpen = "namespace $ns$ {";
constexpr std::string_view kNamespaceClose = "} // namespace $ns$";
//   $schema$ an operator's schema as a C++ string literal, $tags$ its at::Tag values
constexpr std::string_view kSchemaDefinition = "m.def($schema$);";
constexpr std::string_view kTaggedSchemaDefinition = "m.def($schema$, {$tags$});";
// $module$: the Python module that registers the fake kernels of the operators defined after it;
// $context$: what PyTorch's error adds (both C++ string literals).
constexpr std::string_view kSetPythonModule = "m.set_python_module($module$, $context$);";
// The Autograd key of the operators without formulas (api::LibraryAutograd), and the ADInplaceOrView
// key of those among them that mutate or alias an argument.
//   $namespace$, $impls$ / $inplace_or_view$ registrations
constexpr std::string_view kAutogradFallbacks = R"cc(
// Operators with a kernel of their own and no derivatives.yaml formulas run below autograd; a gradient
// that reaches one at backward is an error naming it (PyTorch's not-implemented fallback, as torchgen's
// NotImplemented node). Those whose derivatives.yaml entry declares every input non_differentiable run
// below autograd, their outputs without gradient.
TORCH_LIBRARY_IMPL($namespace$, Autograd, m) {
  $impls$
}
)cc";
constexpr std::string_view kInplaceOrViewFallbacks = R"cc(
TORCH_LIBRARY_IMPL($namespace$, ADInplaceOrView, m) {
  $inplace_or_view$
}
)cc";
constexpr std::string_view kNonDifferentiableKernel = R"cc(
namespace {
// The Autograd kernel of an operator declared non-differentiable: the operator below autograd.
void opgen_non_differentiable(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  at::AutoDispatchBelowAutograd guard;
  op.redispatchBoxed(keys & c10::after_autograd_keyset, stack);
}
} // namespace
)cc";
constexpr std::string_view kNotImplementedImpl = R"cc(m.impl("$name$", torch::autograd::autogradNotImplementedFallback());)cc";
constexpr std::string_view kInplaceOrViewImpl =
    R"cc(m.impl("$name$", torch::autograd::autogradNotImplementedInplaceOrViewFallback());)cc";
constexpr std::string_view kNonDifferentiableImpl =
    R"cc(m.impl("$name$", torch::CppFunction::makeFromBoxedFunction<&opgen_non_differentiable>());)cc";
//   $anchor$ the anchor symbol of one registration file
constexpr std::string_view kAnchorDeclaration = R"cc(extern "C" void $anchor$();)cc";
constexpr std::string_view kAnchorCall = "$anchor$();";

// The tensor factories of keys whose structured kernels create outputs, and their headers.
struct Factories {
  std::string_view empty, emptyStrided, header;
};
std::optional<Factories> factoriesOf(DispatchKey key) {
  switch (key) {
    case DispatchKey::CPU: return Factories{"at::detail::empty_cpu", "at::detail::empty_strided_cpu", "ATen/EmptyTensor.h"};
    case DispatchKey::Meta: return Factories{"at::detail::empty_meta", "at::detail::empty_strided_meta", "ATen/EmptyTensor.h"};
    case DispatchKey::CUDA:
      return Factories{"at::detail::empty_cuda", "at::detail::empty_strided_cuda", "ATen/cuda/EmptyTensor.h"};
    case DispatchKey::CompositeExplicitAutogradNonFunctional:
      return Factories{"at::empty", "at::empty_strided", "ATen/ops/empty_strided.h"};
    default: return std::nullopt;
  }
}

std::string registrationFile(DispatchKey key, int shard, int shards) {
  // Appended piece by piece: "literal" + std::string trips GCC 12's -Wrestrict false positive.
  std::string name = "Register";
  name += model::dispatchKeyName(key);
  if (shards > 1) name.append("_").append(std::to_string(shard));
  return name.append(".cpp");
}

std::string anchorSymbol(const std::string& ns) { return std::string(kAnchorPrefix) + ns; }

std::string shardAnchor(const std::string& ns, DispatchKey key, int shard) {
  return anchorSymbol(ns) + "_" + std::string(model::dispatchKeyName(key)) + "_" + std::to_string(shard);
}


// The registration files of a stable-ABI library: one per registered key and shard, as the unstable
// library's, with the same anchors.
std::vector<StableRegistrationFile> stableRegistrationFiles(const LibrarySpec& spec) {
  std::vector<StableRegistrationFile> files;
  for (DispatchKey key : spec.registered)
    for (int shard = 0; shard < spec.shards; ++shard)
      files.push_back({key, shard, registrationFile(key, shard, spec.shards), shardAnchor(spec.ns, key, shard)});
  return files;
}

// The anchor of RegisterAutograd.cpp.
std::string autogradAnchor(const std::string& ns) { return anchorSymbol(ns) + "_Autograd"; }

// The namespace of the item's kernels in the index (they have one; torchgen checks that).
std::string kernelNamespace(const model::FunctionOrGroup& item, const model::BackendIndex& index) {
  if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item)) {
    for (const model::NativeFunction* f : g->functions())
      if (const model::BackendMetadata* m = index.find(f->func.name)) return m->cppNamespace;
  } else if (const model::BackendMetadata* m = index.find(model::representative(item).func.name)) {
    return m->cppNamespace;
  }
  return {};
}

// The kernels' declarations of `items`, by kernel namespace in order of first use, each declaration
// once.
std::vector<std::string> kernelDeclarations(const EmitContext& ctx, const std::vector<const model::FunctionOrGroup*>& items,
                                            const std::string& metaNamespace) {
  std::vector<std::pair<std::string, std::vector<std::string>>> blocks;
  std::set<std::string> seen;
  for (const model::FunctionOrGroup* itemPtr : items) {
    const model::FunctionOrGroup& item = *itemPtr;
    for (const model::BackendIndex& index : ctx.ops.backendIndices()) {
      support::Expected<std::vector<std::string>> decls =
          nativeFunctionDeclarations(item, index, metaNamespace, ctx.libtorch());
      if (!decls) {
        model::reportError(ctx.diags, model::representative(item), decls.error().message);
        continue;
      }
      if (decls->empty()) continue;
      const std::string ns = kernelNamespace(item, index);
      auto block = std::find_if(blocks.begin(), blocks.end(), [&](const auto& b) { return b.first == ns; });
      if (block == blocks.end()) block = blocks.insert(blocks.end(), {ns, {}});
      for (std::string& d : *decls)
        if (seen.insert(d).second) block->second.push_back(std::move(d));
    }
  }
  std::vector<std::string> out;
  for (const auto& [ns, decls] : blocks) {
    out.push_back(support::fillSnippet(kNamespaceOpen, {{"ns", ns}}));
    for (const std::string& d : decls) out.push_back(d);
    out.push_back(support::fillSnippet(kNamespaceClose, {{"ns", ns}}));
    out.emplace_back();
  }
  return out;
}

// kernelDeclarations(), then the inverses of the functionalized views among `functions`.
std::vector<std::string> nativeDeclarations(const EmitContext& ctx, const std::vector<const model::FunctionOrGroup*>& items,
                                            const std::vector<const model::NativeFunction*>& functions) {
  std::vector<std::string> lines = kernelDeclarations(ctx, items, ctx.metaNamespace);
  for (std::string& line : libraryViewInverseDeclarations(ctx, functions)) lines.push_back(std::move(line));
  return lines;
}

std::vector<const model::FunctionOrGroup*> allItems(const model::Operators& ops) {
  std::vector<const model::FunctionOrGroup*> items;
  for (const model::FunctionOrGroup& item : ops.grouped()) items.push_back(&item);
  return items;
}

std::string perOperatorHeaderName(std::string_view root, const PerOperatorHeader& h) {
  return std::string(kOperatorHeaderDir).append(root).append(h.suffix).append(".h");
}

// The NS::meta classes of the structured groups among `items`, in their namespace block (no lines
// when there is none).
std::vector<std::string> metaDeclarationBlock(const EmitContext& ctx, const std::vector<const model::FunctionOrGroup*>& items) {
  std::vector<const model::NativeFunctionsGroup*> groups;
  for (const model::FunctionOrGroup* item : items)
    if (const auto* g = std::get_if<model::NativeFunctionsGroup>(item); g != nullptr && g->structured()) groups.push_back(g);
  if (groups.empty()) return {};
  std::vector<std::string> lines = {support::fillSnippet(kNamespaceOpen, {{"ns", ctx.metaNamespace}})};
  for (std::string& d : metaFunctionDeclarations(groups, ctx.diags, ctx.libtorch())) lines.push_back(std::move(d));
  lines.push_back(support::fillSnippet(kNamespaceClose, {{"ns", ctx.metaNamespace}}));
  lines.emplace_back();
  return lines;
}

// The NS::_ops structs of `functions` (Operators.h, OP_ops.h), errors reported.
std::vector<std::string> operatorDeclarations(const EmitContext& ctx, const std::vector<const model::NativeFunction*>& functions) {
  std::vector<std::string> items;
  for (const model::NativeFunction* f : functions)
    items.push_back(valueOrReport(libraryOperatorDeclaration(*f, ctx.libtorch()), *f, ctx.diags));
  return items;
}

// The C++ API of `functions` in namespace `ns` (Functions.h, OP.h), errors reported.
std::vector<std::string> functionDefinitions(const EmitContext& ctx, const std::string& ns,
                                             const std::vector<const model::NativeFunction*>& functions) {
  const std::string ops = ns + "::_ops";
  std::vector<std::string> items;
  for (const model::NativeFunction* f : functions)
    items.push_back(valueOrReport(libraryFunctionDefinitions(*f, ops, ctx.libtorch()), *f, ctx.diags));
  return items;
}

// include/NS/ops/OP{_ops,,_native}.h for every root name, and the three aggregated headers, which
// include them.
void emitPerOperatorHeaders(const EmitContext& ctx, const LibrarySpec& spec, Writer& out) {
  const std::vector<OperatorRoot> roots = operatorRoots(ctx.ops);
  for (const OperatorRoot& root : roots) {
    auto env = [&](const PerOperatorHeader& h) {
      support::TemplateEnv e;
      e.set("generated_comment", libraryGeneratedComment(h.templateName));
      e.set("namespace", spec.ns);
      e.set("operator", root.name);
      return e;
    };
    const PerOperatorHeader& opsHeader = kPerOperatorHeaders[0];
    out.writeWithTemplate(perOperatorHeaderName(root.name, opsHeader), opsHeader.templateName, [&] {
      support::TemplateEnv e = env(opsHeader);
      e.set("declarations", operatorDeclarations(ctx, root.functions));
      return e;
    });
    const PerOperatorHeader& functionsHeader = kPerOperatorHeaders[1];
    out.writeWithTemplate(perOperatorHeaderName(root.name, functionsHeader), functionsHeader.templateName, [&] {
      support::TemplateEnv e = env(functionsHeader);
      e.set("definitions", functionDefinitions(ctx, spec.ns, root.functions));
      return e;
    });
    const PerOperatorHeader& nativeHeader = kPerOperatorHeaders[2];
    out.writeWithTemplate(perOperatorHeaderName(root.name, nativeHeader), nativeHeader.templateName, [&] {
      support::TemplateEnv e = env(nativeHeader);
      e.set("meta_declarations", metaDeclarationBlock(ctx, root.items));
      e.set("kernel_declarations", nativeDeclarations(ctx, root.items, root.functions));
      return e;
    });
  }
  for (const PerOperatorHeader& h : kPerOperatorHeaders) {
    out.writeWithTemplate(h.aggregate, "PerOperatorAggregate.h", [&] {
      std::vector<std::string> includes;
      for (const OperatorRoot& root : roots)
        includes.push_back(support::fillSnippet(kInclude, {{"header", spec.ns + "/" + perOperatorHeaderName(root.name, h)}}));
      support::TemplateEnv e;
      e.set("generated_comment", libraryGeneratedComment("PerOperatorAggregate.h"));
      e.set("namespace", spec.ns);
      e.set("summary", support::fillSnippet(h.summary, {{"namespace", spec.ns}}));
      e.set("suffix", std::string(h.suffix));
      e.set("includes", std::move(includes));
      return e;
    });
  }
}

void emitHeaders(const EmitContext& ctx, const LibrarySpec& spec, Writer& out) {
  if (spec.perOperatorHeaders) {
    emitPerOperatorHeaders(ctx, spec, out);
    return;
  }
  out.write(kOperatorsHeader, [&] {
    support::TemplateEnv env;
    env.set("generated_comment", libraryGeneratedComment("Operators.h"));
    env.set("namespace", spec.ns);
    env.set("declarations", operatorDeclarations(ctx, ctx.ops.functions()));
    return env;
  });
  out.write(kFunctionsHeader, [&] {
    support::TemplateEnv env;
    env.set("generated_comment", libraryGeneratedComment("Functions.h"));
    env.set("namespace", spec.ns);
    env.set("definitions", functionDefinitions(ctx, spec.ns, ctx.ops.functions()));
    return env;
  });
  out.write(kNativeFunctionsHeader, [&] {
    support::TemplateEnv env;
    env.set("generated_comment", libraryGeneratedComment("NativeFunctions.h"));
    env.set("namespace", spec.ns);
    env.set("meta_namespace", ctx.metaNamespace);
    env.set("meta_declarations", metaFunctionDeclarations(ctx.ops.groups(), ctx.diags, ctx.libtorch()));
    env.set("kernel_declarations", nativeDeclarations(ctx, allItems(ctx.ops), ctx.ops.functions()));
    return env;
  });
}

void emitRegistrations(const EmitContext& ctx, const LibrarySpec& spec, DispatchKey key, Writer& out) {
  // A key no entry names (Meta, when only structured operators have Meta kernels: their meta
  // functions) has no index of the model's: an empty one of its own.
  const model::BackendIndex none(key, /*useOutAsPrimary=*/true, model::isCudaDispatchKey(key) || model::isXpuDispatchKey(key),
                                 /*external=*/false);
  const model::BackendIndex& index = ctx.backendIndex(key).dispatchKey() == key ? ctx.backendIndex(key) : none;
  RegisterDispatchKeyEmitter emitter(ctx, index, KernelTargets{.declarations = false, .definitions = true});
  std::vector<std::vector<std::string>> definitions(spec.shards), registrations(spec.shards);
  // A libtorch without an autograd fallthrough for Meta (1.x has one for CPU, CUDA, ...): without one,
  // operators without autograd formulas cannot run on meta tensors.
  const bool fallthroughs = key == DispatchKey::Meta && !ctx.libtorch().metaAutogradFallthrough;
  std::vector<std::vector<std::string>> autogradMetaImpls(spec.shards);
  KernelCode code;
  for (const model::FunctionOrGroup& item : ctx.ops.grouped()) {
    code.clear();
    emitter.emit(item, code);
    const int shard = support::shardOf(model::representative(item).rootName(), spec.shards);
    for (std::string& d : code.anonymousDefinitions) definitions[shard].push_back(std::move(d));
    for (std::string& r : code.registrations) registrations[shard].push_back(std::move(r));
    if (fallthroughs)
      for (const model::NativeFunction* f : code.registered)
        autogradMetaImpls[shard].push_back(support::fillSnippet(kFallthrough, {{"name", f->func.name.str()}}));
  }
  std::vector<std::string> autogradMeta(spec.shards);
  for (int shard = 0; shard < spec.shards; ++shard)
    if (!autogradMetaImpls[shard].empty())
      autogradMeta[shard] = support::fillSnippet(
          kAutogradMetaFallthroughs, {{"namespace", spec.ns}, {"impls", support::join(autogradMetaImpls[shard], "\n  ")}});
  std::string helpers, includes;
  // With named tensors, structured kernels propagate the outputs' dimension names (namedinference::),
  // declared in a header that a libtorch without them no longer has.
  if (ctx.libtorch().namedTensors) includes = "#include <ATen/NamedTensorUtils.h>\n";
  if (std::optional<Factories> factories = factoriesOf(key)) {
    support::TemplateEnv env;
    env.set("empty", std::string(factories->empty));
    env.set("empty_strided", std::string(factories->emptyStrided));
    const api::Spelling& spelling = api::Spelling::of(ctx.libtorch());
    env.set("optional", std::string(spelling.optional));
    env.set("nullopt", std::string(spelling.nullopt));
    if (std::optional<std::string> text = out.renderTemplate("StructuredHelpers.inc", std::move(env))) helpers = *text;
    includes += "#include <" + std::string(factories->header) + ">";
  }
  if (key == DispatchKey::CUDA) includes += "\n#include <c10/cuda/CUDAGuard.h>";
  const std::string keyName(model::dispatchKeyName(key));
  for (int shard = 0; shard < spec.shards; ++shard) {
    out.writeWithTemplate(registrationFile(key, shard, spec.shards), "RegisterDispatchKey.cpp", [&, shard] {
      support::TemplateEnv env;
      env.set("generated_comment", libraryGeneratedComment("RegisterDispatchKey.cpp"));
      env.set("namespace", spec.ns);
      env.set("dispatch_key", keyName);
      env.set("extra_includes", includes);
      env.set("helpers", helpers);
      env.set("definitions", std::move(definitions[shard]));
      env.set("registrations", std::move(registrations[shard]));
      env.set("autograd_registrations", autogradMeta[shard]);
      env.set("anchor", shardAnchor(spec.ns, key, shard));
      env.set("unit", "register_" + keyName + "_" + std::to_string(shard));
      return env;
    });
  }
}

// The Autograd and ADInplaceOrView registrations of the operators without formulas (api::LibraryAutograd).
std::string autogradFallbacks(const EmitContext& ctx, const LibrarySpec& spec, const model::Derivatives* derivatives) {
  const AutogradCoverage coverage = spec.autograd && derivatives ? autogradCoverage(*derivatives) : AutogradCoverage{};
  std::vector<std::string> impls, inplaceOrView;
  bool nonDifferentiable = false;
  for (const model::NativeFunction* f : ctx.ops.functions()) {
    const std::string name = f->func.name.str();
    const api::LibraryAutograd what =
        api::libraryAutogradOf(*f, coverage.formulas.count(name) > 0, coverage.nonDifferentiable.count(name) > 0);
    if (what == api::LibraryAutograd::NotImplemented) {
      impls.push_back(support::fillSnippet(kNotImplementedImpl, {{"name", name}}));
      if (api::libraryNeedsInplaceOrView(*f)) inplaceOrView.push_back(support::fillSnippet(kInplaceOrViewImpl, {{"name", name}}));
    } else if (what == api::LibraryAutograd::NonDifferentiable) {
      impls.push_back(support::fillSnippet(kNonDifferentiableImpl, {{"name", name}}));
      nonDifferentiable = true;
    }
  }
  std::string code;
  if (nonDifferentiable) code += kNonDifferentiableKernel;
  if (!impls.empty())
    support::appendSnippet(code, kAutogradFallbacks, {{"namespace", spec.ns}, {"impls", support::join(impls, "\n  ")}});
  if (!inplaceOrView.empty())
    support::appendSnippet(code, kInplaceOrViewFallbacks,
                           {{"namespace", spec.ns}, {"inplace_or_view", support::join(inplaceOrView, "\n  ")}});
  if (!code.empty()) code += "\n";  // (a blank line before what follows)
  return code;
}

void emitSources(const EmitContext& ctx, const LibrarySpec& spec, Writer& out, const model::Derivatives* derivatives) {
  out.write(kOperatorsSource, [&] {
    std::vector<std::string> definitions;
    for (const model::NativeFunction* f : ctx.ops.functions())
      definitions.push_back(valueOrReport(libraryOperatorDefinitions(*f, ctx.libtorch()), *f, ctx.diags));
    support::TemplateEnv env;
    env.set("generated_comment", libraryGeneratedComment("Operators.cpp"));
    env.set("namespace", spec.ns);
    env.set("definitions", std::move(definitions));
    return env;
  });
  out.write(kSchemaSource, [&] {
    const api::LibraryPt2Options pt2{
        .libtorch = ctx.libtorch(), .torchTags = spec.torchTags, .defaultTags = spec.defaultTags, .pythonFakes = {}};
    // The operators with a Python fake kernel come last, after set_python_module (which applies to the
    // operators defined after it): on fake or meta tensors without the package imported, PyTorch's
    // error names the module that registers their fake kernels.
    const bool pystubs = spec.pythonFakes && ctx.libtorch().setPythonModule;
    std::vector<std::string> schemas, pythonFakeSchemas, anchors;
    for (const model::NativeFunction* f : ctx.ops.functions()) {
      const std::vector<std::string> tags = api::libraryTags(*f, pt2);
      const std::string schema = support::cppString(f->func.str());
      std::vector<std::string>& into = pystubs && f->pythonFake ? pythonFakeSchemas : schemas;
      if (tags.empty())
        into.push_back(support::fillSnippet(kSchemaDefinition, {{"schema", schema}}));
      else
        into.push_back(support::fillSnippet(
            kTaggedSchemaDefinition, {{"schema", schema}, {"tags", support::joinMapped(tags, ", ", [](const std::string& t) {
                                                             return "at::Tag::" + t;
                                                           })}}));
    }
    if (!pythonFakeSchemas.empty()) {
      const std::string module = libraryPythonFakesModule(spec.ns);
      schemas.push_back(support::fillSnippet(
          kSetPythonModule,
          {{"module", support::cppString(module)},
           {"context", support::cppString("Its fake kernel is in the Python package of operator library " + spec.ns +
                                          " (`import " + spec.ns + "`).")}}));
      schemas.insert(schemas.end(), pythonFakeSchemas.begin(), pythonFakeSchemas.end());
    }
    for (DispatchKey key : spec.registered)
      for (int shard = 0; shard < spec.shards; ++shard) anchors.push_back(shardAnchor(spec.ns, key, shard));
    if (spec.autograd) anchors.push_back(autogradAnchor(spec.ns));
    support::TemplateEnv env;
    env.set("generated_comment", libraryGeneratedComment("RegisterSchema.cpp"));
    env.set("namespace", spec.ns);
    env.set("schemas", std::move(schemas));
    // (the fallbacks end with a blank line; without them, one after TORCH_LIBRARY)
    std::string kernels = autogradFallbacks(ctx, spec, derivatives);
    if (std::string views = libraryFunctionalizeKernels(ctx, spec.ns); !views.empty())
      kernels += (kernels.empty() ? "\n" : "") + views;
    env.set("autograd", std::move(kernels));
    env.set("anchor", anchorSymbol(spec.ns));
    env.set("anchor_declarations", support::joinMapped(anchors, "\n", [](const std::string& a) {
              return support::fillSnippet(kAnchorDeclaration, {{"anchor", a}});
            }));
    env.set("anchor_calls", support::joinMapped(anchors, "\n", [](const std::string& a) {
              return support::fillSnippet(kAnchorCall, {{"anchor", a}});
            }));
    return env;
  });
  for (DispatchKey key : spec.registered) emitRegistrations(ctx, spec, key, out);
  emitAutogenKernels(ctx, spec.ns, out);
  if (spec.autograd) {
    if (derivatives == nullptr) ctx.diags.error({}, "internal error: autograd without derivatives");
    else emitAutograd(ctx, spec.ns, *derivatives, autogradAnchor(spec.ns), out);
  }
}

}  // namespace

std::vector<DispatchKey> libraryRegisteredKeys(const std::vector<DispatchKey>& backends) {
  std::vector<DispatchKey> keys = {DispatchKey::CompositeImplicitAutograd, DispatchKey::CompositeExplicitAutograd,
                                   DispatchKey::Meta};
  for (DispatchKey k : backends)
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  return keys;
}

std::string libraryHeaderDir(const std::string& ns) { return "include/" + ns + "/"; }
std::string librarySourceDir() { return "src/"; }
std::string libraryPythonDir(const std::string& ns) { return "python/" + ns + "/"; }

std::vector<std::string> LibraryFiles::all() const {
  std::vector<std::string> out = headers;
  out.insert(out.end(), sources.begin(), sources.end());
  out.insert(out.end(), python.begin(), python.end());
  return out;
}

LibraryFiles libraryFiles(const LibrarySpec& spec) {
  LibraryFiles files{.ns = spec.ns, .linkAnchor = anchorSymbol(spec.ns), .headers = {}, .sources = {}, .python = {}};
  const std::string headerDir = libraryHeaderDir(spec.ns), sourceDir = librarySourceDir();
  if (spec.stableAbi) {
    files.headers = {headerDir + std::string(kFunctionsHeader), headerDir + std::string(kNativeFunctionsHeader)};
    files.sources = {sourceDir + std::string(kSchemaSource)};
    for (const StableRegistrationFile& f : stableRegistrationFiles(spec)) files.sources.push_back(sourceDir + f.file);
    if (spec.pythonModule)
      for (const std::string& name : libraryPythonFiles(spec.pythonFakes)) files.python.push_back(libraryPythonDir(spec.ns) + name);
    return files;
  }
  for (std::string_view h : {kFunctionsHeader, kNativeFunctionsHeader, kOperatorsHeader})
    files.headers.push_back(headerDir + std::string(h));
  if (spec.perOperatorHeaders)
    for (const std::string& root : spec.operatorRoots)
      for (const PerOperatorHeader& h : kPerOperatorHeaders) files.headers.push_back(headerDir + perOperatorHeaderName(root, h));
  files.sources = {sourceDir + std::string(kOperatorsSource), sourceDir + std::string(kSchemaSource)};
  for (DispatchKey key : spec.registered)
    for (int shard = 0; shard < spec.shards; ++shard)
      files.sources.push_back(sourceDir + registrationFile(key, shard, spec.shards));
  files.sources.push_back(sourceDir + std::string(autogenKernelsSourceFile()));
  if (spec.autograd) files.sources.push_back(sourceDir + std::string(autogradSourceFile()));
  if (spec.pythonModule)
    for (const std::string& name : libraryPythonFiles(spec.pythonFakes)) files.python.push_back(libraryPythonDir(spec.ns) + name);
  if (spec.aotiShims) {
    files.headers.push_back(libraryAotiShimsHeader(spec.ns));
    files.sources.push_back(libraryAotiShimsSource());
    if (spec.pythonModule) files.python.push_back(libraryAotiShimsPython(spec.ns));
  }
  return files;
}

bool checkOperatorHeaderNames(const model::Operators& ops, support::Diagnostics& diags) {
  const int errorsBefore = diags.errorCount();
  std::map<std::string, std::string, std::less<>> owner;  // header -> the operator whose header it is
  for (const OperatorRoot& root : operatorRoots(ops)) {
    for (const PerOperatorHeader& h : kPerOperatorHeaders) {
      const std::string header = perOperatorHeaderName(root.name, h);
      auto [it, added] = owner.emplace(header, root.name);
      if (!added)
        model::reportError(diags, *root.functions.front(),
                           "with per-operator headers, " + header + " would be the header of both '" + it->second +
                               "' and '" + root.name + "'; rename one of them, or turn per-operator headers off");
    }
  }
  return diags.errorCount() == errorsBefore;
}

std::string libraryGeneratedComment(std::string_view templateName) {
  return "@generated by opgen from templates/library/" + std::string(templateName) + "; do not edit";
}

void emitLibrary(const EmitContext& ctx, const LibrarySpec& spec, const LibraryWriters& out,
                 const model::Derivatives* derivatives) {
  if (spec.stableAbi) {
    emitStableLibrary(ctx, spec, anchorSymbol(spec.ns), stableRegistrationFiles(spec), out);
  } else {
    emitHeaders(ctx, spec, out.headers);
    emitSources(ctx, spec, out.sources, derivatives);
  }
  if (spec.pythonModule) {
    if (out.python == nullptr) ctx.diags.error({}, "internal error: no writer for the Python module");
    else
      emitLibraryPython(ctx, spec.ns, spec.pythonLibraryPath,
                        spec.pythonFakes ? std::optional<std::string>(spec.pythonFakesText) : std::nullopt, *out.python);
  }
  if (spec.aotiShims) emitLibraryAotiShims(ctx, spec, out);
}

}  // namespace opgen::dest
