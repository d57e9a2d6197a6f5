#include "dest/aten/OperatorHeaders.h"

#include "dest/aten/Functions.h"
#include "dest/aten/OperatorsCpp.h"
#include "dest/aten/StaticDispatch.h"
#include "dest/common/NativeDeclarations.h"
#include "dest/common/OperatorRoots.h"
#include "dest/common/RegisterDispatchKey.h"

namespace opgen::dest {

namespace {

using FunctionList = std::vector<const model::NativeFunction*>;

std::vector<const model::FunctionOrGroup*> allItems(const model::Operators& ops) {
  std::vector<const model::FunctionOrGroup*> items;
  items.reserve(ops.grouped().size());
  for (const model::FunctionOrGroup& item : ops.grouped()) items.push_back(&item);
  return items;
}

using Lines = std::vector<std::string>;

}  // namespace

void emitAggregatedHeaders(const EmitContext& ctx, const Writers& out) {
  out.cpu.write("NativeMetaFunctions.h", [&ctx] {
    support::TemplateEnv env;
    env.set("NativeMetaFunctions_includes", Lines{});
    env.set("NativeMetaFunctions_declarations", metaFunctionDeclarations(ctx.ops.groups(), ctx.diags));
    return env;
  });
  FunctionList methods, nonMethods;
  for (const model::NativeFunction* f : ctx.ops.functions())
    (f->hasVariant(model::Variant::Method) ? methods : nonMethods).push_back(f);
  out.cpu.write("MethodOperators.h", [&] {
    support::TemplateEnv env;
    env.set("MethodOperators_includes", Lines{});
    env.set("MethodOperators_declarations", operatorDeclarations(methods, ctx.diags));
    return env;
  });
  out.cpu.write("Operators.h", [&] {
    support::TemplateEnv env;
    env.set("Operators_includes", Lines{"#include <ATen/MethodOperators.h>"});
    env.set("Operators_declarations", operatorDeclarations(nonMethods, ctx.diags));
    return env;
  });
  out.cpu.write("Functions.h", [&ctx] {
    support::TemplateEnv env;
    env.set("static_dispatch_extra_headers", staticDispatchExtraHeaders(ctx.staticDispatchIndices));
    env.set("Functions_includes", Lines{"#include <ATen/Operators.h>"});
    env.set("Functions_declarations", functionDefinitionList(ctx, ctx.ops.functions()));
    return env;
  });
  // torchgen computes the kernel declarations even in a dry run (and so reports their errors).
  const NativeDeclarations native(ctx.ops, ctx.ops.backendIndices(), nativeDeclarationsSeeEmptyIndex(ctx));
  Lines nativeLines = native.lines(allItems(ctx.ops), ctx.diags);
  out.cpu.write("NativeFunctions.h", [&] {
    support::TemplateEnv env;
    env.set("NativeFunctions_includes", Lines{"#include <ATen/NativeMetaFunctions.h>"});
    env.set("NativeFunctions_declarations", std::move(nativeLines));
    return env;
  });
}

void emitPerOperatorHeaders(const EmitContext& ctx, const Writers& out) {
  const std::vector<OperatorRoot> roots = operatorRoots(ctx.ops);
  const NativeDeclarations native(ctx.ops, ctx.ops.backendIndices(), nativeDeclarationsSeeEmptyIndex(ctx));
  for (const OperatorRoot& e : roots) {
    out.ops.writeWithTemplate(e.name + "_ops.h", "Operator.h", [&] {
      support::TemplateEnv env;
      env.set("declarations", operatorDeclarations(e.functions, ctx.diags));
      return env;
    });
    out.ops.writeWithTemplate(e.name + ".h", "Function.h", [&] {
      Lines staticHeaders;
      for (const model::NativeFunction* f : e.functions)
        if (auto h = staticDispatchOpsHeader(*f, ctx.staticDispatchIndices)) staticHeaders.push_back(std::move(*h));
      support::TemplateEnv env;
      env.set("static_dispatch_ops_headers", std::move(staticHeaders));
      env.set("operator_includes", atenInclude("ops/" + e.name + "_ops"));
      env.set("function_definitions", functionDefinitionList(ctx, e.functions));
      return env;
    });
    std::vector<const model::NativeFunctionsGroup*> structured;
    for (const model::FunctionOrGroup* item : e.items)
      if (const auto* g = std::get_if<model::NativeFunctionsGroup>(item); g != nullptr && g->structured())
        structured.push_back(g);
    if (!structured.empty()) {
      out.ops.writeWithTemplate(e.name + "_meta.h", "NativeMetaFunction.h", [&] {
        support::TemplateEnv env;
        env.set("meta_function_declarations", metaFunctionDeclarations(structured, ctx.diags));
        return env;
      });
    }
    // Computed even in a dry run, as torchgen does.
    Lines nativeLines = native.lines(e.items, ctx.diags);
    out.ops.writeWithTemplate(e.name + "_native.h", "NativeFunction.h", [&] {
      support::TemplateEnv env;
      if (structured.empty()) {
        env.set("extra_includes", Lines{});
      } else {
        env.set("extra_includes", atenInclude("ops/" + e.name + "_meta"));
      }
      env.set("native_function_declarations", std::move(nativeLines));
      return env;
    });
  }
}

void emitPerOperatorDispatchHeaders(const EmitContext& ctx, const Writers& out) {
  const std::vector<OperatorRoot> roots = operatorRoots(ctx.ops);
  for (model::DispatchKey key : ctx.dispatchKeys) {
    if (!ctx.isFunctionsKey(key)) continue;
    const std::string dispatchNamespace = lowerKeyName(key);
    const RegisterDispatchKeyEmitter emitter(ctx, ctx.backendIndex(key), KernelTargets{.declarations = true});
    for (const OperatorRoot& e : roots) {
      // Computed even in a dry run: whether the header exists depends on it.
      KernelCode code;
      for (const model::FunctionOrGroup* item : e.items) emitter.emit(*item, code);
      if (code.namespacedDeclarations.empty()) continue;
      out.ops.writeWithTemplate(e.name + "_" + dispatchNamespace + "_dispatch.h", "DispatchKeyFunction.h", [&] {
        support::TemplateEnv env;
        env.set("dispatch_namespace", dispatchNamespace);
        env.set("dispatch_namespaced_declarations", std::move(code.namespacedDeclarations));
        return env;
      });
    }
  }
}

}  // namespace opgen::dest
