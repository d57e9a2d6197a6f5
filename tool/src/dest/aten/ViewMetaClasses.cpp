#include "dest/aten/ViewMetaClasses.h"

#include "api/Functionalization.h"
#include "api/Signatures.h"
#include "api/Translate.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

namespace fz = api::functionalization;
using support::Expected;
using support::makeError;

// ---------------------------------------------------------------------------------------------
// Snippets

// A ViewMeta specialization's declaration.
//   $class$               NAME_ViewMeta
//   $tuple_types$         one line per tuple element: "      TYPE /* NAME */", ",\n"-separated
//   $tuple_elements$      std::get<0>(tpl), ... (one per constructor parameter)
//   $ctor_parameters$     the constructor's parameter declarations
//   $base_ctor_arguments$ what the constructor passes to ViewMeta's
//   $field_initializers$  "        NAME(EXPR)" per field, ",\n"-separated
//   $to_out_index_decl$   the to_out_index override of a multi-output view, or nothing
//   $tuple_arguments$     the names that make up the serializable tuple
//   $field_declarations$  "  TYPE NAME;" per field, "\n"-separated
constexpr std::string_view kDecl = R"cc(
struct TORCH_API $class$ : public ViewMeta {
  FUNCTIONALIZATION_VIEWMETA_NAME($class$)
  FUNCTIONALIZATION_VIEWMETA_SERIALIZABLE_TUPLE(
$tuple_types$);

  $class$(const SerializableTuple& tpl)
      : $class$($tuple_elements$) {}

  $class$($ctor_parameters$)
      : at::functionalization::ViewMeta($base_ctor_arguments$),
$field_initializers$ {}

  Tensor forward(const Tensor& base) override;
  Tensor reverse(const Tensor& base, const Tensor& mutated_view) override;
$to_out_index_decl$

  SerializableTuple to_serializable_tuple() {
    return std::make_tuple($tuple_arguments$);
  }

$field_declarations$
};
)cc";

constexpr std::string_view kToOutIndexDecl = "  std::shared_ptr<ViewMeta> to_out_index(int64_t out_idx) override;";

// forward(): replays the view on a new base.
//   $class$      NAME_ViewMeta
//   $view_call$  the view's call (reapply_views)
//   $copy_call$  the view_copy's call
constexpr std::string_view kForward = R"cc(
at::Tensor $class$::forward(const at::Tensor& base) {
  if (reapply_views) {
    return $view_call$;
  } else {
    return $copy_call$;
  }
})cc";

// reverse(): the view inverse.
//   $class$         NAME_ViewMeta
//   $inverse_call$  the call of FunctionalInverses::NAME_inverse
constexpr std::string_view kReverse = R"cc(
at::Tensor $class$::reverse(const at::Tensor& base, const Tensor& mutated_view) {
  return $inverse_call$;
})cc";

// to_out_index() of a multi-output view: the same specialization for another output.
//   $class$  NAME_ViewMeta
//   $new$    the std::make_shared<...>(...) expression
constexpr std::string_view kToOutIndex = R"cc(
std::shared_ptr<at::functionalization::ViewMeta> $class$::to_out_index(int64_t out_index) {
  return $new$;
}
)cc";

// ---------------------------------------------------------------------------------------------

std::vector<api::Binding> concat(std::vector<api::Binding> a, const std::vector<api::Binding>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string joinedExprs(const std::vector<api::Expr>& exprs) {
  return support::joinMapped(exprs, ", ", [](const api::Expr& e) -> const std::string& { return e.expr; });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ViewMetaSpecialization

ViewMetaSpecialization::ViewMetaSpecialization(const model::NativeFunctionsViewGroup& g, const model::NativeFunction& f)
    : g_(&g), f_(&f), options_(api::Options::of(f)) {}

std::string ViewMetaSpecialization::classname(bool withNamespace) const {
  return fz::classname(f_->func, withNamespace);
}

bool ViewMetaSpecialization::isMultiOutput() const { return fz::isMultiOutput(f_->func); }

std::string ViewMetaSpecialization::newExpr(std::string_view outIndex) const {
  const auto params = concat(fz::baseCtorArguments(f_->func), fz::extraCtorArguments(f_->func, options_));
  std::string out = "std::make_shared<" + classname(true) + ">(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    out += params[i].name == "out_index" ? std::string(outIndex) : params[i].name;
  }
  out += ")";
  return out;
}

Expected<std::string> ViewMetaSpecialization::decl() const {
  const model::FunctionSchema& func = f_->func;
  if (auto ok = checkFirstArgumentIsTensor(func); !ok) return ok.error();
  const auto base = fz::baseCtorArguments(func);
  const auto extra = fz::extraCtorArguments(func, options_);
  const auto fields = fz::attributes(func, options_);
  const auto tupleElements = concat(base, fields);
  const auto params = concat(base, extra);

  auto initializers = api::translate(extra, fields, {.method = false, .allowExpensiveConversions = true});
  if (!initializers) return initializers.error();

  std::string tupleTypes = support::joinMapped(tupleElements, ",\n", [](const api::Binding& b) {
    return "      " + b.type() + " /* " + b.name + " */";
  });
  std::string getters;
  for (size_t i = 0; i < params.size(); ++i) getters += (i ? ", std::get<" : "std::get<") + std::to_string(i) + ">(tpl)";
  const std::string baseArgs = fz::hasSymbolicInputsBinding().name + ", /*is_multi_output=*/" +
                               (isMultiOutput() ? "true" : "false") + ", /*is_as_strided=*/" +
                               (func.name.str() == "as_strided" ? "true" : "false") + ", /*out_index=*/" +
                               (isMultiOutput() ? fz::outIndexBinding().name : "0");
  const std::string initializerList = support::joinMapped(
      *initializers, ",\n", [](const api::Expr& e) { return "        " + e.type.name.str() + "(" + e.expr + ")"; });
  const std::string fieldDecls = support::joinMapped(fields, "\n", [](const api::Binding& b) { return "  " + b.decl() + ";"; });
  const std::string cls = classname();
  return support::fillSnippet(kDecl, {{"class", cls},
                             {"tuple_types", tupleTypes},
                             {"tuple_elements", getters},
                             {"ctor_parameters", api::joinDecls(params)},
                             {"base_ctor_arguments", baseArgs},
                             {"field_initializers", initializerList},
                             {"to_out_index_decl", isMultiOutput() ? kToOutIndexDecl : ""},
                             {"tuple_arguments", api::joinNames(tupleElements)},
                             {"field_declarations", fieldDecls}});
}

Expected<std::string> ViewMetaSpecialization::opCall(bool isReverse, bool reapplyViews) const {
  if (g_->viewCopy == nullptr) return makeError("Expected view_copy to be non-None");
  if (auto ok = checkFirstArgumentIsTensor(g_->viewCopy->func); !ok) return ok.error();
  const std::string op = isReverse ? fz::reverseName(*g_->view, true) : fz::forwardName(*g_, reapplyViews);
  const auto goals = fz::opArguments(g_->viewCopy->func, isReverse, options_);
  std::vector<api::Binding> context{fz::baseBinding()};
  for (const api::Binding& b : fz::baseCtorArguments(f_->func)) context.push_back(b);
  for (const api::Binding& b : fz::attributes(f_->func, options_)) context.push_back(b);
  if (isReverse) context.push_back(fz::mutatedViewBinding());
  auto exprs = api::translate(context, goals);
  if (!exprs) return exprs.error();
  std::string call = op + "(" + joinedExprs(*exprs) + ")";
  if (!isReverse && isMultiOutput()) call += "[" + fz::outIndexBinding().name + "]";
  return call;
}

Expected<std::vector<std::string>> ViewMetaSpecialization::impl() const {
  if (auto ok = checkFirstArgumentIsTensor(f_->func); !ok) return ok.error();
  auto viewCall = opCall(false, true);
  if (!viewCall) return viewCall.error();
  auto copyCall = opCall(false, false);
  if (!copyCall) return copyCall.error();
  auto inverseCall = opCall(true, true);
  if (!inverseCall) return inverseCall.error();
  const std::string cls = classname();
  std::vector<std::string> out;
  out.push_back(support::fillSnippet(kForward, {{"class", cls}, {"view_call", *viewCall}, {"copy_call", *copyCall}}));
  out.push_back(support::fillSnippet(kReverse, {{"class", cls}, {"inverse_call", *inverseCall}}));
  if (isMultiOutput()) out.push_back(support::fillSnippet(kToOutIndex, {{"class", cls}, {"new", newExpr("out_index")}}));
  return out;
}

// ---------------------------------------------------------------------------------------------

std::vector<std::string> viewGroupOpHeaders(const model::NativeFunctionsViewGroup& g) {
  std::vector<std::string> out;
  for (const model::NativeFunction* f : {g.view, g.viewCopy}) {
    if (f == nullptr) continue;
    out.push_back(atenInclude("ops/" + f->rootName() + "_native"));
    out.push_back(atenInclude("ops/" + f->rootName() + "_ops"));
  }
  return out;
}

Expected<std::string> checkFirstArgumentIsTensor(const model::FunctionSchema& func) {
  const auto args = func.arguments.flatAll();
  if (args.empty()) return makeError("Expected a first argument of type Tensor, found no arguments");
  if (!args[0]->type.isBase(model::BaseTy::Tensor))
    return makeError("Expected first arg to be Tensor, got " + args[0]->type.str());
  return std::string();
}

namespace {

// The specializations of g's view and in-place view (none for a composite view or a selective
// build), each rendered by `render`.
template <class Render>
void forEachSpecialization(const EmitContext& ctx, Render render) {
  if (!ctx.selector.includesAllOperators()) return;
  for (const model::NativeFunctionsViewGroup* g : ctx.ops.viewGroups()) {
    if (g->composite()) continue;
    for (const model::NativeFunction* f : {g->view, g->viewInplace})
      if (f != nullptr) render(ViewMetaSpecialization(*g, *f), *f);
  }
}

}  // namespace

void emitViewMetaClasses(const EmitContext& ctx, const Writers& out) {
  out.cpu.write("ViewMetaClasses.h", [&] {
    std::vector<std::string> decls;
    forEachSpecialization(ctx, [&](const ViewMetaSpecialization& spec, const model::NativeFunction& f) {
      if (auto d = spec.decl()) decls.push_back(d.take());
      else model::reportError(ctx.diags, f, d.error().message);
    });
    support::TemplateEnv env;
    env.set("view_meta_declarations", std::move(decls));
    return env;
  });
  out.cpu.write("ViewMetaClasses.cpp", [&] {
    std::vector<std::string> impls;
    forEachSpecialization(ctx, [&](const ViewMetaSpecialization& spec, const model::NativeFunction& f) {
      auto fns = spec.impl();
      if (!fns) return model::reportError(ctx.diags, f, fns.error().message);
      for (std::string& s : *fns) impls.push_back(std::move(s));
    });
    std::vector<std::string> headers;
    for (const model::NativeFunctionsViewGroup* g : ctx.ops.viewGroups())
      for (std::string& h : viewGroupOpHeaders(*g)) headers.push_back(std::move(h));
    support::TemplateEnv env;
    env.set("view_meta_implementations", std::move(impls));
    env.set("op_headers", std::move(headers));
    return env;
  });
}

}  // namespace opgen::dest
