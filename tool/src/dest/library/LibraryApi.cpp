#include "dest/library/LibraryApi.h"

#include "api/Signatures.h"
#include "api/Translate.h"
#include "dest/common/Emit.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"

namespace opgen::dest {

namespace {

// Legend: $schema$ the function schema, $name$ the struct (the unambiguous operator name), $type$ the
// dispatcher signature's function type, $qualified$ "ns::op", $overload$ the overload name,
// $schema_str$ the schema as a C++ literal, $call$ / $redispatch$ the entry points' declarations.
constexpr std::string_view kStruct = R"cc(
// $schema$
struct $name$ {
  using schema = $type$;
  static constexpr const char* name = "$qualified$";
  static constexpr const char* overload_name = "$overload$";
  static constexpr const char* schema_str = $schema_str$;
  static $call$;
  static $redispatch$;
};
)cc";

// Legend: $name$ the struct, $call_head$ / $redispatch_head$ the definitions' heads, $args$ the
// dispatcher arguments, $redispatch_args$ the same after the dispatch key set.
constexpr std::string_view kDefinitions = R"cc(
// $schema$
static const c10::TypedOperatorHandle<$name$::schema>& $name$_handle() {
  static const auto handle = c10::Dispatcher::singleton()
      .findSchemaOrThrow($name$::name, $name$::overload_name)
      .typed<$name$::schema>();
  return handle;
}
$call_head$ {
  return $name$_handle().call($args$);
}
$redispatch_head$ {
  return $name$_handle().redispatch($redispatch_args$);
}
)cc";

// Legend: $schema$ the function schema, $decl$ the C++ API declaration, $ops$ the _ops namespace,
// $name$ the struct, $args$ the dispatcher arguments expressed with the C++ API's.
constexpr std::string_view kFunction = R"cc(
// $schema$
inline $decl$ {
  return $ops$::$name$::call($args$);
}
)cc";

}  // namespace

support::Expected<std::string> libraryOperatorDeclaration(const model::NativeFunction& f, const api::LibtorchFacts& libtorch) {
  if (auto check = checkCppApi(f); !check) return check;
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, api::Options::of(f, libtorch));
  return support::fillSnippet(kStruct, {{"schema", f.func.str()},
                               {"name", f.func.name.unambiguousName()},
                               {"type", sig.type()},
                               {"qualified", f.ns + "::" + f.func.name.name.str()},
                               {"overload", f.func.name.overloadName},
                               {"schema_str", support::cppString(f.func.str())},
                               {"call", sig.decl({.name = "call"})},
                               {"redispatch", sig.decl({.name = "redispatch", .isRedispatchingFn = true})}});
}

support::Expected<std::string> libraryOperatorDefinitions(const model::NativeFunction& f, const api::LibtorchFacts& libtorch) {
  if (auto check = checkCppApi(f); !check) return check;
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, api::Options::of(f, libtorch));
  const std::string name = f.func.name.unambiguousName();
  const std::string args = api::joinNames(sig.arguments());
  return support::fillSnippet(kDefinitions,
                     {{"schema", f.func.str()},
                      {"name", name},
                      {"call_head", sig.defn({.name = name + "::call"})},
                      {"redispatch_head", sig.defn({.name = name + "::redispatch", .isRedispatchingFn = true})},
                      {"args", args},
                      {"redispatch_args", args.empty() ? "dispatchKeySet" : "dispatchKeySet, " + args}});
}

support::Expected<std::string> libraryFunctionDefinitions(const model::NativeFunction& f, std::string_view opsNamespace,
                                                          const api::LibtorchFacts& libtorch) {
  if (auto check = checkCppApi(f); !check) return check;
  const api::Options options = api::Options::of(f, libtorch);
  const api::CppSignatureGroup group =
      api::CppSignatureGroup::fromNativeFunction(f, {.method = false, .fallbackBinding = f.manualCppBinding}, options);
  const api::DispatcherSignature target = api::DispatcherSignature::fromSchema(f.func, options);
  const std::string schema = f.func.str();
  const std::string name = f.func.name.unambiguousName();
  std::string out;
  for (const api::CppSignature* sig : group.signatures()) {
    support::Expected<std::vector<api::Expr>> exprs =
        api::translate(sig->arguments(), target.arguments(), api::TranslateOptions{.libtorch = libtorch});
    if (!exprs) return exprs.error();
    support::appendSnippet(out, kFunction,
                  {{"schema", schema}, {"decl", sig->decl()}, {"ops", opsNamespace}, {"name", name},
                   {"args", api::joinExprs(*exprs)}});
  }
  return out;
}

}  // namespace opgen::dest
