#include "dest/aten/RegisterDispatchKeyCpp.h"

#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "dest/aten/DefinitionsTemplate.h"
#include "dest/common/RegisterDispatchKey.h"
#include "dest/common/RegistrationHelpers.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using model::DispatchKey;
using support::Expected;

// ---------------------------------------------------------------------------------------------
// Snippets

// The CUDA (or, with --rocm, HIP) headers of CUDA keys' registration files.
constexpr std::string_view kCudaHeaders = R"cc(#include <c10/cuda/CUDAGuard.h>
#include <ATen/cuda/ATenCUDAGeneral.h>
#include <ATen/cuda/CUDADevice.h>
#include <ATen/cuda/CUDAContext.h>)cc";
constexpr std::string_view kHipHeaders = R"cc(#include <c10/hip/HIPGuard.h>
#include <ATen/hip/ATenHIPGeneral.h>
#include <ATen/hip/HIPDevice.h>
#include <ATen/hip/HIPContext.h>)cc";

// The registrations of one library namespace.  $namespace$ the operators' namespace, $key$ the
// dispatch key, $registrations$ the m.impl(...) statements
constexpr std::string_view kLibraryImpl = R"cc(
TORCH_LIBRARY_IMPL($namespace$, $key$, m) {
    $registrations$
})cc";

// ---------------------------------------------------------------------------------------------
// Register{Key}.cpp: the fixed parts

// The operators' headers the registrations need (operator_headers in gen_source_files).
std::vector<std::string> operatorHeaders(const EmitContext& ctx, DispatchKey key, const KernelTable& kernels) {
  const bool functionsKey = ctx.isFunctionsKey(key);
  const bool nonFunctional = key == DispatchKey::CompositeExplicitAutogradNonFunctional;
  if (!ctx.perOperatorHeaders) {
    std::vector<std::string> headers = {"#include <ATen/NativeFunctions.h>"};
    if (nonFunctional) headers.emplace_back("#include <ATen/Functions.h>");
    if (functionsKey) headers.push_back(atenInclude(std::string(model::dispatchKeyName(key)) + "Functions"));
    return headers;
  }
  const std::string dispatchNamespace = lowerKeyName(key);
  std::set<std::string> headers;
  for (const model::FunctionOrGroup& item : ctx.ops.grouped()) {
    bool registered = kernels.find(item) != nullptr;
    bool structured = false;
    if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item)) {
      g->forEachFunction([&](const model::NativeFunction& f) { registered = registered || kernels.has(f); });
      structured = g->structured();
    } else {
      structured = std::get<const model::NativeFunction*>(item)->structured;
    }
    // Structured kernels get generated kernels for these two keys.
    registered = registered || (structured && (key == DispatchKey::Meta || nonFunctional));
    if (!registered) continue;
    const std::string root = model::representative(item).rootName();
    headers.insert(atenInclude("ops/" + root + "_native"));
    if (nonFunctional) headers.insert(atenInclude("ops/" + root));
    if (functionsKey) headers.insert(atenInclude("ops/" + root + "_" + dispatchNamespace + "_dispatch"));
  }
  return {headers.begin(), headers.end()};
}

// ---------------------------------------------------------------------------------------------
// Register{Key}.cpp: the definitions

// What one native function or group adds to dispatch_definitions (get_native_function_definitions
// for one item): the template filled with its code, as one string of the lines torchgen keeps (it
// splits the text into lines and the block substitution drops the empty ones).
class DefinitionsRenderer {
 public:
  DefinitionsRenderer(const EmitContext& ctx, DispatchKey key, const model::BackendIndex& index, Writer& templates)
      : ctx_(ctx),
        key_(key),
        emitter_(ctx, index, KernelTargets{.declarations = false, .definitions = true}),
        templates_(templates),
        dispatchNamespace_(lowerKeyName(key)) {}

  std::string render(const model::FunctionOrGroup& item) {
    code_.clear();
    emitter_.emit(item, code_);
    if (code_.namespacedDefinitions.empty()) return {};
    Expected<std::string> ns = kernelNamespace(emitter_.kernels(), key_, item);
    if (!ns) {
      model::reportError(ctx_.diags, item, ns.error().message);
      return {};
    }
    // Nearly every kernel is in at::native: the lines are made once per namespace.
    auto linesIt = namespaceLines_.find(*ns);
    if (linesIt == namespaceLines_.end())
      linesIt = namespaceLines_.emplace(*ns, namespaceLines(support::replaceAll(*ns, "::native", ""), 2)).first;
    const Expected<NamespaceLines>& lines = linesIt->second;
    if (!lines) {
      model::reportError(ctx_.diags, item, lines.error().message);
      return {};
    }
    std::string registrations;
    if (!ctx_.skipDispatcherOpRegistration && !code_.registrations.empty()) {
      registrations = support::fillSnippet(kLibraryImpl, {{"namespace", model::representative(item).ns},
                                                 {"key", model::dispatchKeyName(key_)},
                                                 {"registrations", support::join(code_.registrations, "\n")}});
    }
    if (reduced_) {
      std::optional<std::string> text = reduced_->lines({std::span(&lines->prologue, 1), code_.anonymousDefinitions,
                                                         std::span(&registrations, 1), code_.namespacedDefinitions,
                                                         std::span(&lines->epilogue, 1)});
      if (text) return std::move(*text);
    }
    support::TemplateEnv env;
    env.set("ns_prologue", lines->prologue);
    env.set("ns_epilogue", lines->epilogue);
    env.set("dispatch_anonymous_definitions", std::move(code_.anonymousDefinitions));
    env.set("static_init_dispatch_registrations", std::move(registrations));
    env.set("deferred_dispatch_registrations", "");
    env.set("dispatch_namespace", dispatchNamespace_);
    env.set("dispatch_namespaced_definitions", std::move(code_.namespacedDefinitions));
    std::optional<std::string> text = templates_.renderTemplate(DefinitionsTemplate::kTemplateName, std::move(env));
    if (!text) return {};
    // The template renders: from now on, items are assembled from its reduction where they can be.
    if (!reductionTried_) {
      reductionTried_ = true;
      reduced_ = DefinitionsTemplate::reduce(templates_, dispatchNamespace_);
    }
    dropEmptyLines(*text);
    return std::move(*text);
  }

  const KernelTable& kernels() const { return emitter_.kernels(); }

 private:
  // Removes the lines of support::split(text, "\n") that are empty, in place.
  static void dropEmptyLines(std::string& text) {
    char* const data = text.data();
    const size_t size = text.size();
    size_t kept = 0;  // the kept lines' length, joined by '\n'
    for (size_t start = 0; start < size;) {
      const void* newline = std::memchr(data + start, '\n', size - start);
      const size_t end = newline != nullptr ? static_cast<size_t>(static_cast<const char*>(newline) - data) : size;
      if (end > start) {
        if (kept > 0) data[kept++] = '\n';
        if (kept != start) std::memmove(data + kept, data + start, end - start);  // after a dropped line
        kept += end - start;
      }
      start = end + 1;
    }
    text.resize(kept);
  }

  const EmitContext& ctx_;
  DispatchKey key_;
  RegisterDispatchKeyEmitter emitter_;
  Writer& templates_;
  std::string dispatchNamespace_;
  KernelCode code_;
  std::map<std::string, Expected<NamespaceLines>, std::less<>> namespaceLines_;  // by kernel namespace
  bool reductionTried_ = false;
  std::optional<DefinitionsTemplate> reduced_;
};

void emitRegisterFile(const EmitContext& ctx, const Writers& out, DispatchKey key) {
  const model::BackendIndex& index = ctx.backendIndex(key);
  DefinitionsRenderer renderer(ctx, key, index, out.forDispatchKey(key));
  Sharded spec;
  spec.filename = "Register" + std::string(model::dispatchKeyName(key)) + ".cpp";
  spec.templateName = "RegisterDispatchKey.cpp";
  spec.numShards = key == DispatchKey::CPU ? 4 : 1;
  spec.shardedKeys = {"dispatch_definitions"};
  const std::string_view cudaHeaders = model::isCudaDispatchKey(key) ? (ctx.rocm ? kHipHeaders : kCudaHeaders) : "";
  auto set = [&spec](std::string name, support::TemplateValue value) {
    spec.baseEnv.emplace_back(std::move(name), std::move(value));
  };
  set("extra_cuda_headers", support::TemplateValue(std::string(cudaHeaders)));
  set("external_backend_headers", support::TemplateValue(std::string()));
  set("dispatch_headers", support::TemplateValue(registrationHeaders(index, ctx.perOperatorHeaders, ctx.rocm)));
  set("ops_headers", support::TemplateValue(operatorHeaders(ctx, key, renderer.kernels())));
  // CompositeImplicitAutogradNestedTensor's kernels do not use the helpers (-Werror=unused-function).
  set("dispatch_helpers", support::TemplateValue(key == DispatchKey::CompositeImplicitAutogradNestedTensor
                                                     ? std::vector<std::string>{}
                                                     : registrationHelpers(index)));

  const std::vector<model::FunctionOrGroup>& items = ctx.ops.grouped();
  out.forDispatchKey(key).writeSharded(
      spec, items.size(), [&](std::size_t i) { return model::representative(items[i]).rootName(); },
      [&](std::size_t i) {
        std::string text = renderer.render(items[i]);
        ShardEnv env;
        if (text.empty()) return env;
        // Not ShardEnv{{..., {text}}}: initializer lists copy their elements.
        env.emplace_back("dispatch_definitions", std::vector<std::string>()).second.push_back(std::move(text));
        return env;
      });
}


}  // namespace

void emitRegisterDispatchKey(const EmitContext& ctx, const Writers& out) {
  for (DispatchKey key : ctx.dispatchKeys) emitRegisterFile(ctx, out, key);
}


}  // namespace opgen::dest
