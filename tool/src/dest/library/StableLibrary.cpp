#include "dest/library/StableLibrary.h"

#include <algorithm>
#include <set>

#include "api/LibraryPt2.h"
#include "dest/library/Library.h"
#include "support/CodeText.h"
#include "support/Sharding.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using model::DispatchKey;

// Snippets.
//   $ns$ a namespace
constexpr std::string_view kNamespaceOpen = "namespace $ns$ {";
constexpr std::string_view kNamespaceClose = "} // namespace $ns$";
//   $schema$ the schema as a C++ string literal, $tags$ its at::Tag values (from 2.12)
constexpr std::string_view kSchemaDefinition = "m.def($schema$);";
constexpr std::string_view kTaggedSchemaDefinition = "m.def($schema$, {$tags$});";
//   $name$ the operator's name (with its overload), $kernel$ the boxed function
constexpr std::string_view kImpl = R"cc(m.impl("$name$", TORCH_BOX(&$kernel$));)cc";
//   $anchor$ the anchor symbol of one registration file
constexpr std::string_view kAnchorDeclaration = R"cc(extern "C" void $anchor$();)cc";
constexpr std::string_view kAnchorCall = "$anchor$();";
// A kernel of a key with a device (CUDA, ...) behind a wrapper that makes its first tensor's device
// the current one, as the unstable registration's wrappers do.
//   $decl$ the wrapper's head, $tensor$ its first Tensor argument, $return$ "return " or nothing,
//   $kernel$ the kernel, $args$ the arguments
constexpr std::string_view kDeviceWrapper = R"cc(
$decl$ {
  torch::stable::accelerator::DeviceGuard guard($tensor$.get_device_index());
  $return$$kernel$($args$);
}
)cc";
// The C++ API of one operator: its arguments on a stack of StableIValues (max(arguments, returns)
// long), the call, its returns taken off the stack.
//   $schema$ the schema, $decl$ the function's head, $size$ the stack's size, $values$ the arguments
//   as StableIValues, $qualified$ "NS::op", $overload$ the overload name, $returns$ the return
//   statement, $check$ the error check of the headers (LibtorchFacts::stableErrorCheck)
constexpr std::string_view kFunction = R"cc(
// $schema$
inline $decl$ {
  std::array<StableIValue, $size$> stack{$values$};
  $check$(torch_call_dispatcher("$qualified$", "$overload$", stack.data(), TORCH_ABI_VERSION));
  $returns$
}
)cc";
constexpr std::string_view kFrom = "torch::stable::detail::from($name$)";
constexpr std::string_view kTo = "torch::stable::detail::to<$type$>(stack[$index$])";

// f's kernel at `index`, if it has one there.
const model::BackendMetadata* kernelOf(const model::NativeFunction& f, const model::BackendIndex& index) {
  const model::BackendMetadata* m = index.find(f.func.name);
  return m == nullptr || m->kernel.empty() ? nullptr : m;
}

std::string qualifiedKernel(const model::BackendMetadata& m) {
  return m.cppNamespace.empty() ? m.kernel : m.cppNamespace + "::" + m.kernel;
}

// f's stable signature, errors reported at f (the rules refused its types before: an internal error).
std::optional<api::StableSignature> signatureOf(const EmitContext& ctx, const model::NativeFunction& f, api::StableAbi abi) {
  support::Expected<api::StableSignature> sig = api::stableSignature(f.func, abi);
  if (!sig) {
    model::reportError(ctx.diags, f, sig.error().message);
    return std::nullopt;
  }
  return sig.take();
}

std::vector<std::string> functionDefinitions(const EmitContext& ctx, const std::string& ns, api::StableAbi abi) {
  std::vector<std::string> out;
  const std::string check = ctx.libtorch().stableErrorCheck ? "STABLE_TORCH_ERROR_CODE_CHECK" : "TORCH_ERROR_CODE_CHECK";
  for (const model::NativeFunction* f : ctx.ops.functions()) {
    if (api::stableCallProblem(f->func)) continue;  // (warned at its entry: gen/Library.cpp)
    const std::optional<api::StableSignature> sig = signatureOf(ctx, *f, abi);
    if (!sig) continue;
    std::vector<std::string> values;
    for (const api::StableParameter& p : sig->parameters) values.push_back(support::fillSnippet(kFrom, {{"name", p.name}}));
    std::vector<std::string> taken;
    for (std::size_t i = 0; i < sig->returns.size(); ++i)
      taken.push_back(support::fillSnippet(kTo, {{"type", sig->returns[i]}, {"index", std::to_string(i)}}));
    std::string returns;
    if (taken.size() == 1) returns = "return " + taken.front() + ";";
    else if (taken.size() > 1) returns = "return std::make_tuple(" + support::join(taken, ", ") + ");";
    const std::size_t size = std::max<std::size_t>({sig->parameters.size(), sig->returns.size(), 1});
    out.push_back(support::fillSnippet(kFunction, {{"schema", f->func.str()},
                                                   {"decl", sig->declaration(api::stableFunctionName(f->func))},
                                                   {"size", std::to_string(size)},
                                                   {"values", support::join(values, ", ")},
                                                   {"qualified", ns + "::" + f->func.name.name.str()},
                                                   {"overload", f->func.name.overloadName},
                                                   {"returns", returns},
                                                   {"check", check}}));
  }
  return out;
}

std::vector<std::string> schemaDefinitions(const EmitContext& ctx, const LibrarySpec& spec, api::StableAbi abi) {
  const api::LibraryPt2Options pt2{.libtorch = ctx.libtorch(), .torchTags = spec.torchTags, .defaultTags = spec.defaultTags,
                                    .pythonFakes = std::nullopt};  // (no set_python_module on the stable ABI)
  std::vector<std::string> schemas;
  for (const model::NativeFunction* f : ctx.ops.functions()) {
    const std::string schema = support::cppString(f->func.str());
    // (before 2.12 the stable registration takes no tags: the rules refused those of the YAML)
    std::vector<std::string> tags = abi.atLeast(2, 12) ? api::libraryTags(*f, pt2) : std::vector<std::string>{};
    // The inplace and out tags opgen gives, where the stable ABI passes them (the rules refused them
    // in `tags:` where it does not).
    if (!ctx.libtorch().stableInplaceOutTags)
      std::erase_if(tags, [](const std::string& t) { return t == "inplace" || t == "out"; });
    if (tags.empty()) {
      schemas.push_back(support::fillSnippet(kSchemaDefinition, {{"schema", schema}}));
    } else {
      schemas.push_back(support::fillSnippet(
          kTaggedSchemaDefinition,
          {{"schema", schema},
           {"tags", support::joinMapped(tags, ", ", [](const std::string& t) { return "at::Tag::" + t; })}}));
    }
  }
  return schemas;
}

// The first plain Tensor argument of a signature, if any.
const api::StableParameter* firstTensor(const api::StableSignature& sig, const model::FunctionSchema& func) {
  std::size_t i = 0;
  const api::StableParameter* found = nullptr;
  func.arguments.anyOf([&](const model::Argument& a) {
    if (a.type.isBase(model::BaseTy::Tensor)) found = &sig.parameters[i];
    ++i;
    return found != nullptr;
  });
  return found;
}

// What every stable-ABI template is given: the generated-file comment naming TEMPLATE, the
// namespace and the release.
support::TemplateEnv stableEnv(std::string_view templateName, const std::string& ns, const api::StableAbi& abi) {
  support::TemplateEnv env;
  env.set("generated_comment", libraryGeneratedComment(templateName));
  env.set("namespace", ns);
  env.set("stable_abi", abi.str());
  return env;
}

void emitRegistrations(const EmitContext& ctx, const LibrarySpec& spec, api::StableAbi abi,
                       const std::vector<StableRegistrationFile>& files, Writer& out) {
  for (const StableRegistrationFile& file : files) {
    const DispatchKey key = file.key;
    const model::BackendIndex& index = ctx.backendIndex(key);
    const bool hasIndex = index.dispatchKey() == key;
    const bool deviceKey = model::isCudaDispatchKey(key) || model::isXpuDispatchKey(key);
    std::vector<std::string> definitions, registrations;
    const std::string unit = "register_" + std::string(model::dispatchKeyName(key)) + "_" + std::to_string(file.shard);
    for (const model::NativeFunction* f : ctx.ops.functions()) {
      if (!hasIndex || support::shardOf(f->rootName(), spec.shards) != file.shard) continue;
      const model::BackendMetadata* m = kernelOf(*f, index);
      if (m == nullptr) continue;
      std::string boxed = "::" + qualifiedKernel(*m);
      if (deviceKey && f->deviceGuard) {
        const std::optional<api::StableSignature> sig = signatureOf(ctx, *f, abi);
        if (!sig) continue;
        if (const api::StableParameter* tensor = firstTensor(*sig, f->func)) {
          const std::string wrapper = "wrapper_" + f->func.name.unambiguousName();
          definitions.push_back(support::fillSnippet(
              kDeviceWrapper,
              {{"decl", sig->declaration(wrapper)},
               {"tensor", tensor->name},
               {"return", sig->returnType == "void" ? "" : "return "},
               {"kernel", boxed},
               {"args", support::joinMapped(sig->parameters, ", ", [](const api::StableParameter& p) { return p.name; })}}));
          boxed = "opgen_" + unit + "::" + wrapper;
        }
      }
      registrations.push_back(support::fillSnippet(kImpl, {{"name", f->func.name.str()}, {"kernel", boxed}}));
    }
    const std::string keyName(model::dispatchKeyName(key));
    out.writeWithTemplate(file.file, "StableRegisterDispatchKey.cpp", [&] {
      support::TemplateEnv env = stableEnv("StableRegisterDispatchKey.cpp", spec.ns, abi);
      env.set("dispatch_key", keyName);
      env.set("extra_includes", deviceKey ? "#include <torch/csrc/stable/accelerator.h>" : "");
      env.set("definitions", std::move(definitions));
      env.set("registrations", registrations.empty() ? std::vector<std::string>{"(void)m;"} : std::move(registrations));
      env.set("anchor", file.anchor);
      env.set("unit", unit);
      return env;
    });
  }
}

}  // namespace

std::vector<std::string> stableKernelDeclarations(const EmitContext& ctx, api::StableAbi abi) {
  std::vector<std::pair<std::string, std::vector<std::string>>> blocks;
  std::set<std::string> seen;
  for (const model::NativeFunction* f : ctx.ops.functions()) {
    std::optional<api::StableSignature> sig;
    for (const model::BackendIndex& index : ctx.ops.backendIndices()) {
      const model::BackendMetadata* m = kernelOf(*f, index);
      if (m == nullptr) continue;
      if (!sig && !(sig = signatureOf(ctx, *f, abi))) break;
      std::string decl = sig->declaration(m->kernel) + ";";
      if (!seen.insert(m->cppNamespace + "\n" + decl).second) continue;
      auto block = std::find_if(blocks.begin(), blocks.end(), [&](const auto& b) { return b.first == m->cppNamespace; });
      if (block == blocks.end()) block = blocks.insert(blocks.end(), {m->cppNamespace, {}});
      block->second.push_back(std::move(decl));
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

void emitStableLibrary(const EmitContext& ctx, const LibrarySpec& spec, const std::string& libraryAnchor,
                       const std::vector<StableRegistrationFile>& files, const LibraryWriters& out) {
  if (!spec.stableAbi) {
    ctx.diags.error({}, "internal error: a stable-ABI library without its release");
    return;
  }
  const api::StableAbi abi = *spec.stableAbi;
  out.headers.writeWithTemplate("Functions.h", "StableFunctions.h", [&] {
    support::TemplateEnv env = stableEnv("StableFunctions.h", spec.ns, abi);
    env.set("definitions", functionDefinitions(ctx, spec.ns, abi));
    return env;
  });
  out.headers.writeWithTemplate("NativeFunctions.h", "StableNativeFunctions.h", [&] {
    support::TemplateEnv env = stableEnv("StableNativeFunctions.h", spec.ns, abi);
    env.set("kernel_declarations", stableKernelDeclarations(ctx, abi));
    return env;
  });
  out.sources.writeWithTemplate("RegisterSchema.cpp", "StableRegisterSchema.cpp", [&] {
    support::TemplateEnv env = stableEnv("StableRegisterSchema.cpp", spec.ns, abi);
    env.set("schemas", schemaDefinitions(ctx, spec, abi));
    env.set("anchor", libraryAnchor);
    env.set("anchor_declarations", support::joinMapped(files, "\n", [](const StableRegistrationFile& f) {
              return support::fillSnippet(kAnchorDeclaration, {{"anchor", f.anchor}});
            }));
    env.set("anchor_calls", support::joinMapped(files, "\n", [](const StableRegistrationFile& f) {
              return support::fillSnippet(kAnchorCall, {{"anchor", f.anchor}});
            }));
    return env;
  });
  emitRegistrations(ctx, spec, abi, files, out.sources);
}

}  // namespace opgen::dest
