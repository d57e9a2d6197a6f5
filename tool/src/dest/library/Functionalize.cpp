#include "dest/library/Functionalize.h"

#include <algorithm>
#include <cctype>

#include "api/Functionalization.h"
#include "api/LibraryPt2.h"
#include "api/Signatures.h"
#include "api/Translate.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

namespace fz = api::functionalization;
using support::Expected;

// ---------------------------------------------------------------------------------------------
// Snippets

// The headers of the Functionalize kernels.  $ns$ the library's namespace
constexpr std::string_view kIncludes = R"cc(#include <ATen/FunctionalStorageImpl.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <$ns$/NativeFunctions.h>
#include <$ns$/Operators.h>
)cc";

// A view's ViewMeta: its arguments after self, owned, and how to replay the view on a new base and
// write a mutated view back into it.
//   $class$         NAME_ViewMeta
//   $op$            the view's name
//   $derives$       " final : public at::functionalization::ViewMeta" (view-meta-classes), or nothing
//   $parameters$    the constructor's parameters
//   $initializers$  the constructor's initializer list, one per line
//   $qualifier$     " override" (view-meta-classes) or " const"
//   $forward$       the view's call on base (reapply_views), $copy_forward$ the view_copy's
//   $reverse$       the inverse's call
//   $fields$        the data members, one per line
constexpr std::string_view kViewMeta = R"cc(
// How functionalization replays $op$ on a new base (forward), and writes a mutated view back into
// its base (reverse, with the library's inverse).
struct $class$$derives$ {
  $class$($parameters$)
      : $initializers$ {}

  at::Tensor forward(const at::Tensor& base)$qualifier$ {
    return reapply_views ? $forward$ : $copy_forward$;
  }

  at::Tensor reverse(const at::Tensor& base, const at::Tensor& mutated_view)$qualifier$ {
    return $reverse$;
  }

  $fields$
};
)cc";

// The ViewMeta of a view, made in the kernel.
//   $class$ NAME_ViewMeta, $arguments$ its constructor's arguments,
//   $symbolic$ ", has_symbolic_inputs" where ViewMeta's constructor takes it, or nothing
constexpr std::string_view kMakeViewMetaClass = "auto view_meta = std::make_shared<$class$>(has_symbolic_inputs, $arguments$);";
constexpr std::string_view kMakeViewMetaReplays = R"cc(auto replay = std::make_shared<const $class$>($arguments$);
  at::functionalization::ViewMeta view_meta(
      [replay](const at::Tensor& base, int64_t) { return replay->forward(base); },
      [replay](const at::Tensor& base, const at::Tensor& mutated_view, int64_t) {
        return replay->reverse(base, mutated_view);
      }$symbolic$);)cc";

// A view's Functionalize kernel.
//   $signature$     its definition head (the view's dispatcher signature, with a DispatchKeySet)
//   $op$            the view's name; $view$ / $copy$ the _ops structs of the view and of its view_copy
//   $self$          the view's first argument
//   $arguments$     the view's arguments; $unwrapped$ the same with $self$_ for $self$
//   $symbolic$      has_symbolic_inputs' computation, a statement per line (each after a line break),
//                   where the ViewMeta takes it
//   $make_view_meta$ kMakeViewMeta*
constexpr std::string_view kKernel = R"cc(
// The Functionalize kernel of $op$: a functional tensor's view is a new FunctionalTensorWrapper
// sharing its base's storage, with the ViewMeta that replays the view and reverses a mutation of it.
$signature$ {
  if (!at::functionalization::impl::isFunctionalTensor($self$)) {
    // Not a functional tensor: the view itself.
    at::AutoDispatchSkipFunctionalize guard;
    return $view$::call($arguments$);
  }
  const at::Tensor $self$_ = at::functionalization::impl::from_functional_tensor($self$);
  const bool reapply_views = at::functionalization::impl::getFunctionalizationReapplyViewsTLS();
  const InverseReturnMode inverse_return_mode =
      reapply_views ? InverseReturnMode::ViewOrScatterInverse : InverseReturnMode::NeverView;
  at::Tensor tmp_output;
  {
    at::AutoDispatchSkipFunctionalize guard;
    tmp_output = reapply_views ? $view$::call($unwrapped$) : $copy$::call($unwrapped$);
  }$symbolic$
  $make_view_meta$
  return at::detail::make_tensor<at::FunctionalTensorWrapper>(
      tmp_output, at::functionalization::impl::unsafeGetFunctionalWrapper($self$), view_meta);
}
)cc";

// The kernels, in the library's kernel namespace (where InverseReturnMode and the inverses are).
//   $ns$ the library's namespace, $code$ the ViewMetas and kernels, $impls$ their registrations
constexpr std::string_view kBlock = R"cc(
namespace $ns$::native {
namespace {
$code$
} // namespace
} // namespace $ns$::native

// Functionalization (torch.compile, AOTAutograd) of the library's view operators: PyTorch's fallback
// refuses an operator whose output aliases an input.
TORCH_LIBRARY_IMPL($ns$, Functionalize, m) {
  $impls$
}

)cc";
//   $name$ the operator, $kernel$ its kernel
constexpr std::string_view kImpl = R"cc(m.impl("$name$", TORCH_FN($kernel$));)cc";

// The inverses' declarations in NativeFunctions.h.
//   $ns$ the library's namespace, $guard$ the include guard of InverseReturnMode, $decls$ the inverses
constexpr std::string_view kInverseDeclarations = R"cc(namespace $ns$::native {
#ifndef $guard$
#define $guard$
// How a view inverse returns the base it makes (the values of at::functionalization::InverseReturnMode):
// AlwaysView: a view of mutated_view where it can; NeverView: a new tensor; ViewOrScatterInverse: a view,
// unless a copying scatter is the inverse.
enum class InverseReturnMode { AlwaysView, NeverView, ViewOrScatterInverse };
#endif
// The view inverses the library writes: given the base of a view and the view mutated, the base with
// the mutation (see opgen's docs, PyTorch 2).
$decls$
} // namespace $ns$::native
)cc";

// ---------------------------------------------------------------------------------------------

std::string kernelName(const model::NativeFunction& view) { return view.func.name.unambiguousName() + "_functionalize"; }

// The ViewMeta's members: reapply_views, inverse_return_mode and the view's arguments after self
// (owning, or not), inverse_return_mode with the library's type.
std::vector<api::Binding> attributes(const model::NativeFunction& view, const api::Options& options, bool owning) {
  std::vector<api::Binding> r = fz::attributes(view.func, options, owning);
  for (api::Binding& b : r)
    if (b.name == fz::inverseReturnModeBinding().name)
      b.nctype = api::NamedCType{b.nctype.name, api::CType::base(api::LibraryInverseReturnModeT)};
  return r;
}

// The call of `op` (an _ops struct's call, or the inverse) with `goals` from the ViewMeta's members.
Expected<std::string> callFromMembers(const std::string& op, const std::vector<api::Binding>& goals,
                                      const std::vector<api::Binding>& members, bool withMutatedView) {
  std::vector<api::Binding> context{fz::baseBinding()};
  context.insert(context.end(), members.begin(), members.end());
  if (withMutatedView) context.push_back(fz::mutatedViewBinding());
  auto exprs = api::translate(context, goals);
  if (!exprs) return exprs.error();
  return op + "(" + support::joinMapped(*exprs, ", ", [](const api::Expr& e) -> const std::string& { return e.expr; }) + ")";
}

std::string viewOpName(const model::NativeFunction& f) { return f.ns + "::_ops::" + f.func.name.unambiguousName(); }
std::string viewMetaName(const model::NativeFunction& view) { return view.func.name.unambiguousName() + "_ViewMeta"; }

// kViewMeta for view group g.
Expected<std::string> viewMetaStruct(const EmitContext& ctx, const model::NativeFunctionsViewGroup& g) {
  const model::NativeFunction& view = *g.view;
  const api::LibtorchFacts& libtorch = ctx.libtorch();
  const api::Spelling& spelling = api::Spelling::of(libtorch);
  const api::Options options = api::Options::of(view, libtorch);
  const std::vector<api::Binding> params = attributes(view, options, /*owning=*/false);
  const std::vector<api::Binding> fields = attributes(view, options, /*owning=*/true);
  auto initialized = api::translate(params, fields, {.method = false, .allowExpensiveConversions = true});
  if (!initialized) return initialized.error();
  std::vector<std::string> initializers;
  if (libtorch.viewMetaClasses) initializers.push_back("at::functionalization::ViewMeta(has_symbolic_inputs)");
  for (const api::Expr& e : *initialized) initializers.push_back(e.type.name.str() + "(" + e.expr + ")");
  std::string parameters = api::joinDecls(params, spelling);
  if (libtorch.viewMetaClasses) parameters = "bool has_symbolic_inputs, " + parameters;
  const auto forwardGoals = fz::opArguments(g.viewCopy->func, /*isReverse=*/false, options);
  auto forward = callFromMembers(viewOpName(view) + "::call", forwardGoals, fields, false);
  if (!forward) return forward.error();
  auto copyForward = callFromMembers(viewOpName(*g.viewCopy) + "::call", forwardGoals, fields, false);
  if (!copyForward) return copyForward.error();
  auto reverse = callFromMembers(api::libraryViewInverseName(view), api::libraryViewInverseArguments(view, libtorch),
                                 fields, true);
  if (!reverse) return reverse.error();
  return support::fillSnippet(
      kViewMeta, {{"class", viewMetaName(view)},
                  {"op", view.func.name.str()},
                  {"derives", libtorch.viewMetaClasses ? " final : public at::functionalization::ViewMeta" : ""},
                  {"parameters", parameters},
                  {"initializers", support::join(initializers, ",\n        ")},
                  {"qualifier", libtorch.viewMetaClasses ? " override" : " const"},
                  {"forward", *forward},
                  {"copy_forward", *copyForward},
                  {"reverse", *reverse},
                  {"fields", support::joinMapped(fields, "\n  ", [&](const api::Binding& b) {
                     return b.defn(spelling) + ";";
                   })}});
}

struct ViewCode {
  std::string code, impl;
};

// The ViewMeta and the kernel of view group g, and the kernel's registration.
Expected<ViewCode> viewCode(const EmitContext& ctx, const model::NativeFunctionsViewGroup& g) {
  const model::NativeFunction& view = *g.view;
  const api::LibtorchFacts& libtorch = ctx.libtorch();
  const api::Options options = api::Options::of(view, libtorch);
  const std::string viewOp = viewOpName(view), copyOp = viewOpName(*g.viewCopy), cls = viewMetaName(view);
  Expected<std::string> viewMeta = viewMetaStruct(ctx, g);
  if (!viewMeta) return viewMeta.error();
  ViewCode out;
  out.code = *viewMeta;

  // The kernel.
  const auto sig = api::DispatcherSignature::fromSchema(view.func, options);
  const std::string& self = sig.arguments()[0].name;
  std::vector<std::string> arguments, unwrapped, symbolic;
  for (const api::Binding& b : sig.arguments()) {
    arguments.push_back(b.name);
    unwrapped.push_back(b.name == self ? self + "_" : b.name);
    const model::Argument* a = b.schemaArgument();
    if (a == nullptr || !a->type.isSymIntLike()) continue;
    auto check = fz::hasSymbolicValues(b.name, b.nctype.type);
    if (!check) return check.error();
    symbolic.push_back("has_symbolic_inputs = has_symbolic_inputs || (" + *check + ");");
  }
  const std::string ctorArguments = api::joinNames(attributes(view, options, /*owning=*/false));
  const std::string makeViewMeta =
      libtorch.viewMetaClasses
          ? support::fillSnippet(kMakeViewMetaClass, {{"class", cls}, {"arguments", ctorArguments}})
          : support::fillSnippet(kMakeViewMetaReplays,
                                 {{"class", cls},
                                  {"arguments", ctorArguments},
                                  {"symbolic", libtorch.viewMetaSymbolicInputs ? ", has_symbolic_inputs" : ""}});
  if (libtorch.viewMetaSymbolicInputs || libtorch.viewMetaClasses)
    symbolic.insert(symbolic.begin(), "bool has_symbolic_inputs = false;");
  else
    symbolic.clear();
  out.code += support::fillSnippet(
      kKernel, {{"signature", sig.defn({.name = kernelName(view), .isRedispatchingFn = true})},
                {"op", view.func.name.str()},
                {"view", viewOp},
                {"copy", copyOp},
                {"self", self},
                {"arguments", support::join(arguments, ", ")},
                {"unwrapped", support::join(unwrapped, ", ")},
                {"symbolic", support::joinMapped(symbolic, "", [](const std::string& s) { return "\n  " + s; })},
                {"make_view_meta", makeViewMeta}});
  out.impl = support::fillSnippet(kImpl, {{"name", view.func.name.str()}, {"kernel", view.ns + "::native::" + kernelName(view)}});
  return out;
}

}  // namespace

std::string libraryFunctionalizeKernels(const EmitContext& ctx, const std::string& ns) {
  std::string code;
  std::vector<std::string> impls;
  for (const api::LibraryView& v : api::libraryViews(ctx.ops)) {
    if (!v.unsupported.empty()) continue;
    Expected<ViewCode> c = viewCode(ctx, *v.group);
    if (!c) {
      model::reportError(ctx.diags, *v.group->view, c.error().message);
      continue;
    }
    code += c->code;
    impls.push_back(std::move(c->impl));
  }
  if (impls.empty()) return {};
  return support::fillSnippet(kIncludes, {{"ns", ns}}) +
         support::fillSnippet(kBlock, {{"ns", ns}, {"code", code}, {"impls", support::join(impls, "\n  ")}});
}

std::vector<std::string> libraryViewInverseDeclarations(const EmitContext& ctx,
                                                        const std::vector<const model::NativeFunction*>& functions) {
  std::vector<std::string> decls;
  std::string ns;
  for (const api::LibraryView& v : api::libraryViews(ctx.ops)) {
    const model::NativeFunction& view = *v.group->view;
    if (!v.unsupported.empty() || std::find(functions.begin(), functions.end(), &view) == functions.end()) continue;
    ns = view.ns;
    decls.push_back("TORCH_API at::Tensor " + api::libraryViewInverseName(view) + "(" +
                    api::joinDecls(api::libraryViewInverseArguments(view, ctx.libtorch()),
                                   api::Spelling::of(ctx.libtorch())) +
                    ");");
  }
  if (decls.empty()) return {};
  std::string guard = "OPGEN_" + ns + "_INVERSE_RETURN_MODE";
  for (char& c : guard) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string text =
      support::fillSnippet(kInverseDeclarations, {{"ns", ns}, {"guard", guard}, {"decls", support::join(decls, "\n")}});
  std::vector<std::string> lines = {""};
  for (std::string_view line : support::split(text, "\n")) lines.emplace_back(line);
  return lines;
}

}  // namespace opgen::dest
