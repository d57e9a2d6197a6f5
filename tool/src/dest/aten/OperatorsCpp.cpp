#include "dest/aten/OperatorsCpp.h"

#include "api/Signatures.h"
#include "dest/aten/StaticDispatch.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"

namespace opgen::dest {

namespace {

// Legend: $name$ the unambiguous operator name (add_Tensor), $schema_type$ the dispatcher signature's
// function type, $base$ the operator name without overload, $overload$ the overload name, $schema_str$
// the schema as a C++ string literal, $call$ / $redispatch$ the entry points' declarations.
constexpr std::string_view kDeclaration = R"txt(
struct TORCH_API $name$ {
  using schema = $schema_type$;
  using ptr_schema = schema*;
  // See Note [static constexpr char* members for windows NVCC]
  static constexpr const char* name = "aten::$base$";
  static constexpr const char* overload_name = "$overload$";
  static constexpr const char* schema_str = $schema_str$;
  static $call$;
  static $redispatch$;
};)txt";

// Legend: $schema$ the function schema, $name$ the unambiguous operator name.
constexpr std::string_view kTypedHandle = R"txt(
// aten::$schema$
static C10_NOINLINE c10::TypedOperatorHandle<$name$::schema> create_$name$_typed_handle() {
  return c10::Dispatcher::singleton()
      .findSchemaOrThrow($name$::name, $name$::overload_name)
      .typed<$name$::schema>();
}
)txt";

// Legend: $schema$ the function schema, $head$ the entry point's definition head, $body$ its body,
// indented. $body$ stands at the start of its line: torchgen's bodies start with a line break, which
// left blanks at the end of the line before, and Operators.cpp's template strips those line by
// line from a definition that has any but copies one without any in one piece.
constexpr std::string_view kEntryPoint = R"txt(
// aten::$schema$
$head$ {
$body$
}
)txt";

// Legend: $name$ the unambiguous operator name, $method$ call or redispatch, $args$ the arguments.
constexpr std::string_view kDispatcherCall = R"txt(
    static auto op = create_$name$_typed_handle();
    return op.$method$($args$);)txt";

// A one-element list that takes `item` over (std::vector's initializer-list and (count, value)
// constructors would copy it).
std::vector<std::string> oneItem(std::string item) {
  std::vector<std::string> list;
  list.push_back(std::move(item));
  return list;
}

}  // namespace

support::Expected<std::string> operatorDeclaration(const model::NativeFunction& f) {
  if (auto check = checkCppApi(f); !check) return check;
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, api::Options::of(f));
  const std::string name = f.func.name.unambiguousName();
  return support::fillSnippet(kDeclaration, {{"name", name},
                                    {"schema_type", sig.type()},
                                    {"base", f.func.name.name.str()},
                                    {"overload", f.func.name.overloadName},
                                    {"schema_str", support::cppString(f.schemaString)},
                                    {"call", sig.defn({.name = "call"})},
                                    {"redispatch", sig.defn({.name = "redispatch", .isRedispatchingFn = true})}});
}

support::Expected<std::string> operatorDefinitions(const model::NativeFunction& f,
                                                   const std::vector<model::BackendIndex>& staticDispatch) {
  if (auto check = checkCppApi(f); !check) return check;
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, api::Options::of(f));
  const std::string name = f.func.name.unambiguousName();
  const std::string& schema = f.schemaString;
  const std::string args = api::joinNames(sig.arguments());

  std::string callBody;
  if (staticDispatch.empty()) {
    callBody = support::fillSnippet(kDispatcherCall, {{"name", name}, {"method", "call"}, {"args", args}});
  } else {
    support::Expected<std::string> body = staticDispatchBody(sig, f, staticDispatch);
    if (!body) return body;
    callBody = body.take();
    if (!callBody.empty() && callBody[0] != '\n') callBody.insert(0, "    ");  // its line's indentation
  }
  const std::string redispatchArgs = args.empty() ? "dispatchKeySet" : "dispatchKeySet, " + args;
  const std::string redispatchBody =
      support::fillSnippet(kDispatcherCall, {{"name", name}, {"method", "redispatch"}, {"args", redispatchArgs}});
  const std::string callHead = sig.defn({.name = name + "::call"});
  const std::string redispatchHead = sig.defn({.name = name + "::redispatch", .isRedispatchingFn = true});

  // Reserved once (kTypedHandle names the operator 5 times): appendSnippet grows the string by
  // exactly what each snippet adds, which would reallocate it for every snippet.
  std::string out;
  out.reserve(kTypedHandle.size() + 2 * kEntryPoint.size() + 3 * schema.size() + 5 * name.size() + callHead.size() +
              callBody.size() + redispatchHead.size() + redispatchBody.size());
  support::appendSnippet(out, kTypedHandle, {{"schema", schema}, {"name", name}});
  support::appendSnippet(out, kEntryPoint, {{"schema", schema}, {"head", callHead}, {"body", callBody}});
  support::appendSnippet(out, kEntryPoint, {{"schema", schema}, {"head", redispatchHead}, {"body", redispatchBody}});
  return out;
}

std::vector<std::string> operatorDeclarations(const std::vector<const model::NativeFunction*>& functions,
                                              support::Diagnostics& diags) {
  std::vector<std::string> out;
  out.reserve(functions.size());
  for (const model::NativeFunction* f : functions) out.push_back(valueOrReport(operatorDeclaration(*f), *f, diags));
  return out;
}

void emitOperatorsCpp(const EmitContext& ctx, const Writers& out) {
  Sharded spec{.filename = "Operators.cpp",
               .templateName = "Operators.cpp",
               .numShards = 5,
               .baseEnv = {{"static_dispatch_extra_headers",
                            support::TemplateValue(staticDispatchExtraHeaders(ctx.staticDispatchIndices))}},
               .shardedKeys = {"operator_headers", "definitions", "static_dispatch_extra_headers"}};
  const std::vector<const model::NativeFunction*>& functions = ctx.ops.functions();
  out.cpu.writeSharded(
      spec, functions, [](const model::NativeFunction* f) { return f->rootName(); },
      [&ctx](const model::NativeFunction* f) {
        // Built by emplace_back: a braced ShardEnv would copy its elements (initializer_list
        // elements are const), and the definitions are a few kilobytes per operator.
        ShardEnv env;
        env.reserve(2);
        env.emplace_back("operator_headers", oneItem(atenInclude("ops/" + f->rootName())));
        env.emplace_back("definitions",
                         oneItem(valueOrReport(operatorDefinitions(*f, ctx.staticDispatchIndices), *f, ctx.diags)));
        return env;
      });
}

}  // namespace opgen::dest
