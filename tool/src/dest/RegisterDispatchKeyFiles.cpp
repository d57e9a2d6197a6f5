#include "dest/RegisterDispatchKeyFiles.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "dest/RegisterDispatchKey.h"
#include "dest/SnippetFill.h"
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

// One namespace's direct C++ API declarations in {Key}Functions_inl.h (split into lines).
//   $prologue$ and $epilogue$ open and close the namespace, $declarations$ the declarations
constexpr std::string_view kNamespacedDeclarations = "\n$prologue$\n$declarations$\n$epilogue$\n        ";

constexpr std::string_view kDefinitionsTemplate = "RegisterDispatchDefinitions.ini";
constexpr std::string_view kDefaultKernelNamespace = "at::native";

// ---------------------------------------------------------------------------------------------

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

const model::NativeFunction& representative(const model::FunctionOrGroup& item) {
  if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item)) return *g->functional;
  return *std::get<const model::NativeFunction*>(item);
}

// torchgen's get_kernel_namespace: the C++ namespace of the item's kernel (at::native by default).
Expected<std::string> kernelNamespace(const KernelTable& kernels, DispatchKey key, const model::FunctionOrGroup& item) {
  const model::BackendMetadata* m = kernels.find(item);
  if (m == nullptr) return std::string(kDefaultKernelNamespace);
  if (!support::contains(m->cppNamespace, "::native"))
    return support::makeError("The kernel for function " + representative(item).func.name.str() +
                              " with dispatch key " + std::string(model::dispatchKeyName(key)) +
                              " has a namespace " + m->cppNamespace + " and it's not ending with '::native'.");
  return m->cppNamespace;
}

// torchgen's NamespaceHelper: the lines that open and close a nested namespace.
struct NamespaceLines {
  std::string prologue, epilogue;
};
Expected<NamespaceLines> namespaceLines(const std::string& ns, size_t maxLevel) {
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

void reportAt(const EmitContext& ctx, const model::FunctionOrGroup& item, const std::string& message) {
  const model::NativeFunction& f = representative(item);
  ctx.diags.error(f.loc.sourceLoc(), "in '" + f.func.name.str() + "': " + message);
}

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
      const std::string dispatch = lower(model::dispatchKeyName(key));
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
    helpers.push_back(fillSnippet(kCreateOutHelper,
                                  {{"empty", impls->empty},
                                   {"empty_strided", impls->emptyStrided},
                                   {"options", key == DispatchKey::Meta ? "options.device(at::kMeta)" : "options"}}));
  }
  // CompositeExplicitAutogradNonFunctional only has functional kernels: resize_out would be unused.
  if (key != DispatchKey::CompositeExplicitAutogradNonFunctional) helpers.emplace_back(kResizeOutHelper);
  helpers.emplace_back(kCheckInplaceHelper);
  if (impls) helpers.push_back(fillSnippet(kMaybeCreateProxyHelper, {{"empty_strided", impls->emptyStrided}}));
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
    if (functionsKey) headers.push_back("#include <ATen/" + std::string(model::dispatchKeyName(key)) + "Functions.h>");
    return headers;
  }
  const std::string dispatchNamespace = lower(model::dispatchKeyName(key));
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
    const std::string root = representative(item).rootName();
    headers.insert("#include <ATen/ops/" + root + "_native.h>");
    if (nonFunctional) headers.insert("#include <ATen/ops/" + root + ".h>");
    if (functionsKey) headers.insert("#include <ATen/ops/" + root + "_" + dispatchNamespace + "_dispatch.h>");
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
  DefinitionsRenderer(const EmitContext& ctx, DispatchKey key, const model::BackendIndex& index,
                      const KernelTable::Names& names, DirectApiCache& apiCache, WrapperCache& wrapperCache,
                      Writer& templates)
      : ctx_(ctx),
        key_(key),
        emitter_(ctx, index, KernelTargets{.declarations = false, .definitions = true}, &names, &apiCache,
                 &wrapperCache),
        templates_(templates),
        dispatchNamespace_(lower(model::dispatchKeyName(key))) {}

  std::string render(const model::FunctionOrGroup& item) {
    code_.clear();
    emitter_.emit(item, code_);
    if (code_.namespacedDefinitions.empty()) return {};
    Expected<std::string> ns = kernelNamespace(emitter_.kernels(), key_, item);
    if (!ns) {
      reportAt(ctx_, item, ns.error().message);
      return {};
    }
    // Nearly every kernel is in at::native: the lines are made once per namespace.
    auto linesIt = namespaceLines_.find(*ns);
    if (linesIt == namespaceLines_.end())
      linesIt = namespaceLines_.emplace(*ns, namespaceLines(support::replaceAll(*ns, "::native", ""), 2)).first;
    const Expected<NamespaceLines>& lines = linesIt->second;
    if (!lines) {
      reportAt(ctx_, item, lines.error().message);
      return {};
    }
    std::string registrations;
    if (!ctx_.skipDispatcherOpRegistration && !code_.registrations.empty()) {
      registrations = fillSnippet(kLibraryImpl, {{"namespace", representative(item).ns},
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
    std::optional<std::string> text = templates_.renderTemplate(kDefinitionsTemplate, std::move(env));
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

void emitRegisterFile(const EmitContext& ctx, const Writers& out, DispatchKey key, const KernelTable::Names& names,
                      DirectApiCache& apiCache, WrapperCache& wrapperCache) {
  const model::BackendIndex& index = ctx.backendIndex(key);
  DefinitionsRenderer renderer(ctx, key, index, names, apiCache, wrapperCache, out.forDispatchKey(key));
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
      spec, items.size(), [&](std::size_t i) { return representative(items[i]).rootName(); },
      [&](std::size_t i) {
        std::string text = renderer.render(items[i]);
        ShardEnv env;
        if (text.empty()) return env;
        // Not ShardEnv{{..., {text}}}: initializer lists copy their elements.
        env.emplace_back("dispatch_definitions", std::vector<std::string>()).second.push_back(std::move(text));
        return env;
      });
}

// ---------------------------------------------------------------------------------------------
// {Key}Functions_inl.h

// get_namespaced_declaration: the declarations grouped by namespace (at::native becomes at::KEY), in
// order of the namespaces' first appearance, without duplicates, as lines.
std::vector<std::string> namespacedDeclarationLines(const EmitContext& ctx, DispatchKey key,
                                                    const KernelTable::Names& names, DirectApiCache& apiCache) {
  const RegisterDispatchKeyEmitter emitter(ctx, ctx.backendIndex(key),
                                           KernelTargets{.declarations = true, .definitions = false}, &names, &apiCache);
  const std::string dispatchNamespace = lower(model::dispatchKeyName(key));
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> byNamespace;
  std::map<std::string, const model::FunctionOrGroup*> firstItem;
  KernelCode code;
  for (const model::FunctionOrGroup& item : ctx.ops.grouped()) {
    Expected<std::string> ns = kernelNamespace(emitter.kernels(), key, item);
    if (!ns) {
      reportAt(ctx, item, ns.error().message);
      continue;
    }
    std::string name = support::replaceAll(*ns, "native", dispatchNamespace);
    auto [it, added] = byNamespace.try_emplace(name);
    if (added) {
      order.push_back(name);
      firstItem.emplace(name, &item);
    }
    code.clear();
    emitter.emit(item, code);
    for (std::string& d : code.namespacedDeclarations) it->second.push_back(std::move(d));
  }
  std::vector<std::string> lines;
  for (const std::string& name : order) {
    const std::vector<std::string>& kernels = byNamespace[name];
    if (kernels.empty()) continue;
    Expected<NamespaceLines> ns = namespaceLines(name, 3);
    if (!ns) {
      reportAt(ctx, *firstItem[name], ns.error().message);
      continue;
    }
    std::set<std::string_view> seen;
    std::string declarations;
    for (const std::string& k : kernels) {
      if (!seen.insert(k).second) continue;
      if (seen.size() > 1) declarations.push_back('\n');
      declarations.append(k);
    }
    const std::string text = fillSnippet(
        kNamespacedDeclarations, {{"prologue", ns->prologue}, {"declarations", declarations}, {"epilogue", ns->epilogue}});
    for (std::string_view line : support::split(text, "\n")) lines.emplace_back(line);
  }
  return lines;
}

// With per-operator headers: the ops/{root}_{key}_dispatch.h that declare something, sorted.
std::vector<std::string> dispatchHeaderIncludes(const EmitContext& ctx, DispatchKey key,
                                                const KernelTable::Names& names, DirectApiCache& apiCache) {
  const RegisterDispatchKeyEmitter emitter(ctx, ctx.backendIndex(key),
                                           KernelTargets{.declarations = true, .definitions = false}, &names, &apiCache);
  const std::string dispatchNamespace = lower(model::dispatchKeyName(key));
  std::set<std::string> roots;
  KernelCode code;
  for (const model::FunctionOrGroup& item : ctx.ops.grouped()) {
    std::string root = representative(item).rootName();
    if (roots.count(root)) continue;
    code.clear();
    emitter.emit(item, code);
    if (!code.namespacedDeclarations.empty()) roots.insert(std::move(root));
  }
  std::vector<std::string> includes;
  includes.reserve(roots.size());
  for (const std::string& root : roots)
    includes.push_back("#include <ATen/ops/" + root + "_" + dispatchNamespace + "_dispatch.h>");
  return includes;
}

// ---------------------------------------------------------------------------------------------
// DefinitionsTemplate's text: built line by line, the empty lines left out as they come.

// No byte on which Python's str.splitlines or str.isspace differ from '\n', ' ' and '\t': a control
// other than '\n' and '\t', or a byte of a non-ASCII character. Every byte of the definitions passes
// here: the loop has no early exit and its flag is a byte (not a bool), which GCC vectorizes.
bool isPlainText(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  unsigned char special = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = p[i];
    special |= static_cast<unsigned char>((c >= 0x80) | ((c < 0x20) & (c != '\n') & (c != '\t')));
  }
  return special == 0;
}

// Calls fn(line) for each line of `text` split at '\n' (a last '\n' ends the last line), and
// fn(std::nullopt) for each '\n'.
template <class Fn>
void forEachLineAndBreak(std::string_view text, Fn fn) {
  while (!text.empty()) {
    const void* found = std::memchr(text.data(), '\n', text.size());
    if (found == nullptr) {
      fn(std::optional<std::string_view>(text));
      return;
    }
    const size_t end = static_cast<size_t>(static_cast<const char*>(found) - text.data());
    fn(std::optional<std::string_view>(text.substr(0, end)));
    fn(std::optional<std::string_view>());
    text.remove_prefix(end + 1);
  }
}

// Lines written into a buffer reserved for them, of which the empty ones are dropped (joined by '\n',
// no '\n' after the last). Definitions have some 375,000 lines a run: a line costs two copies and
// a comparison, not std::string's capacity checks.
class LineWriter {
 public:
  explicit LineWriter(char* buffer) : begin_(buffer), pos_(buffer), lineStart_(buffer) {}
  void append(std::string_view s) {  // without '\n'
    std::memcpy(pos_, s.data(), s.size());
    pos_ += s.size();
  }
  void endLine() {
    if (pos_ == lineStart_) return;  // an empty line
    *pos_++ = '\n';
    lineStart_ = pos_;
  }
  // The length written.
  size_t finish() {
    if (pos_ == lineStart_ && pos_ != begin_) --pos_;  // the '\n' of the last line kept
    return static_cast<size_t>(pos_ - begin_);
  }

 private:
  char* begin_;
  char* pos_;
  char* lineStart_;
};

// Block substitution of plain items (support::CodeTemplate's rules): the lines of every item, each
// right-stripped and, unless blank, indented, joined by '\n', the whole right-stripped. The block's
// first line continues the current line; a break before a later line is only written when a line
// that is not empty follows (the empty ones are dropped, and the whole's right strip drops the last
// breaks).
void writeBlock(LineWriter& out, std::string_view indent, std::span<const std::string> items) {
  bool firstLine = true;
  bool pendingBreak = false;
  for (const std::string& item : items) {
    std::string_view rest = item;
    while (!rest.empty()) {
      const void* found = std::memchr(rest.data(), '\n', rest.size());
      const size_t end = found != nullptr ? static_cast<size_t>(static_cast<const char*>(found) - rest.data()) : rest.size();
      std::string_view line = rest.substr(0, end);
      rest.remove_prefix(found != nullptr ? end + 1 : end);
      if (!firstLine) pendingBreak = true;
      firstLine = false;
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      if (line.empty()) continue;
      if (pendingBreak) out.endLine();
      pendingBreak = false;
      if (!indent.empty()) out.append(indent);
      out.append(line);
    }
  }
}

}  // namespace

std::optional<DefinitionsTemplate> DefinitionsTemplate::reduce(Writer& templates, std::string_view dispatchNamespace) {
  // Each item variable is a list of two markers, "\x01" + letter + 'a' and 'b': a block renders them
  // on two lines with the same indentation, an inline placeholder joins them with ", ".
  constexpr char kMarker = '\x01';
  auto marker = [](int variable, char which) { return std::string{kMarker, static_cast<char>('A' + variable), which}; };
  support::TemplateEnv env;
  const char* const names[kVariables] = {"ns_prologue", "dispatch_anonymous_definitions",
                                         "static_init_dispatch_registrations", "dispatch_namespaced_definitions",
                                         "ns_epilogue"};
  for (int v = 0; v < kVariables; ++v) env.set(names[v], std::vector<std::string>{marker(v, 'a'), marker(v, 'b')});
  env.set("deferred_dispatch_registrations", "");
  env.set("dispatch_namespace", std::string(dispatchNamespace));
  const std::optional<std::string> probe = templates.renderTemplate(kDefinitionsTemplate, std::move(env));
  if (!probe) return std::nullopt;

  DefinitionsTemplate reduced;
  const std::string_view text = *probe;
  size_t literalStart = 0;
  for (size_t at = text.find(kMarker); at != std::string_view::npos; at = text.find(kMarker, literalStart)) {
    if (at + 3 > text.size() || text[at + 2] != 'a') return std::nullopt;
    const int variable = text[at + 1] - 'A';
    if (variable < 0 || variable >= kVariables) return std::nullopt;
    const size_t newline = text.rfind('\n', at);
    const size_t lineStart = newline == std::string_view::npos ? 0 : newline + 1;
    const std::string_view indent = text.substr(lineStart, at - lineStart);
    if (lineStart < literalStart || indent.find_first_not_of(" \t") != std::string_view::npos) return std::nullopt;
    const std::string second = std::string("\n").append(indent).append(marker(variable, 'b'));
    if (text.substr(at + 3, second.size()) != second) return std::nullopt;  // inline
    reduced.pieces_.push_back({std::string(text.substr(literalStart, lineStart - literalStart)),
                               static_cast<Variable>(variable), std::string(indent)});
    literalStart = at + 3 + second.size();
  }
  reduced.pieces_.push_back({std::string(text.substr(literalStart)), kVariables, {}});
  for (const Piece& piece : reduced.pieces_) reduced.literalSize_ += piece.literal.size();
  return reduced;
}

std::optional<std::string> DefinitionsTemplate::lines(const Values& values) const {
  // What the lines can take: the literal, and each block's items with a break and an indentation a line.
  size_t size = literalSize_;
  for (const Piece& piece : pieces_) {
    if (piece.variable == kVariables) continue;
    for (const std::string& item : values[piece.variable]) size += (item.size() + 1) * (1 + piece.indent.size());
  }
  // Written into a buffer kept from item to item (a string's room would be filled with zeros first),
  // then copied into a string of the lines' exact size.
  if (buffer_.size() < size) buffer_.resize(std::max(size, 2 * buffer_.size()));
  LineWriter out(buffer_.data());
  for (const Piece& piece : pieces_) {
    forEachLineAndBreak(piece.literal, [&](std::optional<std::string_view> line) {
      if (line) {
        out.append(*line);
      } else {
        out.endLine();
      }
    });
    if (piece.variable != kVariables) writeBlock(out, piece.indent, values[piece.variable]);
  }
  const std::string_view text(buffer_.data(), out.finish());
  // A value that is not plain may have been split or stripped otherwise; `"""` may be respaced. (The
  // lines left out and the blanks stripped are whitespace: the checks see what the template's text has.)
  if (!isPlainText(text) || text.find(R"(""")") != std::string_view::npos) return std::nullopt;
  return std::string(text);
}

void emitRegisterDispatchKey(const EmitContext& ctx, const Writers& out) {
  const KernelTable::Names names = KernelTable::namesOf(ctx.ops);
  DirectApiCache ownCache;
  DirectApiCache& apiCache = ctx.directApiCache != nullptr ? *ctx.directApiCache : ownCache;
  WrapperCache wrapperCache;  // the keys' files are made one after the other, on this thread
  for (DispatchKey key : ctx.dispatchKeys) emitRegisterFile(ctx, out, key, names, apiCache, wrapperCache);
}

void emitDispatchKeyFunctionsInl(const EmitContext& ctx, const Writers& out) {
  std::optional<KernelTable::Names> names;  // made when a header is rendered (not in a dry run)
  DirectApiCache ownCache;
  DirectApiCache& apiCache = ctx.directApiCache != nullptr ? *ctx.directApiCache : ownCache;
  for (DispatchKey key : ctx.dispatchKeys) {
    if (!ctx.isFunctionsKey(key)) continue;
    out.forDispatchKey(key).writeWithTemplate(
        std::string(model::dispatchKeyName(key)) + "Functions_inl.h", "DispatchKeyFunctions_inl.h", [&ctx, &names, &apiCache, key] {
          if (!names) names = KernelTable::namesOf(ctx.ops);
          support::TemplateEnv env;
          env.set("dispatch_namespace", lower(model::dispatchKeyName(key)));
          if (ctx.perOperatorHeaders) {
            env.set("DispatchKeyFunctions_inl_includes", dispatchHeaderIncludes(ctx, key, *names, apiCache));
            env.set("dispatch_namespaced_declarations", std::vector<std::string>{});
          } else {
            env.set("DispatchKeyFunctions_inl_includes", std::vector<std::string>{});
            env.set("dispatch_namespaced_declarations", namespacedDeclarationLines(ctx, key, *names, apiCache));
          }
          return env;
        });
  }
}

}  // namespace opgen::dest
