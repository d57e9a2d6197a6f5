#include "dest/aten/RegisterBackendSelect.h"

#include "api/Native.h"
#include "api/Signatures.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

constexpr std::string_view kDispatchKeyOfOptions = "c10::computeDispatchKey(dtype, layout, device)";

// Legend: $schema$ the function schema, $head$ the kernel's definition head, $compute_dk$ the
// statements that compute the key set `_dk`, $op$ the unambiguous operator name, $args$ the
// dispatcher's arguments.
constexpr std::string_view kKernel = R"txt(// aten::$schema$
C10_ALWAYS_INLINE
$head$ {
  $compute_dk$
  return at::_ops::$op$::redispatch(
      _dk, $args$);
}
)txt";

// Legend: $key$ the options' dispatch key, $tensors$ the tensor arguments.
constexpr std::string_view kKeySetWithTensors = R"txt(DispatchKeySet _dk_set = c10::DispatchKeySet($key$) | c10::detail::multi_dispatch_key_set($tensors$);
DispatchKeySet _dk_mask = c10::DispatchKeySet(DispatchKeySet::FULL_AFTER, DispatchKey::BackendSelect);
DispatchKeySet _dk = c10::impl::computeDispatchKeySet(_dk_set, _dk_mask);)txt";

// Legend: $key$ the options' dispatch key.
constexpr std::string_view kKeySetOfOptions = "DispatchKeySet _dk = c10::DispatchKeySet($key$);";

// Legend: $name$ the operator name with overload, $kernel$ the kernel's name.
constexpr std::string_view kRegistration = R"txt(m.impl("aten::$name$", TORCH_FN($kernel$));)txt";

}  // namespace

bool needsBackendSelect(const model::NativeFunction& f, const OperatorSelector& selector) {
  const std::string name = f.func.name.name.str();
  if (support::endsWith(name, "_like") || support::startsWith(name, "new_")) return false;
  if (!f.func.arguments.tensorOptions) return false;
  return selector.isNativeFunctionSelected(f);
}

support::Expected<std::string> backendSelectDefinition(const model::NativeFunction& f) {
  if (auto check = checkCppApi(f); !check) return check;
  const api::Options options = api::Options::of(f);
  // BackendSelect can go to Meta, so it must preserve SymInts.
  const api::NativeSignature nativeSig(f.func, /*symint=*/true, options);
  std::vector<std::string> tensors;
  for (const api::Binding& b : nativeSig.arguments())
    if (const model::Argument* a = b.schemaArgument(); a != nullptr && a->type.isTensorLike())
      tensors.push_back(b.name);
  const bool hasTensorArg = f.func.arguments.hasTensorArg();
  std::string computeDk;
  if (!tensors.empty()) {
    if (!hasTensorArg) return support::makeError("Expected function to have tensor args: " + f.func.str());
    computeDk =
        support::fillSnippet(kKeySetWithTensors, {{"key", kDispatchKeyOfOptions}, {"tensors", support::join(tensors, ", ")}});
  } else {
    if (hasTensorArg) return support::makeError("Expected function to not have tensor args: " + f.func.str());
    computeDk = support::fillSnippet(kKeySetOfOptions, {{"key", kDispatchKeyOfOptions}});
  }
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, options);
  return support::fillSnippet(kKernel, {{"schema", f.schemaString},
                               {"head", sig.defn({.name = api::native::name(f.func)})},
                               {"compute_dk", computeDk},
                               {"op", f.func.name.unambiguousName()},
                               {"args", api::joinExprs(sig.exprs())}});
}

std::string backendSelectRegistration(const model::NativeFunction& f) {
  return support::fillSnippet(kRegistration, {{"name", f.func.name.str()}, {"kernel", api::native::name(f.func)}});
}

void emitBackendSelect(const EmitContext& ctx, const Writers& out) {
  out.cpu.write("RegisterBackendSelect.cpp", [&ctx] {
    std::vector<std::string> headers, definitions, registrations;
    for (const model::NativeFunction* f : ctx.ops.functions()) {
      if (!needsBackendSelect(*f, ctx.selector)) continue;
      headers.push_back(atenInclude("ops/" + f->rootName() + "_ops"));
      definitions.push_back(valueOrReport(backendSelectDefinition(*f), *f, ctx.diags));
      registrations.push_back(backendSelectRegistration(*f));
    }
    support::TemplateEnv env;
    env.set("ops_headers", std::move(headers));
    env.set("backend_select_method_definitions", std::move(definitions));
    env.set("backend_select_function_registrations", std::move(registrations));
    return env;
  });
}

}  // namespace opgen::dest
