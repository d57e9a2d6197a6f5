#include "dest/aten/TensorBody.h"

#include "api/Signatures.h"
#include "dest/common/ApiTable.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"

namespace opgen::dest {

namespace {

// Legend: $decl$ / $defn$ the C++ API method's declaration / definition head, $schema$ the function
// schema, $op$ the unambiguous operator name (at::_ops::$op$), $args$ the dispatcher's arguments
// expressed with the method's.
constexpr std::string_view kMethodDeclaration = "$decl$ const;\n";

constexpr std::string_view kMethodDefinition = R"txt(
// aten::$schema$
inline $defn$ const {
    return at::_ops::$op$::call($args$);
}
)txt";

// Errors unless f can be a Tensor method.
support::Expected<std::string> checkMethod(const model::NativeFunction& f) {
  if (f.func.isOutFn()) return support::makeError("Method variant cannot be an out function: " + f.func.str());
  if (!f.func.arguments.selfArg) return support::makeError("Method variant must have self_arg: " + f.func.str());
  return checkCppApi(f);
}

}  // namespace

support::Expected<std::string> tensorMethodDeclarations(const model::NativeFunction& f) {
  if (auto check = checkMethod(f); !check) return check;
  const api::CppSignatureGroup group = cppSignatures(f, /*method=*/true);
  std::string out;
  for (const api::CppSignature* sig : group.signatures())
    support::appendSnippet(out, kMethodDeclaration, {{"decl", sig->decl()}});
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
    support::appendSnippet(out, kMethodDefinition,
                  {{"schema", schema}, {"defn", sig->defn({.prefix = "Tensor::"})}, {"op", op}, {"args", *args}});
  }
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

}  // namespace opgen::dest
