#include "dest/aten/CompositeViewCopyKernels.h"

#include "api/Signatures.h"
#include "api/Translate.h"
#include "dest/common/AutogenKernels.h"
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

// The includes of one function (its operator and its native declarations).  $root$ the root name
constexpr std::string_view kOperatorIncludes = "#include <ATen/ops/$root$_ops.h>\n#include <ATen/ops/$root$_native.h>";

// ---------------------------------------------------------------------------------------------

void report(const EmitContext& ctx, const model::NativeFunction& f, const std::string& message) {
  model::reportError(ctx.diags, f, message);
}

bool isGenerated(const model::NativeFunction* f) { return f != nullptr && f->generated(); }

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
      Expected<std::string> kernel = generatedFunctionalKernel(*g, {});
      if (kernel) functionals.push_back(kernel.take());
      else report(ctx, *g->out, kernel.error().message);
    }
    if (g->out->generated()) {
      Expected<std::string> kernel = generatedOutKernel(*g, {});
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
