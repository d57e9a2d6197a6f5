#include "dest/aten/RegisterFunctionalization.h"

#include <array>
#include <unordered_set>
#include <variant>

#include "api/Dispatcher.h"
#include "api/Functionalization.h"
#include "api/Signatures.h"
#include "api/Translate.h"
#include "dest/aten/ViewMetaClasses.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using support::Expected;
using support::makeError;

// ---------------------------------------------------------------------------------------------
// torchgen's own lists (gen_functionalization_type.py, native_function_generation.py)

// MUTABLE_OPS_NOT_USING_FUNCTIONALIZATION: mutable operators whose schemas keep them out of the pass
// (operator names, or base names for the definitions' check).
constexpr std::array<std::string_view, 10> kMutableOpsNotUsingFunctionalization = {
    "adaptive_avg_pool3d_backward.grad_input",
    "_slow_conv2d_backward.grad_input",
    "_cummax_helper",
    "_cummin_helper",
    "polygamma_",
    "record_stream",
    "resize_",
    "resize_as_",
    "_fill_mem_eff_dropout_mask_",
    "_flash_attention_forward_no_dropout_inplace",
};

bool notUsingFunctionalization(std::string_view name) {
  for (std::string_view n : kMutableOpsNotUsingFunctionalization)
    if (n == name) return true;
  return false;
}

// CUMULATIVE_OUT_OPS_PRESERVING_OUT_DTYPE: out= variants whose functional call gets the out tensor's
// dtype when no dtype is given.
bool preservesOutDtype(const model::FunctionSchema& func) {
  const std::string name = func.name.str();
  return name == "cumsum.out" || name == "cumprod.out";
}

// ---------------------------------------------------------------------------------------------
// Snippets
//
// A kernel leaves no blanks at the end of its lines (torchgen's have some, on lines that a value
// left empty): the file's template strips them, line by line, from an item that has any, and
// copies an item without any in one piece. So a placeholder that may be empty, or that starts
// with a line break, stands at the start of its line, and its value carries the indentation.

// One tensor argument unwrapped from its FunctionalTensorWrapper (elements joined by "\n": each
// starts with a line break).
//   $type$       the owning C++ type of the unwrapped value
//   $name$       the argument
//   $sync$       the sync of pending updates, indented (not for views: they defer it), or nothing
//   $converted$  the argument as the owning type
constexpr std::string_view kUnwrap = R"cc(
      $type$ $name$_;
      if (at::functionalization::impl::isFunctionalTensor($name$)) {
$sync$
        $name$_ = at::functionalization::impl::from_functional_tensor($name$);
      } else {
        $name$_ = $converted$;
      })cc";

// The kernel of a view.
//   $signature$        the kernel's definition head (the view's dispatcher signature, with dispatchKeySet)
//   $unwrap$           kUnwrap for every tensor argument (at the start of its line)
//   $view_tensor$      the view's first argument
//   $view_op$          the view's at::_ops:: name
//   $copy_op$          the view_copy's at::_ops:: name
//   $view_args$        the view_copy's arguments from the unwrapped ones
//   $return_type$      the view's return type without references
//   $to_meta$          the meta tensors' declarations
//   $meta_args$        the view_copy's arguments from the meta tensors
//   $symbolic_inputs$  the computation of has_symbolic_inputs (at the start of its line)
//   $view_meta$        the ViewMeta's creation
constexpr std::string_view kViewKernel = R"cc(
    $signature$ {
$unwrap$
      if (!at::functionalization::impl::isFunctionalTensor($view_tensor$)) {
        // functionalization is re-entrant, but will no-op if it wasn't passed a FunctionalTensorWrapper.
        at::AutoDispatchSkipFunctionalize guard;
        return at::_ops::$view_op$::call($view_args$);
      }
      auto reapply_views = at::functionalization::impl::getFunctionalizationReapplyViewsTLS();
      auto inverse_return_mode = (
          reapply_views ? at::functionalization::InverseReturnMode::ViewOrScatterInverse
            : at::functionalization::InverseReturnMode::NeverView
      );
      auto compute_reference_meta =
        $view_tensor$.key_set().has_backend(c10::BackendComponent::XLABit) ||
        $view_tensor$.key_set().has_backend(c10::BackendComponent::LazyBit);
      $return_type$ reference_tensor_output;
      if (compute_reference_meta && !disable_meta_reference()) {
        $to_meta$
        at::AutoDispatchSkipFunctionalize func_guard;
        c10::impl::ExcludeDispatchKeyGuard guard(exclude_keys_for_meta_dispatch);
        reference_tensor_output = at::_ops::$view_op$::call($meta_args$);
      }
      $return_type$ tmp_output;
      {
        at::AutoDispatchSkipFunctionalize guard;
        if (reapply_views) {
          tmp_output = at::_ops::$view_op$::call($view_args$);
        } else {
          tmp_output = at::_ops::$copy_op$::call($view_args$);
        }
      }
$symbolic_inputs$
      auto view_meta = $view_meta$;
      auto out = at::functionalization::impl::create_functional_tensor_with_view_meta(tmp_output, $view_tensor$, view_meta);
      // See  Note [Propagating strides in the functionalization pass]
      if (compute_reference_meta && !disable_meta_reference()) {
        at::functionalization::impl::set_sizes_strides_offset(out, reference_tensor_output);
      }
      return out;
    }
)cc";

// The kernel of an in-place view (inplace_view tag): mutates the wrapper's view metadata. The
// placeholders are kViewKernel's.
constexpr std::string_view kInplaceViewKernel = R"cc(
    $signature$ {
      if (!at::functionalization::impl::isFunctionalTensor($view_tensor$)) {
        // functionalization is re-entrant, but will no-op if it wasn't passed a FunctionalTensorWrapper.
$unwrap$
        at::AutoDispatchSkipFunctionalize guard;
        return at::_ops::$view_op$::call($view_args$);
      }
      auto reapply_views = at::functionalization::impl::getFunctionalizationReapplyViewsTLS();
      auto inverse_return_mode = (
          reapply_views ? at::functionalization::InverseReturnMode::ViewOrScatterInverse
            : at::functionalization::InverseReturnMode::NeverView
      );
$symbolic_inputs$
      auto view_meta = $view_meta$;
      auto compute_reference_meta =
        $view_tensor$.key_set().has_backend(c10::BackendComponent::XLABit) ||
        $view_tensor$.key_set().has_backend(c10::BackendComponent::LazyBit);
      $return_type$ reference_tensor_output;
      if (compute_reference_meta && !disable_meta_reference()) {
        $to_meta$
        at::AutoDispatchSkipFunctionalize func_guard;
        c10::impl::ExcludeDispatchKeyGuard guard(exclude_keys_for_meta_dispatch);
        reference_tensor_output = at::_ops::$view_op$::call($meta_args$);
      }
      // This function adds the above view meta to the current tensor and replays them off the base,
      // mutating the size/stride info of the current FunctionalTensorWrapper.
      // Because of this, we need to make sure to run the reference shape function above,
      // BEFORE doing this (otherwise we'll end up running the reference function using the wrong sizes/strides)
      at::functionalization::impl::mutate_view_meta($view_tensor$, view_meta);
      // See  Note [Propagating strides in the functionalization pass]
      // XLA/LTC don't implement the logic to propagate strides correctly, so we need to rely
      // on a reference implementation here (instead of relying on the output from the forward lambda
      // having the correct stride info)
      if (compute_reference_meta && !disable_meta_reference()) {
        at::functionalization::impl::set_sizes_strides_offset($view_tensor$, reference_tensor_output);
      }
      return $view_tensor$;
    }
)cc";

// The kernel of a mutable operator (out=, in-place or mutable): calls the functional variant.
//   $signature$           the kernel's definition head
//   $run_meta$            true when the op runs on meta tensors first (in-place ops without Storage)
//   $to_meta$             the meta tensors' declarations
//   $op$                  the op's at::_ops:: name
//   $meta_args$           the meta call's arguments
//   $unwrap$              kUnwrap for every tensor argument (at the start of its line)
//   $all_mutated_functional$  the check that every mutated argument is functional
//   $any_other_xla$       the check that a non-mutated tensor is on XLA
//   $any_other_functional$    the check that a non-mutated argument is functional
//   $noop_output$         "TYPE tmp_output = " (nothing when the op returns nothing)
//   $op_args$             the op's arguments from the unwrapped ones
//   $noop_return$         the return of the redispatched op's results, indented (or nothing)
//   $functional_type$     the functional variant's return type
//   $functional_op$       the functional variant's at::_ops:: name
//   $functional_args$     its arguments
//   $propagate$           the mutations' propagation and the return
constexpr std::string_view kMutationKernel = R"cc(
    $signature$ {
      if ($run_meta$ && !disable_meta_reference()) {
        // Before converting the mutable op to its functional variant, run meta tensors through the original op.
        // This will help us catch shape errors that apply to inplace ops that wouldn't apply to their functional variants.
        // (We can only do this for inplace ops today though, because they technically all support meta tensors).
        $to_meta$
        at::AutoDispatchSkipFunctionalize func_guard;
        c10::impl::ExcludeDispatchKeyGuard guard(exclude_keys_for_meta_dispatch);
        at::_ops::$op$::call($meta_args$);
      }
$unwrap$
      if (!($all_mutated_functional$)) {
        // We want to disable this check if there are any XLA tensors.
        // cpu_tensor.copy_(xla_tensor) is valid code.
        if (!($any_other_xla$) && ($any_other_functional$)) {
         // case 1: trying to mutate a non functional tensor with a functional tensor is an error
         TORCH_INTERNAL_ASSERT(false,
           "mutating a non-functional tensor with a functional tensor is not allowed.",
           " Please ensure that all of your inputs are wrapped inside of a functionalize() call.");
        } else {
         // case 2: arguments are not functional tensors, so we no-op and redispatch.
         at::AutoDispatchSkipFunctionalize guard;
         $noop_output$at::_ops::$op$::call($op_args$);
$noop_return$
        }
      } else {
        $functional_type$ tmp_output;
        {
          at::AutoDispatchSkipFunctionalize guard;
          tmp_output = at::_ops::$functional_op$::call($functional_args$);
        }
        $propagate$
      }
    })cc";

// A mutated argument takes the functional call's result (`$arg$` the argument, `$value$` the result).
constexpr std::string_view kPropagateMutation = R"cc(  auto $arg$_inner = at::functionalization::impl::from_functional_tensor($arg$);
  at::functionalization::impl::replace_($arg$, $value$);
  at::functionalization::impl::commit_update($arg$);
  at::functionalization::impl::sync($arg$);
  auto $arg$_inner_updated = at::functionalization::impl::from_functional_tensor($arg$);
  at::functionalization::impl::propagate_xla_data_direct($arg$_inner, $arg$_inner_updated);)cc";

// ---------------------------------------------------------------------------------------------
// Helpers

Expected<std::vector<std::string>> translated(const std::vector<api::Binding>& context,
                                              const std::vector<api::Binding>& goals) {
  auto exprs = api::translate(context, goals);
  if (!exprs) return exprs.error();
  std::vector<std::string> out;
  out.reserve(exprs->size());
  for (api::Expr& e : *exprs) out.push_back(std::move(e.expr));
  return out;
}

bool isTensorLikeArgument(const api::Binding& b) {
  const model::Argument* a = b.schemaArgument();
  return a != nullptr && a->type.isTensorLike();
}

// torchgen's wrapper_name: the kernel's name in namespace functionalization.
std::string wrapperName(const model::FunctionSchema& func) {
  std::string name = model::cppName(func);
  if (!func.name.overloadName.empty()) name += "_" + func.name.overloadName;
  return name;
}

// torchgen's modifies_arguments: some argument is written to.
bool modifiesArguments(const model::NativeFunction& f) {
  for (const model::Argument* a : f.func.arguments.flatAll())
    if (a->isWrite()) return true;
  return false;
}

// The tensor arguments unwrapped (code), and the bindings that then stand for the arguments.
struct Unwrapped {
  std::string code;
  std::vector<api::Binding> context;
};

Unwrapped unwrapTensorArguments(const api::DispatcherSignature& sig, bool isViewOp) {
  Unwrapped r;
  r.context.reserve(sig.arguments().size());
  // As a rule enough for every argument's kUnwrap (each appendSnippet reserves only its own part).
  r.code.reserve(sig.arguments().size() * (kUnwrap.size() + 128));
  for (const api::Binding& arg : sig.arguments()) {
    if (!isTensorLikeArgument(arg)) {
      r.context.push_back(arg);
      continue;
    }
    // Unwrapping gives an owning value: lists of tensors become vectors.
    api::CType type = arg.nctype.type.removeConstRef();
    std::string converted;
    if (type.isBase(api::tensorListT)) {
      type = api::CType::vector(api::CType::base(api::tensorT));
      converted.append(arg.name).append(".vec()");
    } else if (type.isBase(api::iTensorListRefT)) {
      type = api::CType::vector(api::CType::base(api::tensorT));
      converted.append("{").append(arg.name).append(".begin(), ").append(arg.name).append(".end()}");
    }
    std::string sync;
    if (!isViewOp) sync.append("        at::functionalization::impl::sync(").append(arg.name).append(");");
    if (!r.code.empty()) r.code += '\n';
    support::appendSnippet(r.code, kUnwrap,
                  {{"type", type.cppType()},
                   {"name", arg.name},
                   {"sync", sync},
                   {"converted", converted.empty() ? std::string_view(arg.name) : std::string_view(converted)}});
    r.context.push_back(arg.withName(arg.name + "_"));
  }
  return r;
}

// Tensor arguments converted to meta tensors: the code (joined with "\n        "), the arguments
// of a call of the op itself on them (", "-joined), and with `withContext` the bindings that then
// stand for the arguments (to call another op: a mutable op's kernel needs no translation).
struct MetaTensors {
  std::string code;
  std::string args;
  std::vector<api::Binding> context;
};

MetaTensors convertToMetaTensors(const api::DispatcherSignature& sig, bool withContext) {
  MetaTensors r;
  if (withContext) r.context.reserve(sig.arguments().size());
  for (const api::Binding& arg : sig.arguments()) {
    if (!r.args.empty()) r.args += ", ";
    if (!isTensorLikeArgument(arg)) {
      r.args += arg.name;
      if (withContext) r.context.push_back(arg);
      continue;
    }
    if (!r.code.empty()) r.code += "\n        ";
    r.code.append("auto ").append(arg.name).append("_meta = to_meta(").append(arg.name).append(");");
    r.args.append(arg.name).append("_meta");
    if (withContext) r.context.push_back(arg.withName(arg.name + "_meta"));
  }
  return r;
}

// torchgen's emit_has_symbolic_inputs: has_symbolic_inputs from every SymInt-like argument.
Expected<std::string> symbolicInputsCheck(const api::DispatcherSignature& sig) {
  std::vector<std::string> statements;
  for (const api::Binding& b : sig.arguments()) {
    const model::Argument* a = b.schemaArgument();
    if (a == nullptr || !a->type.isSymIntLike()) continue;
    auto check = api::functionalization::hasSymbolicValues(b.name, b.nctype.type);
    if (!check) return check;
    statements.push_back("has_symbolic_inputs = has_symbolic_inputs | (" + *check + ");");
  }
  std::string out = "\n      bool has_symbolic_inputs = false;\n";
  if (!statements.empty()) out.append("      ").append(support::join(statements, "\n      "));
  return out;
}

// torchgen's assert_view_op_properties: the first argument is a Tensor that the output aliases, and
// no other argument aliases anything.
Expected<std::string> checkViewOpProperties(const model::FunctionSchema& func) {
  const auto args = func.arguments.flatNonOut();
  if (args.empty() || !args[0]->type.isBase(model::BaseTy::Tensor))
    return makeError(
        "In the functionalization codegen, we expect the first argument of every view operator to be a tensor, "
        "but found an argument of type " +
        (args.empty() ? std::string("(none)") : args[0]->type.str()) + " for operator: " + func.name.str() + ".");
  bool othersAlias = false;
  for (size_t i = 1; i < args.size(); ++i) othersAlias = othersAlias || args[i]->annotation.has_value();
  if (!args[0]->annotation || othersAlias)
    return makeError(
        "In the functionalization codegen, we expect the first argument of every view operator to alias the output. "
        "View operators with multiple aliasing inputs aren't supported yet. Found an operator that doesn't satisfy "
        "this constraint");
  return std::string();
}

// ---------------------------------------------------------------------------------------------
// Kernels

// torchgen's emit_view_functionalization_body for f, g's view or in-place view.
Expected<std::string> viewKernel(const model::NativeFunctionsViewGroup& g, const model::NativeFunction& f) {
  if (g.viewCopy == nullptr) return makeError("Expected view_copy to be non-None");
  const api::Options options = api::Options::of(f);
  const auto callSig = api::DispatcherSignature::fromSchema(g.viewCopy->func, options);
  const ViewMetaSpecialization spec(g, f);
  const auto sig = api::DispatcherSignature::fromSchema(f.func, options);
  if (auto ok = checkViewOpProperties(f.func); !ok) return ok.error();
  const std::string& viewTensor = sig.arguments()[0].name;

  const Unwrapped unwrapped = unwrapTensorArguments(sig, /*isViewOp=*/true);
  auto viewArgs = translated(unwrapped.context, callSig.arguments());
  if (!viewArgs) return viewArgs.error();
  const MetaTensors meta = convertToMetaTensors(sig, /*withContext=*/true);
  auto metaArgs = translated(meta.context, callSig.arguments());
  if (!metaArgs) return metaArgs.error();
  auto symbolic = symbolicInputsCheck(callSig);
  if (!symbolic) return symbolic.error();
  if (auto ok = checkFirstArgumentIsTensor(f.func); !ok) return ok.error();

  const bool inplaceView = f.tags.count("inplace_view") != 0;
  return support::fillSnippet(inplaceView ? kInplaceViewKernel : kViewKernel,
                     {{"signature", sig.defn({.name = wrapperName(f.func), .isRedispatchingFn = true})},
                      {"unwrap", unwrapped.code},
                      {"view_tensor", viewTensor},
                      {"view_op", f.func.name.unambiguousName()},
                      {"copy_op", g.viewCopy->func.name.unambiguousName()},
                      {"view_args", support::join(*viewArgs, ", ")},
                      {"return_type", sig.returnsType().removeConstRef().cppType()},
                      {"to_meta", meta.code},
                      {"meta_args", support::join(*metaArgs, ", ")},
                      {"symbolic_inputs", *symbolic},
                      {"view_meta", spec.newExpr()}});
}

// torchgen's get_mutable_redispatch_return_names: the returns that alias arguments (by argument
// name) and the others (as parts of `result`).
struct ReturnNames {
  std::vector<std::string> aliased, fresh;
};

ReturnNames redispatchReturnNames(const model::FunctionSchema& func, const std::string& result) {
  ReturnNames r;
  const auto aliases = func.aliasedReturnNames();
  for (size_t i = 0; i < aliases.size(); ++i) {
    if (aliases[i]) r.aliased.push_back(*aliases[i]);
    else r.fresh.push_back(func.returns.size() == 1 ? result : "std::get<" + std::to_string(i) + ">(" + result + ")");
  }
  return r;
}

// torchgen's return_str.
Expected<std::string> returnStatement(const model::FunctionSchema& func, const std::vector<std::string>& names,
                                      const api::Options& options) {
  if (func.returns.size() != names.size())
    return makeError("Expected " + std::to_string(func.returns.size()) + " names, got " + std::to_string(names.size()));
  if (names.empty()) return std::string();
  if (names.size() == 1) return "return " + names[0] + ";";
  return "return " + api::dispatcher::returnsType(func.returns, options).cppType() + "(" + support::join(names, ", ") +
         ");";
}

// torchgen's wrap_propagate_mutations_and_return: wraps the functional call's fresh outputs, writes
// the others into the mutated arguments, and returns. `outer` are f's redispatchReturnNames.
Expected<std::string> propagateMutations(const model::NativeFunction& f, const ReturnNames& outer,
                                         const model::NativeFunction& functional, const api::Options& options) {
  const std::vector<std::string> mutated = f.func.arguments.mutableArgNames();
  const ReturnNames inner = redispatchReturnNames(functional.func, "tmp_output");
  if (mutated.size() + outer.fresh.size() != inner.fresh.size())
    return makeError("Expected " + std::to_string(mutated.size()) + " + " + std::to_string(outer.fresh.size()) +
                     " == " + std::to_string(inner.fresh.size()));
  std::string out;
  out.reserve(mutated.size() * (kPropagateMutation.size() + 128) + 128);
  // The updates, "\n"-separated, then "\n    " and the return.
  std::vector<std::string> returned = outer.aliased;
  for (size_t i = 0; i < outer.fresh.size(); ++i) {
    const std::string output = "output_" + std::to_string(i);
    if (!out.empty()) out += '\n';
    out.append("  auto ").append(output).append(" = at::functionalization::impl::to_functional_tensor(");
    out.append(inner.fresh[i]).append(");");
    returned.push_back(output);
  }
  for (size_t i = 0; i < mutated.size(); ++i) {
    if (!out.empty()) out += '\n';
    support::appendSnippet(out, kPropagateMutation, {{"arg", mutated[i]}, {"value", inner.fresh[outer.fresh.size() + i]}});
  }
  auto ret = returnStatement(f.func, returned, options);
  if (!ret) return ret;
  out += '\n';
  if (!ret->empty()) out.append("    ").append(*ret);  // (no blanks on an empty line)
  return out;
}

// torchgen's maybe_replace_cumulative_out_dtype_exprs.
Expected<std::string> preserveOutDtype(const model::NativeFunction& f, const api::DispatcherSignature& functionalSig,
                                       std::vector<std::string>& exprs) {
  if (f.func.kind() != model::SchemaKind::Out || !preservesOutDtype(f.func)) return std::string();
  if (f.func.arguments.out.size() != 1)
    return makeError("Expected a single out argument for cumulative out op: " + f.func.name.str());
  const auto& args = functionalSig.arguments();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].name != "dtype") continue;
    const std::string dtype = exprs[i];
    exprs[i] = dtype + ".has_value() ? " + dtype + " : std::optional<at::ScalarType>(" + f.func.arguments.out[0].name +
               "_.scalar_type())";
    return std::string();
  }
  return makeError("Expected dtype argument for cumulative out op: " + f.func.name.str());
}

// Joins "first OP check(a) OP check(b) ...".
template <class Check>
std::string chain(std::string_view first, std::string_view op, const std::vector<std::string>& names, Check check) {
  std::string out(first);
  for (const std::string& n : names) out.append(op).append(check(n));
  return out;
}

// torchgen's emit_inplace_functionalization_body for f, a mutable member of g.
Expected<std::string> mutationKernel(const model::NativeFunction& f, const model::NativeFunctionsGroup& g) {
  if (!modifiesArguments(f)) return makeError("Expected function to modify arguments: " + f.func.str());
  const api::Options options = api::Options::of(f);
  const auto sig = api::DispatcherSignature::fromSchema(f.func, options);
  const Unwrapped unwrapped = unwrapTensorArguments(sig, /*isViewOp=*/false);

  std::vector<std::string> mutatedNames, otherNames, otherTensorNames;
  bool storageArgument = false;
  for (const model::Argument* a : f.func.arguments.flatAll()) {
    storageArgument = storageArgument || a->type.isBase(model::BaseTy::Storage);
    if (!a->type.isTensorLike()) continue;
    (a->annotation ? mutatedNames : otherNames).push_back(a->name);
    if (!a->annotation && a->type.isBase(model::BaseTy::Tensor)) otherTensorNames.push_back(a->name);
  }
  auto isFunctional = [](const std::string& n) { return "at::functionalization::impl::isFunctionalTensor(" + n + ")"; };
  auto isXla = [](const std::string& n) { return n + ".device().type() == c10::DeviceType::XLA"; };

  const auto functionalSig = api::DispatcherSignature::fromSchema(g.functional->func, options);
  auto functionalArgs = translated(unwrapped.context, functionalSig.arguments());
  if (!functionalArgs) return functionalArgs.error();
  if (auto ok = preserveOutDtype(f, functionalSig, *functionalArgs); !ok) return ok.error();
  const MetaTensors meta = convertToMetaTensors(sig, /*withContext=*/false);

  std::string noopOutput;
  if (!f.func.returns.empty())
    noopOutput = api::dispatcher::returnsType(f.func.returns, options).removeConstRef().cppType() + " tmp_output = ";
  const ReturnNames noop = redispatchReturnNames(f.func, "tmp_output");
  std::vector<std::string> noopNames = noop.aliased;
  noopNames.insert(noopNames.end(), noop.fresh.begin(), noop.fresh.end());
  auto noopReturn = returnStatement(f.func, noopNames, options);
  if (!noopReturn) return noopReturn;
  if (!noopReturn->empty()) noopReturn->insert(0, "         ");  // its line's indentation (see Snippets)
  auto propagate = propagateMutations(f, noop, *g.functional, options);
  if (!propagate) return propagate;

  const bool runMeta = !storageArgument && f.func.kind() == model::SchemaKind::Inplace;
  const std::string op = f.func.name.unambiguousName();
  return support::fillSnippet(
      kMutationKernel,
      {{"signature", sig.defn({.name = wrapperName(f.func), .isRedispatchingFn = true})},
       {"run_meta", runMeta ? "true" : "false"},
       {"to_meta", meta.code},
       {"op", op},
       {"meta_args", meta.args},
       {"unwrap", unwrapped.code},
       {"all_mutated_functional", chain("true", " && ", mutatedNames, isFunctional)},
       {"any_other_xla", chain("false", " || ", otherTensorNames, isXla)},
       {"any_other_functional", chain("false", " || ", otherNames, isFunctional)},
       {"noop_output", noopOutput},
       // torchgen translates the unwrapped context into the signature's own arguments: every goal is
       // a binding of the context (renamed), so the expressions are the context's names.
       {"op_args", api::joinNames(unwrapped.context)},
       {"noop_return", *noopReturn},
       {"functional_type",
        api::dispatcher::returnsType(g.functional->func.returns, options).removeConstRef().cppType()},
       {"functional_op", g.functional->func.name.unambiguousName()},
       {"functional_args", support::join(*functionalArgs, ", ")},
       {"propagate", *propagate}});
}

// ---------------------------------------------------------------------------------------------
// Items

using Item = std::variant<const model::NativeFunctionsGroup*, const model::NativeFunctionsViewGroup*,
                          const model::NativeFunction*>;

std::string rootName(const Item& item) {
  return std::visit([](const auto* x) { return x->rootName(); }, item);
}

// torchgen's gen_op_headers.
std::vector<std::string> opHeaders(const Item& item) {
  std::vector<const model::NativeFunction*> fns;
  if (const auto* vg = std::get_if<const model::NativeFunctionsViewGroup*>(&item)) return viewGroupOpHeaders(**vg);
  if (const auto* g = std::get_if<const model::NativeFunctionsGroup*>(&item))
    fns = {(*g)->functional, (*g)->out, (*g)->inplace, (*g)->mutableFn};
  else fns = {std::get<const model::NativeFunction*>(item)};
  std::vector<std::string> out;
  for (const model::NativeFunction* f : fns) {
    if (f == nullptr) continue;
    out.push_back(atenInclude("ops/" + f->rootName() + "_native"));
    out.push_back(atenInclude("ops/" + f->rootName() + "_ops"));
  }
  return out;
}

class Generator {
 public:
  explicit Generator(const EmitContext& ctx)
      : ctx_(ctx), cia_(ctx.backendIndex(model::DispatchKey::CompositeImplicitAutograd)) {}

  ShardEnv env(const Item& item) const {
    // Built by emplace_back: a braced ShardEnv would copy its elements.
    ShardEnv e;
    e.reserve(3);
    e.emplace_back("ops_headers", opHeaders(item));
    if (ctx_.selector.includesAllOperators()) {  // a selective (mobile) build gets no kernels
      e.emplace_back("func_definitions", std::visit([&](const auto* x) { return definitions(*x); }, item));
      e.emplace_back("func_registrations", std::visit([&](const auto* x) { return registrations(*x); }, item));
    }
    return e;
  }

 private:
  void report(const model::NativeFunction& f, const support::Error& error) const {
    model::reportError(ctx_.diags, f, error.message);
  }
  template <class T>
  void add(std::vector<std::string>& out, Expected<T> value, const model::NativeFunction& f) const {
    if (value) out.push_back(value.take());
    else report(f, value.error());
  }

  // --- gen_functionalization_definition

  std::vector<std::string> definitions(const model::NativeFunctionsViewGroup& g) const {
    std::vector<std::string> out;
    if (g.composite()) return out;
    add(out, viewKernel(g, *g.view), *g.view);
    if (g.viewInplace != nullptr) add(out, viewKernel(g, *g.viewInplace), *g.viewInplace);
    return out;
  }

  std::vector<std::string> definitions(const model::NativeFunctionsGroup& g) const {
    std::vector<std::string> out;
    for (const model::NativeFunction* f : {g.out, g.inplace, g.mutableFn})
      if (f != nullptr) add(out, mutationKernel(*f, g), *f);
    return out;
  }

  // Every mutable operator must be grouped (or decompose): only checked here.
  std::vector<std::string> definitions(const model::NativeFunction& f) const {
    if (!notUsingFunctionalization(f.func.name.str()) && !notUsingFunctionalization(f.func.name.name.str()) &&
        !f.hasCompositeImplicitAutogradKernel && modifiesArguments(f))
      report(f, makeError("Expected composite implicit autograd kernel or non-modifying function: " + f.func.str()));
    return {};
  }

  // --- gen_functionalization_registration

  Expected<std::string> registration(const model::NativeFunction& f) const {
    std::string kernel;
    if (f.hasCompositeImplicitAutogradKernel) {
      const model::BackendMetadata* m = cia_.find(f.func.name);
      if (m == nullptr) return makeError("Expected metadata for composite implicit autograd kernel: " + f.func.str());
      const api::NativeSignature sig(f.func, m->supportsSymInt(), api::Options::of(f));
      kernel = "static_cast<" + sig.ptrType() + ">(at::native::" + m->kernel + ")";
    } else {
      kernel = "TORCH_FN(functionalization::" + wrapperName(f.func) + ")";
    }
    return "m.impl(\"" + f.func.name.str() + "\", " + kernel + ");";
  }

  std::vector<std::string> registrations(const model::NativeFunctionsViewGroup& g) const {
    std::vector<std::string> out;
    if (g.view->func.name.str() == "lift_fresh") return out;  // Note [Functionalization <> torch.Tensor constructor]
    add(out, registration(*g.view), *g.view);
    if (g.viewInplace != nullptr) {
      if (!g.viewInplace->isViewOp())
        report(*g.viewInplace, makeError("Expected view_inplace to be a view op: " + g.viewInplace->func.str()));
      add(out, registration(*g.viewInplace), *g.viewInplace);
    }
    return out;
  }

  std::vector<std::string> registrations(const model::NativeFunctionsGroup& g) const {
    // set_.source_Tensor has a hand-written kernel.
    if (g.inplace != nullptr && g.inplace->func.name.str() == "set_.source_Tensor") return {};
    return registrations(g.functions());
  }

  std::vector<std::string> registrations(const model::NativeFunction& f) const {
    if (notUsingFunctionalization(f.func.name.str())) return {};
    return registrations(std::vector<const model::NativeFunction*>{&f});
  }

  std::vector<std::string> registrations(const std::vector<const model::NativeFunction*>& fns) const {
    std::vector<std::string> out;
    for (const model::NativeFunction* f : fns) {
      if (f->hasCompositeImplicitAutogradKernel) continue;
      const std::string name = f->func.name.str();
      // lift: Note [Functionalization <> torch.Tensor constructor]; resize_: Note [resize_ in Functionalization]
      if (name == "lift" || name == "resize_") return {};
      if (f->func.name.name.str() != "set_" && f->isViewOp())
        report(*f, makeError("Unexpected view op: " + f->func.str()));
      if (modifiesArguments(*f)) add(out, registration(*f), *f);
    }
    return out;
  }

  const EmitContext& ctx_;
  const model::BackendIndex& cia_;
};

// torchgen's all_groups: the groups, the view groups, then the functions in neither.
std::vector<Item> items(const EmitContext& ctx) {
  std::vector<Item> out;
  out.reserve(ctx.ops.groups().size() + ctx.ops.viewGroups().size() + ctx.ops.functions().size());
  std::unordered_set<std::string> grouped;  // by operator name, as torchgen keys them
  for (const model::NativeFunctionsGroup* g : ctx.ops.groups()) {
    out.emplace_back(g);
    for (const model::NativeFunction* f : g->functions()) grouped.insert(f->func.name.str());
  }
  for (const model::NativeFunctionsViewGroup* g : ctx.ops.viewGroups()) {
    out.emplace_back(g);
    for (const model::NativeFunction* f : g->functions()) grouped.insert(f->func.name.str());
  }
  for (const model::NativeFunction* f : ctx.ops.functions())
    if (!grouped.count(f->func.name.str())) out.emplace_back(f);
  return out;
}

}  // namespace

void emitRegisterFunctionalization(const EmitContext& ctx, const Writers& out) {
  const std::vector<Item> all = items(ctx);
  const Generator gen(ctx);
  Sharded spec;
  spec.filename = "RegisterFunctionalization.cpp";
  spec.templateName = "RegisterFunctionalization.cpp";
  spec.numShards = 4;
  spec.shardedKeys = {"ops_headers", "func_definitions", "func_registrations", "func_add_back_views_definitions",
                      "func_add_back_views_registrations"};
  out.cpu.writeSharded(spec, all, rootName, [&](const Item& item) { return gen.env(item); });
}

}  // namespace opgen::dest
