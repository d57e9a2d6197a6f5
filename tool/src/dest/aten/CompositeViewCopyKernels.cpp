#include "dest/aten/CompositeViewCopyKernels.h"

#include "api/Dispatcher.h"
#include "api/Signatures.h"
#include "api/Translate.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using support::Expected;
using support::makeError;

// ---------------------------------------------------------------------------------------------
// Snippets

// The kernel of a generated {view}_copy operator.  $signature$ the native kernel's definition head,
// $view$ the view operator's unambiguous name, $args$ its arguments, $return$ the return statements
constexpr std::string_view kViewCopyKernel = R"cc(
$signature$ {
  auto output = at::_ops::$view$::call($args$);
  $return$
}
)cc";
constexpr std::string_view kReturnClone = "  return output.clone(/*memory_format=*/at::MemoryFormat::Contiguous);";
//   $type$ the list's type
constexpr std::string_view kReturnClonedList = R"cc(  $type$ out_clone;
  for (const auto i : c10::irange(output.size())) {
    out_clone.push_back(output[i].clone(/*memory_format=*/at::MemoryFormat::Contiguous));
  }
  return out_clone;)cc";

// torchgen's own kernel for view_copy: reshape when a view would fail.
constexpr std::string_view kViewCopyOperator = "view_copy";
constexpr std::string_view kViewCopyOperatorKernel = "view_copy_symint";
constexpr std::string_view kViewCopyOperatorDefinition = R"cc(at::Tensor view_copy_symint(const at::Tensor & self, at::SymIntArrayRef size) {
  c10::SymDimVector shape = infer_size_dv(size, self.sym_numel());
  if (!at::detail::computeStride(self.sym_sizes(), self.sym_strides(), shape).has_value()) {
    return self.reshape_symint(size);
  } else {
    auto output = at::_ops::view::call(self, size);
    return output.clone(/*memory_format=*/at::MemoryFormat::Contiguous);
  }
}
)cc";

// The kernel of a generated functional operator.  $signature$ its dispatcher definition head,
// $clones$ the clones of mutated inputs, $assign$ `auto output = ` or nothing, $target$ the in-place
// or mutable operator, $args$ its arguments, $return$ the return statement
constexpr std::string_view kFunctionalKernel = R"cc(
$signature$ {
  $clones$
  $assign$at::_ops::$target$::call($args$);
  $return$
}
)cc";
//   $name$ the mutated argument
constexpr std::string_view kCloneArgument = "auto $name$_clone = clone_arg($name$);";

// The kernel of a generated out= operator.  $signature$ its dispatcher definition head,
// $functional$ the functional operator, $args$ its arguments, $copies$ the copies into the out
// arguments, $return$ the return statement
constexpr std::string_view kOutKernel = R"cc(
$signature$ {
  auto tmp_output = at::_ops::$functional$::call($args$);
  $copies$
  $return$
}
)cc";
//   $out$ the out argument, $result$ the functional result that goes there
constexpr std::string_view kCopyOut = R"cc(  resize_out_helper($out$, $result$);
  copy_arg($out$, $result$);)cc";

// The includes of one function (its operator and its native declarations).  $root$ the root name
constexpr std::string_view kOperatorIncludes = "#include <ATen/ops/$root$_ops.h>\n#include <ATen/ops/$root$_native.h>";

// ---------------------------------------------------------------------------------------------

void report(const EmitContext& ctx, const model::NativeFunction& f, const std::string& message) {
  model::reportError(ctx.diags, f, message);
}

bool isGenerated(const model::NativeFunction* f) { return f != nullptr && f->generated(); }

// torchgen's return_str.
Expected<std::string> returnStatement(const std::vector<model::Return>& returns, const std::vector<std::string>& names,
                                      const api::Options& options) {
  if (returns.size() != names.size())
    return makeError("Returns and names length mismatch: " + std::to_string(returns.size()) + " vs " +
                     std::to_string(names.size()));
  if (returns.empty()) return std::string();
  if (returns.size() == 1) return "return " + names[0] + ";";
  return "return " + api::dispatcher::returnsType(returns, options).cppType() + "(" + support::join(names, ", ") + ");";
}

// The name of output i of a call returning `count` values held in `var`.
std::string resultElement(const std::string& var, size_t count, size_t i) {
  return count == 1 ? var : "std::get<" + std::to_string(i) + ">(" + var + ")";
}

// GenCompositeViewCopyKernel.
Expected<std::string> viewCopyKernel(const EmitContext& ctx, const model::NativeFunctionsViewGroup& g) {
  const model::NativeFunction& view = *g.view;
  const model::NativeFunction& copy = *g.viewCopy;
  const model::BackendMetadata* metadata =
      ctx.backendIndex(model::DispatchKey::CompositeExplicitAutogradNonFunctional).find(copy.func.name);
  if (metadata == nullptr) return makeError("Expected metadata for view_copy kernel: " + copy.func.str());
  // view_copy reshapes where a view would fail.
  if (copy.func.name.str() == kViewCopyOperator) {
    if (metadata->kernel != kViewCopyOperatorKernel)
      return makeError("Expected kernel 'view_copy_symint', got '" + metadata->kernel + "'");
    return std::string(kViewCopyOperatorDefinition);
  }
  const api::Options options = api::Options::of(g);
  const api::NativeSignature copySig(copy.func, metadata->supportsSymInt(), options);
  const api::DispatcherSignature viewSig = api::DispatcherSignature::fromSchema(view.func, options);
  Expected<std::vector<api::Expr>> args = api::translate(copySig.arguments(), viewSig.arguments());
  if (!args) return args.error();
  // Views return a tensor or a list of tensors.
  if (view.func.returns.size() != 1)
    return makeError("Expected 1 return, got " + std::to_string(view.func.returns.size()));
  const model::Type& ret = view.func.returns[0].type;
  const bool list = ret.isList() && !ret.size() && ret.elem().isBase(model::BaseTy::Tensor);
  if (!ret.isBase(model::BaseTy::Tensor) && !list)
    return makeError("Expected Tensor or Tensor[] return type, got " + ret.str());
  const std::string result =
      list ? support::fillSnippet(kReturnClonedList, {{"type", copySig.returnsType().cppType()}}) : std::string(kReturnClone);
  return support::fillSnippet(kViewCopyKernel, {{"signature", copySig.defn({.name = metadata->kernel})},
                                       {"view", view.func.name.unambiguousName()},
                                       {"args", api::joinExprs(*args)},
                                       {"return", result}});
}

// gen_composite_functional_kernel: the functional kernel in terms of a non-generated in-place or
// mutable operator.
Expected<std::string> functionalKernel(const model::NativeFunctionsGroup& g) {
  const model::NativeFunction* target = nullptr;
  if (g.inplace != nullptr && !g.inplace->generated()) {
    target = g.inplace;
  } else if (g.mutableFn != nullptr && !g.mutableFn->generated()) {
    target = g.mutableFn;
  } else {
    return makeError(g.functional->func.str());
  }
  const api::Options options = api::Options::of(g);
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(g.functional->func, options);
  const api::DispatcherSignature targetSig = api::DispatcherSignature::fromSchema(target->func, options);

  // The target's mutable arguments get clones of the functional's, which the functional returns.
  std::vector<api::Expr> context;
  std::vector<std::string> clones;
  std::vector<std::string> clonedNames;
  const std::vector<const model::Argument*> current = api::dispatcher::jitArguments(g.functional->func);
  const std::vector<const model::Argument*> targets = api::dispatcher::jitArguments(target->func);
  for (size_t i = 0; i < current.size() && i < targets.size(); ++i) {
    const model::Argument& a = *current[i];
    if (targets[i]->isWrite()) {
      clones.push_back(support::fillSnippet(kCloneArgument, {{"name", a.name}}));
      context.push_back(api::Expr{a.name + "_clone", api::dispatcher::argumentType(a, a.name, options)});
      clonedNames.push_back(a.name + "_clone");
    } else {
      context.push_back(api::Expr::of(api::dispatcher::argument(a, options)));
    }
  }
  Expected<std::vector<api::Expr>> args = api::translate(context, targetSig.arguments());
  if (!args) return args.error();

  // The target's returns that alias no input, then the clones.
  std::vector<std::string> names;
  const std::vector<std::optional<std::string>> aliased = target->func.aliasedReturnNames();
  for (size_t i = 0; i < aliased.size(); ++i)
    if (!aliased[i]) names.push_back(resultElement("output", aliased.size(), i));
  names.insert(names.end(), clonedNames.begin(), clonedNames.end());
  Expected<std::string> ret = returnStatement(g.functional->func.returns, names, options);
  if (!ret) return ret;
  const std::string name = sig.name() + (g.out->func.hasSymInt() ? "_symint" : "");
  return support::fillSnippet(kFunctionalKernel, {{"signature", sig.defn({.name = name})},
                                         {"clones", support::join(clones, "\n")},
                                         {"assign", target->func.returns.empty() ? "" : "auto output = "},
                                         {"target", target->func.name.unambiguousName()},
                                         {"args", api::joinExprs(*args)},
                                         {"return", *ret}});
}

// gen_composite_out_kernel: the out= kernel in terms of the functional operator.
Expected<std::string> outKernel(const model::NativeFunctionsGroup& g) {
  const api::Options options = api::Options::of(g);
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(g.out->func, options);
  const api::DispatcherSignature targetSig = api::DispatcherSignature::fromSchema(g.functional->func, options);
  Expected<std::vector<api::Expr>> args = api::translate(sig.arguments(), targetSig.arguments());
  if (!args) return args.error();
  const size_t functionalReturns = g.functional->func.returns.size();
  std::vector<std::string> copies;
  const std::vector<model::Argument>& outs = g.out->func.arguments.out;
  for (size_t i = 0; i < outs.size(); ++i)
    copies.push_back(
        support::fillSnippet(kCopyOut, {{"out", outs[i].name}, {"result", resultElement("tmp_output", functionalReturns, i)}}));
  // Returns that alias an input return it; the others return the functional's result.
  std::vector<std::string> rets;
  const std::vector<std::optional<std::string>> aliased = g.out->func.aliasedReturnNames();
  for (size_t i = 0; i < aliased.size(); ++i)
    rets.push_back(aliased[i] ? *aliased[i] : resultElement("tmp_output", functionalReturns, i));
  Expected<std::string> ret = returnStatement(g.out->func.returns, rets, options);
  if (!ret) return ret;
  const std::string name = g.out->func.name.unambiguousName() + (g.out->func.hasSymInt() ? "_symint" : "");
  return support::fillSnippet(kOutKernel, {{"signature", sig.defn({.name = name})},
                                  {"functional", g.functional->func.name.unambiguousName()},
                                  {"args", api::joinExprs(*args)},
                                  {"copies", support::join(copies, "\n")},
                                  {"return", *ret}});
}

std::string includesOf(std::initializer_list<const model::NativeFunction*> functions) {
  std::string text;
  for (const model::NativeFunction* f : functions) {
    if (f == nullptr) continue;
    if (!text.empty()) text.push_back('\n');
    support::appendSnippet(text, kOperatorIncludes, {{"root", f->rootName()}});
  }
  return text;
}

support::TemplateEnv compositeViewCopyKernelsEnv(const EmitContext& ctx) {
  std::vector<std::string> headers;
  headers.reserve(ctx.ops.viewGroups().size() + ctx.ops.groups().size());
  for (const model::NativeFunctionsViewGroup* g : ctx.ops.viewGroups()) headers.push_back(includesOf({g->view, g->viewCopy}));
  for (const model::NativeFunctionsGroup* g : ctx.ops.groups()) {
    auto handwritten = [](const model::NativeFunction* f) { return isGenerated(f) ? nullptr : f; };
    headers.push_back(includesOf({handwritten(g->inplace), handwritten(g->mutableFn), handwritten(g->functional)}));
  }

  std::vector<std::string> viewCopies;
  for (const model::NativeFunctionsViewGroup* g : ctx.ops.viewGroups()) {
    // A view_copy not named {view}_copy (slice_scatter for slice_inverse) is written by hand.
    if (g->viewCopy == nullptr || g->viewCopy->func.name.name.base != g->view->func.name.name.str() + "_copy") continue;
    Expected<std::string> kernel = viewCopyKernel(ctx, *g);
    if (kernel) viewCopies.push_back(kernel.take());
    else report(ctx, *g->view, kernel.error().message);
  }
  std::vector<std::string> functionals, outs;
  for (const model::NativeFunctionsGroup* g : ctx.ops.groups()) {
    if (g->functional->generated()) {
      Expected<std::string> kernel = functionalKernel(*g);
      if (kernel) functionals.push_back(kernel.take());
      else report(ctx, *g->out, kernel.error().message);
    }
    if (g->out->generated()) {
      Expected<std::string> kernel = outKernel(*g);
      if (kernel) outs.push_back(kernel.take());
      else report(ctx, *g->out, kernel.error().message);
    }
  }

  support::TemplateEnv env;
  env.set("ops_headers", std::move(headers));
  env.set("CompositeViewCopyKernel_Definitions", std::move(viewCopies));
  env.set("GeneratedCompositeFunctional_Definitions", std::move(functionals));
  env.set("GeneratedCompositeOut_Definitions", std::move(outs));
  return env;
}

}  // namespace

void emitCompositeViewCopyKernels(const EmitContext& ctx, const Writers& out) {
  out.cpu.write("CompositeViewCopyKernels.cpp", [&ctx] { return compositeViewCopyKernelsEnv(ctx); });
}

}  // namespace opgen::dest
