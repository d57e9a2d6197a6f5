#include "dest/aten/RegisterDispatchKeyCpp.h"

#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "dest/aten/DefinitionsTemplate.h"
#include "dest/common/RegisterDispatchKey.h"
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

// The helpers of structured kernels, each for the keys that use it (gen_registration_helpers).
constexpr std::string_view kHelpersPush = "C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED(\"-Wunused-function\")";
constexpr std::string_view kHelpersPop = "C10_DIAGNOSTIC_POP()";

//   $empty$ and $empty_strided$ the key's tensor factories, $options$ the options they get
constexpr std::string_view kCreateOutHelper = R"cc(
Tensor create_out(IntArrayRef sizes, IntArrayRef strides, const TensorOptions &options) {
  if (strides.empty()) {
      return $empty$(sizes, $options$);
  } else {
      return $empty_strided$(sizes, strides, $options$);
  }
}
)cc";

constexpr std::string_view kResizeOutHelper = R"cc(
void resize_out(const Tensor &out, IntArrayRef sizes, IntArrayRef strides, const TensorOptions &options) {
  TORCH_CHECK(options.dtype() == out.dtype(),
      "Expected out tensor to have dtype ", options.dtype(), ", but got ", out.dtype(), " instead");
  TORCH_CHECK(options.device() == out.device(),
      "Expected out tensor to have device ", options.device(), ", but got ", out.device(), " instead");
  const bool resized = at::native::resize_output(out, sizes);
  // Only restride if a resize occurred; otherwise we ignore the (advisory)
  // strides from the meta function and directly use the output tensor's
  // preexisting strides
  if (resized) {
    if (!strides.empty()) {
      TORCH_INTERNAL_ASSERT(!options.memory_format_opt().has_value());
      // TODO: avoid the redispatch here
      out.as_strided_(sizes, strides);
    } else if (options.memory_format_opt().has_value()) {
      out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());
    }
  }
}
)cc";

constexpr std::string_view kCheckInplaceHelper = R"cc(
void check_inplace(const Tensor &self, IntArrayRef sizes, const TensorOptions &options) {
  // These checks are needed on those operators that:
  //   1) don't use 'TensorIterator' (e.g. 'addmm' and 'baddbmm')
  //   2) have particular typing rules (e.g. 'cumsum' and 'cumprod')
  // For other operators (e.g. 'add'), 'TensorIterator' already checks
  // these things separately.
  TORCH_CHECK(options.dtype() == self.dtype(),
      "Bad in-place call: ",
      "input tensor dtype ", self.dtype(), " and output tensor dtype ", options.dtype(), " should match");
  TORCH_CHECK(options.device() == self.device(),
      "Bad in-place call: ",
      "input tensor device ", self.device(), " and output tensor device ", options.device(), " should match");
  TORCH_CHECK(sizes == self.sizes(),
      "Bad in-place call: ",
      "input tensor size ", self.sizes(), " and output tensor size ", sizes, " should match");
}
)cc";

//   $empty_strided$ the key's strided tensor factory
constexpr std::string_view kMaybeCreateProxyHelper = R"cc(
std::optional<Tensor> maybe_create_proxy(const Tensor &out, IntArrayRef sizes, IntArrayRef strides, const TensorOptions &options) {
  if (out.strides() != strides) {
    return $empty_strided$(sizes, strides, options);
  }
  return std::nullopt;
}
)cc";

// The registrations of one library namespace.  $namespace$ the operators' namespace, $key$ the
// dispatch key, $registrations$ the m.impl(...) statements
constexpr std::string_view kLibraryImpl = R"cc(
TORCH_LIBRARY_IMPL($namespace$, $key$, m) {
    $registrations$
})cc";

// ---------------------------------------------------------------------------------------------
// Register{Key}.cpp: the fixed parts

// gen_registration_headers.
std::vector<std::string> registrationHeaders(const model::BackendIndex& index, bool perOperatorHeaders, bool rocm) {
  std::vector<std::string> headers = {perOperatorHeaders ? "#include <ATen/ops/as_strided_native.h>"
                                                         : "#include <ATen/NativeFunctions.h>"};
  switch (index.dispatchKey()) {
    case DispatchKey::CPU:
    case DispatchKey::Meta: headers.emplace_back("#include <ATen/EmptyTensor.h>"); break;
    case DispatchKey::CUDA:
      headers.emplace_back(rocm ? "#include <ATen/hip/EmptyTensor.h>" : "#include <ATen/cuda/EmptyTensor.h>");
      break;
    case DispatchKey::MPS: headers.emplace_back("#include <ATen/mps/EmptyTensor.h>"); break;
    case DispatchKey::XPU: headers.emplace_back("#include <ATen/xpu/EmptyTensor.h>"); break;
    case DispatchKey::MTIA: headers.emplace_back("#include <ATen/native/mtia/EmptyTensor.h>"); break;
    default:
      if (perOperatorHeaders) {
        headers.insert(headers.end(), {"#include <ATen/ops/empty.h>", "#include <ATen/ops/empty_strided.h>",
                                       "#include <ATen/ops/_copy_from_and_resize.h>", "#include <ATen/ops/_copy_from.h>"});
      } else {
        headers.emplace_back("#include <ATen/Functions.h>");
      }
  }
  headers.emplace_back("#include <c10/macros/Macros.h>");
  return headers;
}

// gen_empty_impl_names: the tensor factories of structured kernels' outputs, if the key has them.
struct EmptyImpls {
  std::string empty, emptyStrided;
};
std::optional<EmptyImpls> emptyImpls(DispatchKey key) {
  switch (key) {
    case DispatchKey::Meta:
    case DispatchKey::CPU:
    case DispatchKey::CUDA:
    case DispatchKey::MPS:
    case DispatchKey::XPU:
    case DispatchKey::MTIA: {
      const std::string dispatch = lowerKeyName(key);
      return EmptyImpls{"at::detail::empty_" + dispatch, "at::detail::empty_strided_" + dispatch};
    }
    case DispatchKey::CompositeExplicitAutogradNonFunctional:
    case DispatchKey::QuantizedCPU:
    case DispatchKey::QuantizedCUDA: return EmptyImpls{"at::empty", "at::empty_strided"};
    default: return std::nullopt;
  }
}

// gen_registration_helpers.
std::vector<std::string> registrationHelpers(const model::BackendIndex& index) {
  const DispatchKey key = index.dispatchKey();
  const std::optional<EmptyImpls> impls = emptyImpls(key);
  std::vector<std::string> helpers = {std::string(kHelpersPush)};
  if (impls) {
    helpers.push_back(support::fillSnippet(kCreateOutHelper,
                                  {{"empty", impls->empty},
                                   {"empty_strided", impls->emptyStrided},
                                   {"options", key == DispatchKey::Meta ? "options.device(at::kMeta)" : "options"}}));
  }
  // CompositeExplicitAutogradNonFunctional only has functional kernels: resize_out would be unused.
  if (key != DispatchKey::CompositeExplicitAutogradNonFunctional) helpers.emplace_back(kResizeOutHelper);
  helpers.emplace_back(kCheckInplaceHelper);
  if (impls) helpers.push_back(support::fillSnippet(kMaybeCreateProxyHelper, {{"empty_strided", impls->emptyStrided}}));
  helpers.emplace_back(kHelpersPop);
  return helpers;
}

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
