#include "dest/CppApi.h"

#include "api/Signatures.h"
#include "api/Translate.h"
#include "dest/FunctionContext.h"
#include "dest/SnippetFill.h"

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

constexpr std::string_view kMethodDeclaration = "$decl$ const;\n";

constexpr std::string_view kMethodDefinition = R"txt(
// aten::$schema$
inline $defn$ const {
    return at::_ops::$op$::call($args$);
}
)txt";

constexpr std::string_view kRedispatch = R"txt(
// aten::$schema$
inline $decl$ {
    return at::_ops::$op$::redispatch($args$);
}
)txt";

// The public C++ API overloads of f (faithful and SymInt variants included).
api::CppSignatureGroup cppSignatures(const model::NativeFunction& f, bool method) {
  return api::CppSignatureGroup::fromNativeFunction(f, {.method = method, .fallbackBinding = f.manualCppBinding},
                                                    api::Options::of(f));
}

// f's dispatcher signature (at::_ops::NAME::call's).
api::DispatcherSignature dispatcherSignature(const model::NativeFunction& f) {
  return api::DispatcherSignature::fromSchema(f.func, api::Options::of(f));
}

// The arguments of at::_ops::NAME::call (`target`) expressed with `sig`'s bindings.
support::Expected<std::string> dispatcherArgs(const api::DispatcherSignature& target, const api::CppSignature& sig,
                                              bool method) {
  support::Expected<std::vector<api::Expr>> exprs =
      api::translate(sig.arguments(), target.arguments(), api::TranslateOptions{.method = method});
  if (!exprs) return exprs.error();
  return api::joinExprs(*exprs);
}

// Errors unless f can be a Tensor method.
support::Expected<std::string> checkMethod(const model::NativeFunction& f) {
  if (f.func.isOutFn()) return support::makeError("Method variant cannot be an out function: " + f.func.str());
  if (!f.func.arguments.selfArg) return support::makeError("Method variant must have self_arg: " + f.func.str());
  return checkCppApi(f);
}

}  // namespace

CallApiCache::Entry::Entry(const model::NativeFunction& f) : check(checkCppApi(f)) {
  if (!check) return;
  const api::CppSignatureGroup group = cppSignatures(f, /*method=*/false);
  const api::DispatcherSignature target = dispatcherSignature(f);
  const bool symintFunction = f.func.hasSymInt();
  for (const api::CppSignature* sig : group.signatures()) {
    overloads.push_back(Overload{.decl = sig->decl(),
                                 .declWithoutSuffix = symintFunction ? sig->decl({.suppressSymintSuffix = true}) : "",
                                 .redispatchDecl = sig->decl({.isRedispatchingFn = true}),
                                 .symint = sig->symint(),
                                 .args = dispatcherArgs(target, *sig, /*method=*/false)});
  }
}

namespace {

// f's entry from `cache`, or made in `own` without one.
const CallApiCache::Entry& callApi(const model::NativeFunction& f, CallApiCache* cache,
                                   std::optional<CallApiCache::Entry>& own) {
  return cache != nullptr ? cache->get(f) : own.emplace(f);
}

}  // namespace

support::Expected<std::string> functionDefinitions(const model::NativeFunction& f, CallApiCache* cache) {
  std::optional<CallApiCache::Entry> own;
  const CallApiCache::Entry& api = callApi(f, cache, own);
  if (!api.check) return api.check;
  const std::string& schema = f.schemaString;
  const std::string op = f.func.name.unambiguousName();
  const bool function = f.hasVariant(model::Variant::Function);
  const bool symint = f.func.hasSymInt();
  std::string out;
  for (const CallApiCache::Overload& o : api.overloads) {
    if (!o.args) return o.args;
    if (function)
      appendSnippet(out, kFunction, {{"schema", schema}, {"decl", o.decl}, {"op", op}, {"args", *o.args}});
    // Generated even for methods, so that templates can pick the SymInt overload or not.
    if (symint) {
      appendSnippet(out, kSymintTemplate,
                    {{"int", o.symint ? "c10::SymInt" : "int64_t"},
                     {"decl", o.declWithoutSuffix},
                     {"op", op},
                     {"args", *o.args}});
    }
  }
  return out;
}

support::Expected<std::string> tensorMethodDeclarations(const model::NativeFunction& f) {
  if (auto check = checkMethod(f); !check) return check;
  const api::CppSignatureGroup group = cppSignatures(f, /*method=*/true);
  std::string out;
  for (const api::CppSignature* sig : group.signatures())
    appendSnippet(out, kMethodDeclaration, {{"decl", sig->decl()}});
  return out;
}

support::Expected<std::string> tensorMethodDefinitions(const model::NativeFunction& f) {
  if (auto check = checkMethod(f); !check) return check;
  const api::CppSignatureGroup group = cppSignatures(f, /*method=*/true);
  const std::string& schema = f.schemaString;
  const std::string op = f.func.name.unambiguousName();
  const api::DispatcherSignature target = dispatcherSignature(f);
  std::string out;
  for (const api::CppSignature* sig : group.signatures()) {
    support::Expected<std::string> args = dispatcherArgs(target, *sig, /*method=*/true);
    if (!args) return args;
    appendSnippet(out, kMethodDefinition,
                  {{"schema", schema}, {"defn", sig->defn({.prefix = "Tensor::"})}, {"op", op}, {"args", *args}});
  }
  return out;
}

support::Expected<std::string> redispatchDefinitions(const model::NativeFunction& f, CallApiCache* cache) {
  std::optional<CallApiCache::Entry> own;
  const CallApiCache::Entry& api = callApi(f, cache, own);
  if (!api.check) return api.check;
  const std::string& schema = f.schemaString;
  const std::string op = f.func.name.unambiguousName();
  std::string out;
  for (const CallApiCache::Overload& o : api.overloads) {
    if (!o.args) return o.args;
    const std::string allArgs = o.args->empty() ? "dispatchKeySet" : "dispatchKeySet, " + *o.args;
    appendSnippet(out, kRedispatch, {{"schema", schema}, {"decl", o.redispatchDecl}, {"op", op}, {"args", allArgs}});
  }
  return out;
}

std::vector<std::string> functionDefinitionList(const std::vector<const model::NativeFunction*>& functions,
                                                support::Diagnostics& diags, CallApiCache* cache) {
  std::vector<std::string> out;
  out.reserve(functions.size());
  for (const model::NativeFunction* f : functions)
    out.push_back(valueOrReport(functionDefinitions(*f, cache), *f, diags));
  return out;
}

void emitTensorBody(const EmitContext& ctx, const Writers& out) {
  out.core.write("TensorBody.h", [&ctx] {
    std::vector<std::string> declarations, definitions;
    for (const model::NativeFunction* f : ctx.ops.functions()) {
      if (!f->hasVariant(model::Variant::Method)) continue;
      declarations.push_back(valueOrReport(tensorMethodDeclarations(*f), *f, ctx.diags));
      definitions.push_back(valueOrReport(tensorMethodDefinitions(*f), *f, ctx.diags));
    }
    support::TemplateEnv env;
    env.set("tensor_method_declarations", std::move(declarations));
    env.set("tensor_method_definitions", std::move(definitions));
    return env;
  });
}

void emitRedispatchFunctions(const EmitContext& ctx, const Writers& out) {
  out.cpu.write("RedispatchFunctions.h", [&ctx] {
    std::vector<std::string> definitions;
    definitions.reserve(ctx.ops.functions().size());
    for (const model::NativeFunction* f : ctx.ops.functions())
      definitions.push_back(valueOrReport(redispatchDefinitions(*f, ctx.callApiCache), *f, ctx.diags));
    support::TemplateEnv env;
    env.set("function_redispatch_definitions", std::move(definitions));
    return env;
  });
}

}  // namespace opgen::dest
