#include "dest/aten/DispatchKeyFunctions.h"

#include <map>
#include <optional>
#include <set>

#include "dest/common/RegisterDispatchKey.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using model::DispatchKey;
using support::Expected;

// One namespace's direct C++ API declarations in {Key}Functions_inl.h (split into lines).
//   $prologue$ and $epilogue$ open and close the namespace, $declarations$ the declarations
constexpr std::string_view kNamespacedDeclarations = "\n$prologue$\n$declarations$\n$epilogue$\n        ";

// ---------------------------------------------------------------------------------------------
// {Key}Functions_inl.h

// get_namespaced_declaration: the declarations grouped by namespace (at::native becomes at::KEY), in
// order of the namespaces' first appearance, without duplicates, as lines.
std::vector<std::string> namespacedDeclarationLines(const EmitContext& ctx, DispatchKey key) {
  const RegisterDispatchKeyEmitter emitter(ctx, ctx.backendIndex(key),
                                           KernelTargets{.declarations = true, .definitions = false});
  const std::string dispatchNamespace = lowerKeyName(key);
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> byNamespace;
  std::map<std::string, const model::FunctionOrGroup*> firstItem;
  KernelCode code;
  for (const model::FunctionOrGroup& item : ctx.ops.grouped()) {
    Expected<std::string> ns = kernelNamespace(emitter.kernels(), key, item);
    if (!ns) {
      model::reportError(ctx.diags, item, ns.error().message);
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
      model::reportError(ctx.diags, *firstItem[name], ns.error().message);
      continue;
    }
    std::set<std::string_view> seen;
    std::string declarations;
    for (const std::string& k : kernels) {
      if (!seen.insert(k).second) continue;
      if (seen.size() > 1) declarations.push_back('\n');
      declarations.append(k);
    }
    const std::string text = support::fillSnippet(
        kNamespacedDeclarations, {{"prologue", ns->prologue}, {"declarations", declarations}, {"epilogue", ns->epilogue}});
    for (std::string_view line : support::split(text, "\n")) lines.emplace_back(line);
  }
  return lines;
}

// With per-operator headers: the ops/{root}_{key}_dispatch.h that declare something, sorted.
std::vector<std::string> dispatchHeaderIncludes(const EmitContext& ctx, DispatchKey key) {
  const RegisterDispatchKeyEmitter emitter(ctx, ctx.backendIndex(key),
                                           KernelTargets{.declarations = true, .definitions = false});
  const std::string dispatchNamespace = lowerKeyName(key);
  std::set<std::string> roots;
  KernelCode code;
  for (const model::FunctionOrGroup& item : ctx.ops.grouped()) {
    std::string root = model::representative(item).rootName();
    if (roots.count(root)) continue;
    code.clear();
    emitter.emit(item, code);
    if (!code.namespacedDeclarations.empty()) roots.insert(std::move(root));
  }
  std::vector<std::string> includes;
  includes.reserve(roots.size());
  for (const std::string& root : roots)
    includes.push_back(atenInclude("ops/" + root + "_" + dispatchNamespace + "_dispatch"));
  return includes;
}

}  // namespace

support::TemplateEnv dispatchKeyFunctionsEnv(model::DispatchKey key) {
  const std::string name(model::dispatchKeyName(key));
  support::TemplateEnv env;
  env.set("dispatch_key", name);
  env.set("inline_headers", atenInclude(name + "Functions_inl"));
  return env;
}

void emitDispatchKeyFunctions(const EmitContext& ctx, const Writers& out) {
  for (model::DispatchKey key : ctx.dispatchKeys) {
    if (!ctx.isFunctionsKey(key)) continue;
    const std::string name(model::dispatchKeyName(key));
    out.forDispatchKey(key).writeWithTemplate(name + "Functions.h", "DispatchKeyFunctions.h",
                                              [key] { return dispatchKeyFunctionsEnv(key); });
  }
}

void emitDispatchKeyFunctionsInl(const EmitContext& ctx, const Writers& out) {
  for (DispatchKey key : ctx.dispatchKeys) {
    if (!ctx.isFunctionsKey(key)) continue;
    out.forDispatchKey(key).writeWithTemplate(
        std::string(model::dispatchKeyName(key)) + "Functions_inl.h", "DispatchKeyFunctions_inl.h", [&ctx, key] {
          support::TemplateEnv env;
          env.set("dispatch_namespace", lowerKeyName(key));
          if (ctx.perOperatorHeaders) {
            env.set("DispatchKeyFunctions_inl_includes", dispatchHeaderIncludes(ctx, key));
            env.set("dispatch_namespaced_declarations", std::vector<std::string>{});
          } else {
            env.set("DispatchKeyFunctions_inl_includes", std::vector<std::string>{});
            env.set("dispatch_namespaced_declarations", namespacedDeclarationLines(ctx, key));
          }
          return env;
        });
  }
}


}  // namespace opgen::dest
