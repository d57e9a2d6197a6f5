#include "dest/aten/FunctionalInverses.h"

#include "api/Signatures.h"
#include "dest/aten/ViewMetaClasses.h"

namespace opgen::dest {

namespace {

// FunctionalInverses.h's declaration of g's view inverse, or "" (composite views have none).
std::string viewInverseDeclaration(const model::NativeFunctionsViewGroup& g, support::Diagnostics& diags) {
  const model::NativeFunction& view = *g.view;
  if (view.hasCompositeImplicitAutogradKernel) return "";
  if (view.func.returns.empty()) {
    model::reportError(diags, view, "Expected at least one return value");
    return "";
  }
  for (const model::Return& r : view.func.returns) {
    if (!r.type.isTensorLike()) {
      model::reportError(diags, view, "Expected tensor-like return type, got " + r.type.str());
      return "";
    }
  }
  if (auto ok = checkFirstArgumentIsTensor(view.func); !ok) {
    model::reportError(diags, view, ok.error().message);
    return "";
  }
  return api::ViewInverseSignature(g, api::Options::of(g)).decl();
}

}  // namespace

void emitFunctionalInverses(const EmitContext& ctx, const Writers& out) {
  out.cpu.write("FunctionalInverses.h", [&] {
    std::vector<std::string> decls;
    for (const model::NativeFunctionsViewGroup* g : ctx.ops.viewGroups()) {
      std::string d = viewInverseDeclaration(*g, ctx.diags);
      if (!d.empty()) decls.push_back(std::move(d));
    }
    support::TemplateEnv env;
    env.set("view_inverse_declarations", std::move(decls));
    return env;
  });
}

}  // namespace opgen::dest
