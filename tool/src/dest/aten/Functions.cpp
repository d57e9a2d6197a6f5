#include "dest/aten/Functions.h"

#include "dest/common/ApiTable.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"

namespace opgen::dest {

namespace {

// Legend for every snippet below: $schema$ the function schema, $decl$ / $defn$ the C++ API
// signature's declaration / definition head, $op$ the unambiguous operator name (at::_ops::$op$),
// $args$ the dispatcher's arguments expressed with the signature's.
constexpr std::string_view kFunction = R"txt(
// aten::$schema$
inline $decl$ {
    return at::_ops::$op$::call($args$);
})txt";

// Also $int$: the integer type the template is enabled for (int64_t or c10::SymInt).
constexpr std::string_view kSymintTemplate = R"txt(
namespace symint {
  template <typename T, typename = std::enable_if_t<std::is_same_v<T, $int$>>>
  $decl$ {
    return at::_ops::$op$::call($args$);
  }
}
)txt";

constexpr std::string_view kRedispatch = R"txt(
// aten::$schema$
inline $decl$ {
    return at::_ops::$op$::redispatch($args$);
}
)txt";

}  // namespace

support::Expected<std::string> functionDefinitions(const CallApi& api, const model::NativeFunction& f) {
  if (!api.check) return api.check;
  const std::string& schema = f.schemaString;
  const std::string op = f.func.name.unambiguousName();
  const bool function = f.hasVariant(model::Variant::Function);
  const bool symint = f.func.hasSymInt();
  std::string out;
  for (const CallApi::Overload& o : api.overloads) {
    if (!o.args) return o.args;
    if (function)
      support::appendSnippet(out, kFunction, {{"schema", schema}, {"decl", o.decl}, {"op", op}, {"args", *o.args}});
    // Generated even for methods, so that templates can pick the SymInt overload or not.
    if (symint) {
      support::appendSnippet(out, kSymintTemplate,
                    {{"int", o.symint ? "c10::SymInt" : "int64_t"},
                     {"decl", o.declWithoutSuffix},
                     {"op", op},
                     {"args", *o.args}});
    }
  }
  return out;
}

support::Expected<std::string> redispatchDefinitions(const CallApi& api, const model::NativeFunction& f) {
  if (!api.check) return api.check;
  const std::string& schema = f.schemaString;
  const std::string op = f.func.name.unambiguousName();
  std::string out;
  for (const CallApi::Overload& o : api.overloads) {
    if (!o.args) return o.args;
    const std::string allArgs = o.args->empty() ? "dispatchKeySet" : "dispatchKeySet, " + *o.args;
    support::appendSnippet(out, kRedispatch, {{"schema", schema}, {"decl", o.redispatchDecl}, {"op", op}, {"args", allArgs}});
  }
  return out;
}

std::vector<std::string> functionDefinitionList(const EmitContext& ctx,
                                                const std::vector<const model::NativeFunction*>& functions) {
  std::vector<std::string> out;
  out.reserve(functions.size());
  for (const model::NativeFunction* f : functions)
    out.push_back(valueOrReport(functionDefinitions(ctx.api.of(*f).call(), *f), *f, ctx.diags));
  return out;
}

void emitRedispatchFunctions(const EmitContext& ctx, const Writers& out) {
  out.cpu.write("RedispatchFunctions.h", [&ctx] {
    std::vector<std::string> definitions;
    definitions.reserve(ctx.ops.functions().size());
    for (const model::NativeFunction* f : ctx.ops.functions())
      definitions.push_back(valueOrReport(redispatchDefinitions(ctx.api.of(*f).call(), *f), *f, ctx.diags));
    support::TemplateEnv env;
    env.set("function_redispatch_definitions", std::move(definitions));
    return env;
  });
}

}  // namespace opgen::dest
