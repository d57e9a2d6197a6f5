#include "dest/aten/StaticDispatch.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "api/Translate.h"
#include "dest/common/RegisterDispatchKey.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using model::DispatchKey;

// The kernels torchgen falls back to when no static dispatch backend has one, in order of preference.
constexpr std::array<DispatchKey, 4> kCompositeFallbacks = {
    DispatchKey::CompositeExplicitAutograd, DispatchKey::CompositeExplicitAutogradNonFunctional,
    DispatchKey::CompositeImplicitAutograd, DispatchKey::CompositeImplicitAutogradNestedTensor};
// The keys whose {Key}Functions.h a static dispatch build includes besides its backends'.
constexpr std::array<DispatchKey, 4> kCompositeHeaders = {
    DispatchKey::CompositeImplicitAutograd, DispatchKey::CompositeImplicitAutogradNestedTensor,
    DispatchKey::CompositeExplicitAutograd, DispatchKey::CompositeExplicitAutogradNonFunctional};

// Legend: $args$ the call's arguments, $ns$ the kernel namespace without "::native", $key$ the lower-case
// key, $name$ the C++ API name.
constexpr std::string_view kBackendCall = "return $ns$::$key$::$name$($args$);";
// Legend: $name$ the C++ API name, $keys$ the backends' keys joined by ", ".
constexpr std::string_view kNoKernel = R"txt(TORCH_CHECK(false, "Static dispatch does not support $name$ for$keys$ ");)txt";
// Legend: $statements$ the dispatch key computation, $cases$ one case per backend with the kernel,
// $fallback$ the default case's statement.
constexpr std::string_view kSwitch = R"txt(
    $statements$
    switch (_dk) {
        $cases$
        default:
            $fallback$
    }
    )txt";

bool hasKernel(const model::BackendIndex& index, const std::string& opName) {
  return index.find(std::string_view(opName)) != nullptr;
}

bool compositeFlag(const model::NativeFunction& f, DispatchKey key) {
  switch (key) {
    case DispatchKey::CompositeExplicitAutograd:
      return f.hasCompositeExplicitAutogradKernel;
    case DispatchKey::CompositeExplicitAutogradNonFunctional:
      return f.hasCompositeExplicitAutogradNonFunctionalKernel;
    case DispatchKey::CompositeImplicitAutograd:
      return f.hasCompositeImplicitAutogradKernel;
    case DispatchKey::CompositeImplicitAutogradNestedTensor:
      return f.hasCompositeImplicitAutogradNestedTensorKernel;
    default:
      return false;
  }
}

// The first composite key f has a kernel for (in kCompositeFallbacks' order).
std::optional<DispatchKey> compositeFallback(const model::NativeFunction& f) {
  for (DispatchKey k : kCompositeFallbacks)
    if (compositeFlag(f, k)) return k;
  return std::nullopt;
}

// torchgen's get_static_dispatch_backend: which key's header f's static dispatch through `index` needs.
std::optional<DispatchKey> staticDispatchKey(const model::NativeFunction& f, const model::BackendIndex& index,
                                             const std::string& opName) {
  if (f.structuredDelegate || hasKernel(index, opName)) return index.dispatchKey();
  return compositeFallback(f);
}

// The C++ API signature the kernel wrappers (at::cpu::NAME) have: the SymInt one when f has SymInts.
const api::CppSignature& backendCallSignature(const api::CppSignatureGroup& group) {
  return group.symintSignature() ? *group.symintSignature() : group.signature();
}

// torchgen's translate_args: the dispatcher's arguments as the C++ API signature's; a memory_format
// argument stands in for the C++ API's possibly redundant one.
support::Expected<std::string> translateArgs(const api::DispatcherSignature& sig, const api::CppSignature& cppSig) {
  std::vector<api::Binding> src = sig.arguments();
  const std::vector<api::Binding>& goals = cppSig.arguments();
  const bool redundantMemoryFormat = std::any_of(goals.begin(), goals.end(), [](const api::Binding& b) {
    return b.nctype.name.special == api::ArgName::Special::PossiblyRedundantMemoryFormat;
  });
  if (redundantMemoryFormat) {
    for (api::Binding& b : src)
      if (b.name == "memory_format") b.nctype.name = api::ArgName::possiblyRedundantMemoryFormat();
  }
  support::Expected<std::vector<api::Expr>> exprs = api::translate(src, goals);
  if (!exprs) return exprs.error();
  return api::joinExprs(*exprs);
}

}  // namespace

std::vector<std::string> staticDispatchExtraHeaders(const std::vector<model::BackendIndex>& backends) {
  std::vector<std::string> out;
  if (backends.empty()) return out;
  auto add = [&](DispatchKey k) {
    out.push_back(atenInclude(std::string(model::dispatchKeyName(k)) + "Functions"));
  };
  for (const model::BackendIndex& b : backends) add(b.dispatchKey());
  for (DispatchKey k : kCompositeHeaders) add(k);
  return out;
}

std::optional<std::string> staticDispatchOpsHeader(const model::NativeFunction& f,
                                                   const std::vector<model::BackendIndex>& backends) {
  if (f.manualKernelRegistration) return std::nullopt;
  const std::string opName = f.func.name.str();
  std::string out;
  for (const model::BackendIndex& index : backends) {
    std::optional<DispatchKey> key = staticDispatchKey(f, index, opName);
    if (!key) continue;
    if (!out.empty()) out += '\n';
    out.append("#include <ATen/ops/")
        .append(f.rootName())
        .append("_")
        .append(lowerKeyName(*key))
        .append("_dispatch.h>");
  }
  return out;
}

support::Expected<std::string> staticDispatchBody(const api::DispatcherSignature& sig, const model::NativeFunction& f,
                                                  const std::vector<model::BackendIndex>& backends) {
  if (backends.empty() || f.manualKernelRegistration) return std::string();
  const api::Options options = api::Options::of(f);
  const api::CppSignatureGroup group =
      api::CppSignatureGroup::fromNativeFunction(f, {.method = false, .fallbackBinding = false}, options);
  const api::CppSignature& cppSig = backendCallSignature(group);
  support::Expected<std::string> args = translateArgs(sig, cppSig);
  if (!args) return args;
  const std::string name = cppSig.name();
  const std::string opName = f.func.name.str();

  auto backendCall = [&](const model::BackendIndex& index) {
    const model::BackendMetadata* m = index.find(std::string_view(opName));
    const std::string kernelNs = m != nullptr && !m->cppNamespace.empty() ? m->cppNamespace : "at::native";
    return support::fillSnippet(kBackendCall, {{"ns", support::replaceAll(kernelNs, "::native", "")},
                                      {"key", lowerKeyName(index.dispatchKey())},
                                      {"name", name},
                                      {"args", *args}});
  };
  auto fallback = [&] {
    if (std::optional<DispatchKey> k = compositeFallback(f))
      return support::fillSnippet(kBackendCall, {{"ns", "at"}, {"key", lowerKeyName(*k)}, {"name", name}, {"args", *args}});
    std::vector<std::string> keys;
    for (const model::BackendIndex& b : backends) keys.emplace_back(model::dispatchKeyName(b.dispatchKey()));
    return support::fillSnippet(kNoKernel, {{"name", name}, {"keys", support::join(keys, ", ")}});
  };

  std::vector<const model::BackendIndex*> withKernel;
  for (const model::BackendIndex& b : backends)
    if (hasKernel(b, opName) || (f.structuredDelegate && model::isStructuredDispatchKey(b.dispatchKey())))
      withKernel.push_back(&b);
  if (withKernel.size() == 1) return backendCall(*withKernel.front());
  if (withKernel.empty()) return fallback();

  std::vector<std::string> tensorArgs;
  for (const api::Binding& b : sig.arguments())
    if (const model::Argument* a = b.schemaArgument(); a != nullptr && a->type.isTensorLike())
      tensorArgs.push_back(b.name);
  std::vector<std::string> keySetParts;
  if (f.func.arguments.tensorOptions)
    keySetParts.emplace_back("DispatchKeySet(c10::computeDispatchKey(dtype, layout, device))");
  if (!tensorArgs.empty())
    keySetParts.push_back("c10::detail::multi_dispatch_key_set(" + support::join(tensorArgs, ", ") + ")");
  const std::string statements = "DispatchKeySet _dk_set = " + support::join(keySetParts, " | ") +
                                 ";\n\t\tDispatchKey _dk = c10::highestPriorityBackendTypeId(_dk_set);";
  std::string cases;
  for (const model::BackendIndex* b : withKernel) {
    if (!cases.empty()) cases += "\n\t\t";
    cases.append("case DispatchKey::").append(model::dispatchKeyName(b->dispatchKey())).append(":\n\t\t\t");
    cases.append(backendCall(*b)).append(";");
  }
  return support::fillSnippet(kSwitch, {{"statements", statements}, {"cases", cases}, {"fallback", fallback()}});
}

}  // namespace opgen::dest
