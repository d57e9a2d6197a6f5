// VariableType_0..9.cpp, VariableTypeEverything.cpp and templates/VariableType.cpp (torchgen's
// packaged/autograd/gen_variable_type.py): the Autograd keys' kernels, which make the graph node of a
// differentiable call (saving what its formulas use), redispatch below autograd, set the outputs'
// history and forward gradients, and check in debug builds that kernels keep their aliasing promises.
#include "dest/autograd/VariableType.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <variant>

#include "api/Cpp.h"
#include "api/Signatures.h"
#include "dest/autograd/Functions.h"
#include "dest/autograd/TraceType.h"
#include "dest/autograd/ViewFuncs.h"
#include "support/CodeTemplate.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest::autograd {

namespace {

using api::Binding;
using api::CType;
using api::autograd::DifferentiabilityInfo;
using api::autograd::ForwardDerivative;
using api::autograd::FunctionWithInfo;
using api::autograd::SavedAttribute;
using model::NativeFunction;
using model::SchemaKind;
using support::CodeTemplate;
using support::TemplateEnv;

// The fixed parts of the generated code (PyTorch's VariableType_N.cpp), and torchgen's lists of
// functions with special treatment. Those without a placeholder that starts a line (where torchgen's
// templates indent a block) are CodeText snippets (`$name$`, a list value joined with ", " as an
// inline placeholder joins it): the same text, without an environment per snippet. So are the debug
// checks kSave* and kEnforce* (tens of thousands of them): their values (tensor_name,
// tensorlist_name, out_tensor_name, fn_name) are C++ identifiers, for which a placeholder that starts
// a line gives the same text as one within it.
constexpr std::string_view kAssignGradFn = R"cc(grad_fn = c10::make_intrusive<$op$>($op_ctor$);
grad_fn->set_next_edges(collect_next_edges( $args_with_derivatives$ ));
)cc";
const CodeTemplate kAssignReturnValue(R"cc(${return_values} = ${rhs_value};
)cc");
constexpr std::string_view kAssignVectorOfGradFn = R"cc(for (const auto& i : c10::irange( $irange$ )) {
  const auto ith_requires_grad = compute_requires_grad($args_with_derivatives$);
  check_inplace(self[i], ith_requires_grad);
  grad_fns.push_back([&]() -> c10::intrusive_ptr<$op$> {
      if (!ith_requires_grad) {
          return nullptr;
      } else {
          auto grad_fn = c10::make_intrusive<$op$>($op_ctor$);
          grad_fn->set_next_edges(collect_next_edges( $args_with_derivatives$ ));
          return grad_fn;
      }
  }());
}
)cc";
constexpr std::string_view kAutogradNotImplementedRegistration = R"cc(m.impl("$unqual_operator_name_with_overload$", torch::autograd::autogradNotImplementedFallback());
)cc";
constexpr std::string_view kCallRedispatch = R"cc(at::redispatch::$api_name$($unpacked_args$))cc";
const CodeTemplate kConditional(R"cc(if (${cond}) {
  ${statements}
}
)cc");
constexpr std::string_view kDeclareGradFn = R"cc(c10::intrusive_ptr<$op$> grad_fn;
)cc";
constexpr std::string_view kDeclareVectorOfGradFn = R"cc(std::vector<c10::intrusive_ptr<$op$>> grad_fns;
)cc";
const CodeTemplate kDispatchToNonVarTypeWithoutReturnValues(R"cc({
  ${guard}
  ${base_type_call};
}
)cc");
const CodeTemplate kDispatchToNonVarTypeWithTmpReturnValues(R"cc(auto ${tmp_var} = ([&]() {
  ${guard}
  return ${base_type_call};
})();
)cc");
const CodeTemplate kDispatchToNonVarTypeWithTmpReturnValuesJvpDecomp(R"cc(auto ${tmp_var} = ([&]() {
  if (${any_has_forward_grad}) {
    static c10::OperatorName full_name("aten::${op_name}", "${op_overload}");
    static ::std::optional<c10::OperatorHandle> opt_op = c10::Dispatcher::singleton().findSchema(full_name);
    return impl::run_jit_decomposition_with_args_for_jvp<${return_types}>("${op_name}", *opt_op, ks, ${arg_names});
  } else {
    ${guard}
    return ${base_type_call};
  }
})();
)cc");
constexpr std::string_view kEnforceSameOptionaltensorlistImpl = R"cc(for (size_t i=0; i<$tensorlist_name$.size() && !at::impl::dispatch_mode_enabled(); i++) {
  if ($tensorlist_name$_impl_saved[i])
    TORCH_INTERNAL_ASSERT(
      $tensorlist_name$_impl_saved[i] == static_cast<::std::optional<Tensor>>($tensorlist_name$[i])->getIntrusivePtr());
}
)cc";
constexpr std::string_view kEnforceSameOptionaltensorlistStorage = R"cc(for (size_t i=0; i<$tensorlist_name$.size() && !at::impl::dispatch_mode_enabled(); i++) {
  if ($tensorlist_name$_storage_saved[i].has_value() && !at::impl::tensorlist_has_dispatch($tensorlist_name$))
    TORCH_INTERNAL_ASSERT($tensorlist_name$_storage_saved[i].value().is_alias_of(
        static_cast<::std::optional<Tensor>>($tensorlist_name$[i])->storage()));
}
)cc";
constexpr std::string_view kEnforceSameTensorlistImpl = R"cc(for (size_t i=0; i<$tensorlist_name$.size() && !at::impl::dispatch_mode_enabled(); i++) {
  if ($tensorlist_name$_impl_saved[i] && !at::impl::tensorlist_has_dispatch($tensorlist_name$))
    TORCH_INTERNAL_ASSERT($tensorlist_name$_impl_saved[i] == $tensorlist_name$[i].getIntrusivePtr());
}
)cc";
constexpr std::string_view kEnforceSameTensorlistStorage = R"cc(for (size_t i=0; i<$tensorlist_name$.size() && !at::impl::dispatch_mode_enabled(); i++) {
  if ($tensorlist_name$_storage_saved[i].has_value() && !at::impl::tensorlist_has_dispatch($tensorlist_name$))
    TORCH_INTERNAL_ASSERT($tensorlist_name$_storage_saved[i].value().is_alias_of($tensorlist_name$[i].storage()));
}
)cc";
constexpr std::string_view kEnforceSameTensorImpl = R"cc(if ($tensor_name$_impl_saved && !at::impl::dispatch_mode_enabled() && !at::impl::tensor_has_dispatch($tensor_name$))
  TORCH_INTERNAL_ASSERT($tensor_name$_impl_saved == $tensor_name$.getIntrusivePtr());
)cc";
constexpr std::string_view kEnforceSameTensorStorage = R"cc(if ($tensor_name$_storage_saved.has_value() &&
    !at::impl::dispatch_mode_enabled() &&
    !at::impl::tensor_has_dispatch($tensor_name$) &&
    !at::impl::tensor_has_dispatch($out_tensor_name$))
  TORCH_INTERNAL_ASSERT($tensor_name$_storage_saved.value().is_alias_of($out_tensor_name$.storage()));
)cc";
constexpr std::string_view kEnforceTensorImplUseCount = R"cc(if (!at::impl::dispatch_mode_enabled() && !at::impl::tensor_has_dispatch($tensor_name$))
  TORCH_INTERNAL_ASSERT($tensor_name$.use_count() == expected_fresh_use_count($tensor_name$), "function: $fn_name$");
)cc";
constexpr std::string_view kEnforceTensorStorageUseCountEqualsOne = R"cc(if ($tensor_name$.has_storage() && !at::impl::dispatch_mode_enabled() && !at::impl::tensor_has_dispatch($tensor_name$)) {
  TORCH_INTERNAL_ASSERT($tensor_name$.storage().use_count() == 1, "function: $fn_name$");
}
)cc";
constexpr std::string_view kFireNodeCreationHooks = R"cc(if ($node$) {
    fire_node_creation_hooks($node$);
}
)cc";
constexpr std::string_view kFwDerivativeCheckTemplate = R"cc(isFwGradDefined($req_inp$))cc";
constexpr std::string_view kFwDerivativeDefinedGradTemplate = R"cc(auto $inp_name$_t_raw = toNonOptFwGrad($inp$);
auto $inp_name$_tensor = toNonOptTensor($inp$);
auto $inp_name$_t = ($inp_name$_t_raw.defined() || !$inp_name$_tensor.defined())
  ? $inp_name$_t_raw : at::$zeros_fn$($inp_name$_tensor.sym_sizes(), $inp_name$_tensor.options());
)cc";
constexpr std::string_view kFwDerivativeDefinedPrimalTemplate = R"cc(auto $inp_name$_p = toNonOptPrimal($inp$);
)cc";
const CodeTemplate kFwDerivativeForbidListTemplate(R"cc(for (const auto& _t: ${arg}) {
    TORCH_CHECK_NOT_IMPLEMENTED(!(${cond}), "Trying to use forward AD with ${name} that does not support it ${msg}");
}
)cc");
constexpr std::string_view kFwDerivativeForbidTemplate = R"cc(TORCH_CHECK_NOT_IMPLEMENTED(!($cond$), "Trying to use forward AD with $name$ that does not support it $msg$");
)cc";
const CodeTemplate kFwDerivativeForeachTemplate(R"cc(${fw_grad_opt_definition}
for (const auto& i : c10::irange(${vector_of_optional_tensor}.size())) {
  if (${any_has_forward_grad_for_current_index}) {
      ${unpacked_arguments}
      ${vector_of_optional_tensor}[i] = ${formula};
  }
}
)cc");
const CodeTemplate kFwDerivativeSetterMultiOutput(R"cc(if (${all_res}_new_fw_grad_opt.has_value() && std::get<${idx}>(${all_res}_new_fw_grad_opt.value()).defined()
    && ${out_arg}.defined()) {
  ${out_arg}._set_fw_grad(std::get<${idx}>(${all_res}_new_fw_grad_opt.value()), /* level */ 0, /* is_inplace_op */ false);
}
)cc");
const CodeTemplate kFwDerivativeSetterTensor(R"cc(if (${out_arg}_new_fw_grad_opt.has_value() && ${out_arg}_new_fw_grad_opt.value().defined() && ${out_arg}.defined()) {
  // The hardcoded 0 here will need to be updated once we support multiple levels.
  ${out_arg}._set_fw_grad(${out_arg}_new_fw_grad_opt.value(), /* level */ 0, /* is_inplace_op */ ${is_inplace});
}
)cc");
const CodeTemplate kFwDerivativeSetterTensorForeach(R"cc(for (const auto& i : c10::irange(${out_arg}_new_fw_grad_opts.size())) {
  auto& ${out_arg}_new_fw_grad_opt = ${out_arg}_new_fw_grad_opts[i];
  if (${out_arg}_new_fw_grad_opt.has_value() && ${out_arg}_new_fw_grad_opt.value().defined() && ${out_arg}[i].defined()) {
    // The hardcoded 0 here will need to be updated once we support multiple levels.
    ${out_arg}[i]._set_fw_grad(${out_arg}_new_fw_grad_opt.value(), /* level */ 0, /* is_inplace_op */ ${is_inplace});
  }
}
)cc");
const CodeTemplate kFwDerivativeSetterTensorList(R"cc(if (${out_arg}_new_fw_grad_opt.has_value()) {
  auto ${out_arg}_new_fw_grad = ${out_arg}_new_fw_grad_opt.value();
  TORCH_INTERNAL_ASSERT(${out_arg}.size() == ${out_arg}_new_fw_grad.size());
  for (const auto i : c10::irange(${out_arg}.size())) {
    if (${out_arg}_new_fw_grad[i].defined() && ${out_arg}[i].defined()) {
      // The hardcoded 0 here will need to be updated once we support multiple levels.
      ${out_arg}[i]._set_fw_grad(${out_arg}_new_fw_grad[i], /* level */ 0, /* is_inplace_op */ ${is_inplace});
    }
  }
}
)cc");
const CodeTemplate kFwDerivativeSizeCheckTemplate(R"cc(TORCH_CHECK(
    self.size() == ${inp_name}.size(),
      "Tensor lists must have the same number of tensors, got ",
    self.size(),
      " and ",
    ${inp_name}.size());
)cc");
const CodeTemplate kFwDerivativeTemplate(R"cc(${fw_grad_opt_definition}
if (${requires_fw_grad}) {
    ${unpacked_arguments}
    ${out_arg}_new_fw_grad_opt = ${formula};
}
)cc");
constexpr std::string_view kFwDerivativeTensorlistCheckTemplate = R"cc(isFwGradDefinedTensorList($req_inp$))cc";
constexpr std::string_view kFwDerivativeUpdateWrappedNumTemplate = R"cc(update_wrapped_number($inp_name$_tensor, $inp_name$_t);
)cc";
const CodeTemplate kLoopOverVectorOfGradFns(R"cc(if (!grad_fns.empty()) {
    ${preamble}
    for (const auto& i : c10::irange(grad_fns.size())) {
        auto grad_fn = grad_fns[i];
        if (grad_fn != nullptr) {
            ${statements}
        }
    }
}
)cc");
const CodeTemplate kMethodDefinition(R"cc(${return_type} ${type_wrapper_name}(${formals}) {
  ${type_definition_body}
}
)cc");
constexpr std::string_view kRebaseHistory = R"cc(c10::intrusive_ptr<Node> _rebased_fn;
if (grad_fn) {
    _rebased_fn = rebase_history($differentiable_outputs$, grad_fn);
}
)cc";
const CodeTemplate kRunOnlyInDebugMode(R"cc(#ifndef NDEBUG
${statements}
#endif
)cc");
constexpr std::string_view kSaveOptionaltensorlistImpl = R"cc(std::vector<c10::intrusive_ptr<TensorImpl>> $tensorlist_name$_impl_saved($tensorlist_name$.size());
for (size_t i=0; i<$tensorlist_name$.size(); i++) {
  ::std::optional<Tensor> t = $tensorlist_name$[i];
  if (t.has_value() && t->defined()) $tensorlist_name$_impl_saved[i] = t->getIntrusivePtr();
}
)cc";
constexpr std::string_view kSaveOptionaltensorlistStorage = R"cc(std::vector<::std::optional<Storage>> $tensorlist_name$_storage_saved($tensorlist_name$.size());
for (const ::std::optional<Tensor>& tensor : $tensorlist_name$)
  $tensorlist_name$_storage_saved.push_back(
    tensor.has_value() && tensor->has_storage() ? ::std::optional<Storage>(tensor->storage()) : ::std::nullopt);
)cc";
constexpr std::string_view kSaveTensorlistImpl = R"cc(std::vector<c10::intrusive_ptr<TensorImpl>> $tensorlist_name$_impl_saved($tensorlist_name$.size());
for (size_t i=0; i<$tensorlist_name$.size(); i++)
  if ($tensorlist_name$[i].defined()) $tensorlist_name$_impl_saved[i] = $tensorlist_name$[i].getIntrusivePtr();
)cc";
constexpr std::string_view kSaveTensorlistStorage = R"cc(std::vector<::std::optional<Storage>> $tensorlist_name$_storage_saved($tensorlist_name$.size());
for (const Tensor& tensor : $tensorlist_name$)
  $tensorlist_name$_storage_saved.push_back(
    tensor.has_storage() ? ::std::optional<Storage>(tensor.storage()) : ::std::nullopt);
)cc";
constexpr std::string_view kSaveTensorImpl = R"cc(c10::intrusive_ptr<TensorImpl> $tensor_name$_impl_saved;
if ($tensor_name$.defined()) $tensor_name$_impl_saved = $tensor_name$.getIntrusivePtr();
)cc";
constexpr std::string_view kSaveTensorStorage = R"cc(auto $tensor_name$_storage_saved =
  $tensor_name$.has_storage() ? ::std::optional<Storage>($tensor_name$.storage()) : ::std::nullopt;
)cc";
const CodeTemplate kSetupAnyRequiresGrad(R"cc([[maybe_unused]] auto _any_requires_grad = compute_requires_grad( ${args_with_derivatives} );
${extra_differentiability_conditions}
)cc");
const CodeTemplate kSetupDerivative(R"cc(if (_any_requires_grad) {
  ${setup}
}
)cc");
constexpr std::string_view kSetupNoneRequiresGrad = R"cc(if (compute_requires_grad( $args_to_check$ )) {
  throw_error_out_requires_grad("$base_name$");
}
)cc";
const CodeTemplate kSetHistory(R"cc(if (grad_fn) {
    ${fn}_history(${differentiable_outputs}, grad_fn);
}
)cc");
constexpr std::string_view kWrapperRegistration = R"cc(m.impl("$unqual_operator_name_with_overload$",
       TORCH_FN($class_type$::$type_wrapper_name$)
);
)cc";
const std::set<std::string, std::less<>> kDontRequireDerivative = {
    "__and__", "__iand__", "__ilshift__", "__ior__", "__irshift__", "__ixor__", "__lshift__", "__or__",
    "__rshift__", "__xor__", "_coalesced_", "_nested_tensor_size", "_nested_tensor_storage_offsets",
    "_nested_tensor_strides", "_sobol_engine_draw", "_sobol_engine_ff", "_sobol_engine_initialize_state_",
    "_sobol_engine_scramble_", "allclose", "argmax", "argmin", "argsort", "bucketize", "empty_like", "full_like",
    "isin", "isinf", "isnan", "isneginf", "isposinf", "logical_and", "logical_not", "logical_or", "logical_xor",
    "new_empty", "new_empty_strided", "new_full", "new_ones", "new_zeros", "ones_like", "quantize_per_channel",
    "quantize_per_tensor", "rand_like", "randn_like", "record_stream", "searchsorted", "signbit", "zeros_like",
};
const std::set<std::string, std::less<>> kGradientImplementedForComplex = {
    "__radd__", "__rmul__", "_coalesce", "_conj", "_conj_physical", "_fft_c2c", "_fft_r2c", "_linalg_det",
    "_linalg_eigh", "_linalg_slogdet", "_linalg_solve_ex", "_linalg_svd", "_neg_view", "_reshape_alias",
    "_reshape_copy", "_sparse_addmm", "_sparse_coo_tensor_with_dims_and_tensors", "_sparse_sparse_matmul",
    "_to_copy", "_to_dense", "_unsafe_index", "_unsafe_index_put", "_unsafe_masked_index",
    "_unsafe_masked_index_put_accumulate", "_unsafe_view", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul",
    "addmm", "addmv", "addr", "alias", "alias_copy", "as_strided", "as_strided_copy", "as_strided_scatter", "asin",
    "asinh", "atan", "atanh", "baddbmm", "block_diag", "bmm", "cat", "channel_shuffle", "cholesky_inverse",
    "cholesky_solve", "chunk", "clone", "coalesce", "col2im", "complex", "conj_physical_", "constant_pad_nd",
    "cos", "cosh", "cumprod", "cumsum", "cumulative_trapezoid", "diag", "diag_embed", "diagonal",
    "diagonal_backward", "diagonal_copy", "diagonal_scatter", "div", "dot", "eig", "eq_", "exp", "exp2", "expand",
    "expand_copy", "expm1", "fill", "fill_", "flip", "fliplr", "flipud", "gather", "im2col", "index", "index_add",
    "index_add_", "index_copy", "index_fill", "index_put", "index_select", "inverse", "ldexp", "lerp",
    "linalg_cholesky", "linalg_cholesky_ex", "linalg_cross", "linalg_eig", "linalg_householder_product",
    "linalg_inv", "linalg_inv_ex", "linalg_lstsq", "linalg_lu", "linalg_lu_factor_ex", "linalg_lu_solve",
    "linalg_matrix_exp", "linalg_matrix_sqrth", "linalg_pinv", "linalg_polar", "linalg_qr", "linalg_solve",
    "linalg_solve_triangular", "linalg_vector_norm", "linear", "log", "log10", "log1p", "log2", "logaddexp",
    "logcumsumexp", "logsumexp", "lu", "lu_solve", "lu_unpack", "masked_fill", "masked_scatter",
    "masked_scatter_backward", "masked_select", "matrix_exp", "mean", "mm", "mul", "mv", "nanmean", "nansum",
    "narrow_copy", "ne_", "neg", "nonzero", "ormqr", "outer", "permute", "permute_copy", "pixel_shuffle",
    "pixel_unshuffle", "polar", "pow", "prod", "put", "put_", "reciprocal", "reflection_pad1d",
    "reflection_pad1d_backward", "reflection_pad2d", "reflection_pad2d_backward", "reflection_pad3d",
    "reflection_pad3d_backward", "renorm", "repeat", "replication_pad1d", "replication_pad1d_backward",
    "replication_pad2d", "replication_pad2d_backward", "replication_pad3d", "replication_pad3d_backward",
    "reshape", "reshape_as", "resize", "resize_as", "roll", "rot90", "rsqrt", "rsub", "scatter", "scatter_add",
    "select", "select_backward", "sgn", "sigmoid", "sigmoid_backward", "sin", "sinc", "sinh", "slice",
    "slice_backward", "solve", "sparse_mask", "sparse_sampled_addmm", "split", "split_with_sizes",
    "split_with_sizes_backward", "sqrt", "squeeze", "squeeze_copy", "stack", "std_mean", "sub", "sum", "t",
    "t_copy", "take", "tan", "tanh", "tanh_backward", "to_sparse", "trace", "transpose", "transpose_copy",
    "trapezoid", "triangular_solve", "tril", "triu", "unbind", "unbind_copy", "unfold", "unfold_backward",
    "unfold_copy", "unsafe_split", "unsqueeze", "unsqueeze_copy", "values", "var_mean", "vdot", "view", "view_as",
    "view_as_complex", "view_copy", "where", "zero_",
};
const std::set<std::string, std::less<>> kResetGradAccumulator = {
    "resize_", "set_",
};
const std::set<std::string, std::less<>> kDontEnforceSameTensorImplOrStorage = {
    "_cudnn_rnn_flatten_weight", "_unsafe_masked_index", "_unsafe_masked_index_put_accumulate", "set_",
};
const std::set<std::string, std::less<>> kDontEnforceTensorImplUseCount = {
    "_cudnn_rnn", "_cudnn_rnn_backward", "_embedding_bag", "_embedding_bag_forward_only", "_nested_tensor_size",
    "_nested_tensor_storage_offsets", "_nested_tensor_strides", "dequantize_self", "lift", "lift_fresh",
    "lift_fresh_copy", "lu_unpack", "q_per_channel_scales", "q_per_channel_zero_points",
};
const std::set<std::string, std::less<>> kDontEnforceStorageImplUseCount = {
    "_cudnn_rnn", "_cudnn_rnn_backward", "_embedding_bag", "_embedding_bag_forward_only", "_nested_tensor_size",
    "_nested_tensor_storage_offsets", "_nested_tensor_strides", "_slow_conv2d_forward", "channel_shuffle",
    "dequantize_self", "lift", "lift_fresh", "lift_fresh_copy", "lu_unpack", "q_per_channel_scales",
    "q_per_channel_zero_points", "slow_conv3d_forward",
};

std::string fill(const CodeTemplate& t, const TemplateEnv& env) {
  support::Diagnostics unused;  // the fixed templates name only what every caller sets
  return t.substitute(env, unused).value_or("");
}

struct Failure {
  std::string message;
};

bool isTensorType(const model::Type& t) { return t.isTensorLike() && t.listLike() == nullptr; }
bool isTensorListType(const model::Type& t) { return t.isTensorLike() && t.listLike() != nullptr; }
bool modifiesArguments(const NativeFunction& f) {
  return f.func.kind() == SchemaKind::Inplace || f.func.kind() == SchemaKind::Out;
}
bool contains(const std::vector<std::string>& xs, std::string_view x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

const std::vector<std::string> kTensorListLikeCTypes = {"at::TensorList", "const c10::List<::std::optional<at::Tensor>> &",
                                                        "const at::ITensorListRef &"};

struct DiffInput {
  std::string name;
  model::Type type;
  std::string cppType;
  bool operator==(const DiffInput& o) const { return name == o.name && type == o.type && cppType == o.cppType; }
};

struct DiffOutput {
  std::string name;
  const model::Type* type;
  std::string cppType;
};

const DifferentiabilityInfo* infoFor(const FunctionWithInfo& fn, const std::string& key, bool& missing) {
  missing = false;
  if (fn.info.empty()) return nullptr;
  for (const auto& [k, i] : fn.info)
    if (k == key) return i;
  missing = true;
  return nullptr;
}

// torchgen's gen_differentiable_outputs for `key`.
std::variant<std::vector<DiffOutput>, Failure> differentiableOutputs(const FunctionWithInfo& fn, const std::string& key,
                                                                     const api::Options& options) {
  const NativeFunction& f = *fn.func;
  bool missing = false;
  const DifferentiabilityInfo* info = infoFor(fn, key, missing);
  if (missing) return Failure{"the function's derivatives have no formulas for " + key};
  const std::vector<std::string> names = api::cpp::returnNames(f);
  std::vector<DiffOutput> outputs;
  for (std::size_t i = 0; i < f.func.returns.size(); ++i)
    outputs.push_back({names[i], &f.func.returns[i].type, api::cpp::returnType(f.func.returns[i], options).cppType()});
  if (info != nullptr && info->outputDifferentiability) {
    const std::vector<bool>& d = *info->outputDifferentiability;
    if (d.size() != outputs.size())
      return Failure{"The length of output_differentiability (" + std::to_string(d.size()) +
                     "), does not match the number of outputs (" + std::to_string(outputs.size()) + ")."};
    if (std::find(d.begin(), d.end(), false) != d.end() && f.func.kind() == SchemaKind::Inplace)
      return Failure{"output_differentiability=False for inplace operation (version_counter won't get updated)"};
    std::vector<DiffOutput> out;
    for (std::size_t i = 0; i < d.size(); ++i)
      if (d[i]) out.push_back(outputs[i]);
    return out;
  }
  std::vector<DiffOutput> candidates;
  for (const DiffOutput& o : outputs)
    if (o.type->isTensorLike() && (info == nullptr || !contains(info->nonDifferentiableArgNames, o.name)))
      candidates.push_back(o);
  const bool singleGrad = info != nullptr && std::any_of(info->derivatives.begin(), info->derivatives.end(), [](const auto& d) {
                            return api::autograd::pyIdentSearch(d.formula, "grad");
                          });
  if (singleGrad && candidates.size() > 1) candidates.resize(1);
  return candidates;
}

std::string formals(const NativeFunction& f, const api::Options& options) {
  std::vector<std::string> out = {"c10::DispatchKeySet ks"};
  for (const model::Argument* a : f.func.schemaOrderArguments())
    out.push_back(api::cpp::argumentType(*a, "__placeholder__", options, /*symint=*/true).cppType() + " " + a->name);
  return support::join(out, ", ");
}

// One kernel's body (torchgen's emit_body); see gen_variable_type.py for what each part does.
class BodyEmitter {
 public:
  BodyEmitter(const FunctionWithInfo& fn, const std::string& key)
      : fn_(fn), f_(*fn.func), key_(key), options_(api::Options::of(*fn.func)) {}
  std::variant<std::vector<std::string>, Failure> emit();

 private:
  std::optional<DiffInput> differentiableInput(const model::Argument& a) const;
  std::optional<std::string> guardFor(const SavedAttribute& arg) const;
  std::variant<std::vector<std::string>, Failure> saveVariables(const std::vector<SavedAttribute>& vars, bool isOutput,
                                                               bool guarded) const;
  std::variant<std::vector<std::string>, Failure> setupDerivative();
  std::variant<std::string, Failure> anyHasFwGradCond(const ForwardDerivative* derivative) const;
  std::string anyHasForwardGradName(const std::vector<std::string>& varNames) const;
  std::variant<std::vector<std::string>, Failure> anyHasForwardGrad();
  std::variant<std::vector<std::string>, Failure> fwDerivatives();
  std::variant<std::string, Failure> call(const std::vector<Binding>& unpacked);
  std::variant<std::string, Failure> checkTensorImplAndStorage(std::string call, const std::vector<Binding>& unpacked) const;
  std::string history() const;
  std::variant<std::string, Failure> saveOutputs() const;

  const FunctionWithInfo& fn_;
  const NativeFunction& f_;
  std::string key_;
  api::Options options_;
  const DifferentiabilityInfo* info_ = nullptr;
  std::vector<ForwardDerivative> fw_;
  std::string name_, baseName_;
  bool inplace_ = false, isOutFn_ = false, returnsVoid_ = false, isForeach_ = false, isInplaceForeach_ = false;
  bool requiresDerivative_ = false, tryJitDecomposition_ = false;
  std::vector<std::pair<const model::Argument*, const model::Argument*>> foreachToRef_;  // inplace foreach
  std::map<std::string, const model::Argument*> refToForeach_;
  std::vector<DiffInput> differentiableInputs_, argsWithDerivatives_;
  std::vector<DiffOutput> differentiableOutputs_;
};

std::optional<DiffInput> BodyEmitter::differentiableInput(const model::Argument& a) const {
  const std::string cppType = api::cpp::argumentType(a, a.name, options_, /*symint=*/true).cppType();
  if (!a.type.isTensorLike() || (info_ != nullptr && contains(info_->nonDifferentiableArgNames, a.name))) return std::nullopt;
  return DiffInput{a.name, a.type, cppType};
}

std::optional<std::string> BodyEmitter::guardFor(const SavedAttribute& arg) const {
  const bool hasTensorListArg = std::any_of(argsWithDerivatives_.begin(), argsWithDerivatives_.end(),
                                            [](const DiffInput& a) { return isTensorListType(a.type); });
  if (hasTensorListArg && !isInplaceForeach_) return std::nullopt;
  if (info_->name.find("backward") != std::string::npos) return std::nullopt;
  if (argsWithDerivatives_.size() <= 1) return std::nullopt;
  if (!(arg.nctype.type == CType::base(api::tensorT))) return std::nullopt;
  std::vector<const api::autograd::Derivative*> usedIn;
  for (const auto& d : info_->derivatives)
    if (std::any_of(d.savedInputs.begin(), d.savedInputs.end(), [&](const SavedAttribute& s) {
          return s.nctype == arg.nctype && s.expr == arg.expr;
        }))
      usedIn.push_back(&d);
  if (usedIn.size() != 1) return std::nullopt;  // (torchgen asserts it is not empty)
  const api::autograd::Derivative& d = *usedIn[0];
  const std::string name = arg.nctype.name.str();
  if (d.varNames.size() != 1) {
    const std::size_t start = d.formula.find("wrap_opt_if(" + name);
    if (start == std::string::npos) return std::nullopt;
    // re.match(rf"wrap_opt_if\({name},(.*?)\)") from there, then torchgen's slice, which counts the
    // regex's backslash: one character more than the text "wrap_opt_if(NAME,".
    const std::string rest = d.formula.substr(start);
    const std::string prefix = "wrap_opt_if(" + name + ",";
    if (!rest.starts_with(prefix)) return std::nullopt;
    std::size_t close = rest.find(')', prefix.size());
    const std::size_t newline = rest.find('\n', prefix.size());
    if (close == std::string::npos || (newline != std::string::npos && newline < close)) return std::nullopt;
    const std::string matched = rest.substr(0, close + 1);
    const std::size_t from = std::min(matched.size() - 1, prefix.size() + 1);
    std::string condition(support::trim(matched.substr(from, matched.size() - 1 - from)));
    // re.sub(r"grad_input_mask\[(\d+)\]", r"grad_fn->should_compute_output(\1)")
    std::string out;
    std::size_t i = 0;
    constexpr std::string_view kMask = "grad_input_mask[";
    while (i < condition.size()) {
      if (condition.compare(i, kMask.size(), kMask) == 0) {
        std::size_t j = i + kMask.size(), k = j;
        while (k < condition.size() && std::isdigit(static_cast<unsigned char>(condition[k]))) ++k;
        if (k > j && k < condition.size() && condition[k] == ']') {
          out += "grad_fn->should_compute_output(" + condition.substr(j, k - j) + ")";
          i = k + 1;
          continue;
        }
      }
      out += condition[i++];
    }
    return out;
  }
  for (std::size_t edge = 0; edge < argsWithDerivatives_.size(); ++edge)
    if (argsWithDerivatives_[edge].name == d.varNames[0]) return "grad_fn->should_compute_output(" + std::to_string(edge) + ")";
  return std::nullopt;
}

std::variant<std::vector<std::string>, Failure> BodyEmitter::saveVariables(const std::vector<SavedAttribute>& vars, bool isOutput,
                                                                          bool guarded) const {
  std::vector<SavedAttribute> sorted = vars;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const SavedAttribute& a, const SavedAttribute& b) { return a.nctype.name.str() < b.nctype.name.str(); });
  std::vector<std::string> stmts;
  const CType tensor = CType::base(api::tensorT);
  for (const SavedAttribute& arg : sorted) {
    std::string name = arg.name();
    const CType& type = arg.nctype.type;
    std::string expr = arg.expr;
    std::optional<std::string> prepend;
    const model::Argument* foreachArg = nullptr;
    bool foreachArgIsList = false;
    std::string nameInExpr, srcName;
    if (isInplaceForeach_ && info_ != nullptr) {
      const std::string query = name.substr(0, name.find("_scalar_type"));
      if (const auto it = refToForeach_.find(query); it != refToForeach_.end()) {
        foreachArg = it->second;
        foreachArgIsList = foreachArg->type.isList();
        nameInExpr = foreachArg->name + (foreachArgIsList ? "[i]" : "");
        srcName = name;
        if (srcName.find("_scalar_type") != std::string::npos) srcName = srcName.substr(0, srcName.find("_scalar_type"));
        expr = support::replaceAll(expr, srcName, nameInExpr);
      }
    }
    if (type == tensor || type == CType::optional(tensor) || type == CType::mutRef(CType::optional(tensor)) ||
        (isOutput && type == CType::base(api::scalarT))) {
      std::string var = name;
      name += "_";
      if (var == "self" && inplace_) {
        const std::string original = isInplaceForeach_ ? "original_selfs[i]" : "original_self";
        const std::string selfVar = isInplaceForeach_ ? var + "[i]" : var;
        prepend = "if (!" + original + ".has_value()) " + original + " = " + selfVar + ".clone()";
        var = original + ".value()";
        if (isOutput) return Failure{"is_output should be False when var == 'self' and inplace"};
      }
      if (inplace_ && isOutput) {
        if (name != "result_") return Failure{"expected name to be 'result_' for inplace output, got " + name};
        var = isInplaceForeach_ || foreachArgIsList ? "self[i]" : "self";
        expr = "SavedVariable(" + var + ", true, " + var + ".is_view())";
      } else {
        expr = "SavedVariable(" + var + ", " + (isOutput ? "true" : "false") + ")";
        if (foreachArg != nullptr && expr.find("original_selfs") == std::string::npos)
          expr = support::replaceAll(expr, srcName, nameInExpr);
      }
    } else if (type == CType::base(api::tensorListT) || type == CType::list(CType::optional(tensor)) ||
               type == CType::base(api::iTensorListRefT) || type == CType::vector(tensor)) {
      if (type == CType::vector(tensor) && !(isForeach_ && isOutput))
        return Failure{"VectorCType(BaseCType(tensorT)) requiresFw is_foreach and is_output"};
      expr = "make_saved_variable_list(" + name + ", " + (isForeach_ && isOutput ? "true" : "false") + ")";
      name += "_";
    } else if (type == CType::base(api::intArrayRefT) || type == CType::base(api::symIntArrayRefT)) {
      expr += ".vec()";
    } else if (type == CType::base(api::stringT)) {
      expr = "std::string(" + expr + ")";
    } else if (type == CType::optional(CType::base(api::stringT))) {
      expr = expr + ".has_value() ? ::std::optional<std::string>(std::string(" + expr + ".value())) : ::std::nullopt";
    } else if (type == CType::arrayRef(CType::base(api::scalarT))) {
      expr += ".vec()";
    }
    const std::optional<std::string> guard = guarded ? guardFor(arg) : std::nullopt;
    if (!guard) {
      if (prepend) stmts.push_back(*prepend + ";");
      stmts.push_back("grad_fn->" + name + " = " + expr + ";");
    } else {
      stmts.push_back("if (" + *guard + ") {");
      if (prepend) stmts.push_back("  " + *prepend + ";");
      stmts.push_back("  grad_fn->" + name + " = " + expr + ";");
      stmts.push_back("}");
    }
  }
  return stmts;
}

std::vector<std::string> splitLines(const std::string& s) {
  std::vector<std::string> out;
  for (std::string_view line : support::split(s, "\n")) out.emplace_back(line);
  return out;
}

std::variant<std::vector<std::string>, Failure> BodyEmitter::setupDerivative() {
  std::vector<std::string> body;
  const auto names = [](const auto& xs) {
    std::vector<std::string> out;
    for (const auto& x : xs) out.push_back(x.name);
    return out;
  };
  if (isOutFn_) {
    body.push_back(support::fillSnippet(kDeclareGradFn, {{"op", "Node"}}));
    body.push_back(support::fillSnippet(
        kSetupNoneRequiresGrad,
        {{"base_name", baseName_}, {"args_to_check", support::join(names(differentiableInputs_), ", ")}}));
    body.push_back(support::fillSnippet(
        kSetupNoneRequiresGrad,
        {{"base_name", baseName_}, {"args_to_check", support::join(names(differentiableOutputs_), ", ")}}));
    return body;
  }
  const bool hasDerivatives = info_ != nullptr && info_->hasDerivatives();
  const std::string op = hasDerivatives ? info_->op.value_or("None") : "NotImplemented";
  const std::string opCtor = hasDerivatives ? "" : "\"" + api::cpp::name(f_.func) + "\"";
  std::vector<std::string> setup;
  if (!isInplaceForeach_) {
    for (std::string& line :
         splitLines(support::fillSnippet(kAssignGradFn, {{"op", op},
                                                         {"op_ctor", opCtor},
                                                         {"args_with_derivatives", support::join(names(argsWithDerivatives_), ", ")}})))
      setup.push_back(std::move(line));
  } else {
    std::vector<std::string> args = names(argsWithDerivatives_);
    for (std::string& a : args) {
      if (info_ != nullptr) {
        if (const auto it = refToForeach_.find(a); it != refToForeach_.end())
          a = it->second->name + (it->second->type.isList() ? "[i]" : "");
      } else if (a == "self") {
        a += "[i]";
      }
    }
    for (std::string& line : splitLines(support::fillSnippet(kAssignVectorOfGradFn, {{"op", op},
                                                                                      {"op_ctor", opCtor},
                                                                                      {"args_with_derivatives", support::join(args, ", ")},
                                                                                      {"irange", "self.size()"}})))
      setup.push_back(std::move(line));
  }
  // emit_save_inputs
  if (hasDerivatives) {
    auto saved = saveVariables(info_->allSavedInputs, false, true);
    if (auto* failure = std::get_if<Failure>(&saved)) return *failure;
    auto& stmts = std::get<0>(saved);
    if (isInplaceForeach_) {
      if (!stmts.empty()) setup.push_back(fill(kLoopOverVectorOfGradFns, TemplateEnv().set("preamble", "").set("statements", stmts)));
    } else {
      setup.insert(setup.end(), stmts.begin(), stmts.end());
      for (const DiffInput& a : argsWithDerivatives_)
        if (isTensorListType(a.type)) setup.push_back("grad_fn->" + a.name + "_size_ = " + a.name + ".size();");
    }
  }
  // emit_check_no_requires_grad
  for (const DiffInput& a : differentiableInputs_) {
    if (std::find(argsWithDerivatives_.begin(), argsWithDerivatives_.end(), a) != argsWithDerivatives_.end()) continue;
    if (info_ != nullptr && contains(info_->nonDifferentiableArgNames, a.name)) continue;
    if (a.name == "output") continue;
    body.push_back("check_no_requires_grad(" + a.name + ", \"" + a.name + "\", \"" + name_ + "\");");
  }
  body.push_back(support::fillSnippet(isInplaceForeach_ ? kDeclareVectorOfGradFn : kDeclareGradFn, {{"op", op}}));
  body.push_back(fill(kSetupDerivative, TemplateEnv().set("setup", setup)));
  return body;
}

std::string BodyEmitter::anyHasForwardGradName(const std::vector<std::string>& varNames) const {
  return "_any_has_forward_grad_" + support::join(varNames, "_");
}

std::variant<std::string, Failure> BodyEmitter::anyHasFwGradCond(const ForwardDerivative* derivative) const {
  if (derivative == nullptr) {
    std::vector<std::string> toCheck;
    std::vector<const model::Argument*> args = f_.func.arguments.flatNonOut();
    for (const model::Argument& o : f_.func.arguments.out) args.push_back(&o);
    for (const model::Argument* a : args) {
      const std::optional<DiffInput> in = differentiableInput(*a);
      if (!in) continue;
      if (isTensorType(in->type)) toCheck.push_back(support::fillSnippet(kFwDerivativeCheckTemplate, {{"req_inp", in->name}}));
      else if (isTensorListType(in->type))
        toCheck.push_back(support::fillSnippet(kFwDerivativeTensorlistCheckTemplate, {{"req_inp", in->name}}));
      else return Failure{"Unsupported input type for \"" + name_ + "\" when forbidding forward AD usage."};
    }
    return "(" + support::join(toCheck, " || ") + ")";
  }
  if (derivative->requiredInputsFwGrad.empty()) {
    if (!(differentiableInputs_.size() == 1 && isTensorListType(differentiableInputs_[0].type)))
      return Failure{"No differentiable input to \"" + name_ + "\" is a differentiable Tensor (as the provided forward AD "
                     "formula does not use any input tangent) even though a forward gradient formula has been defined for "
                     "it. This case should only happen for function that take a single TensorList as input. All other "
                     "cases are not supported right now."};
    return std::string("true");
  }
  std::vector<std::string> parts;
  for (const DiffInput& in : differentiableInputs_)
    if (contains(derivative->requiredInputsFwGrad, in.name))
      parts.push_back(support::fillSnippet(
          isTensorListType(in.type) ? kFwDerivativeTensorlistCheckTemplate : kFwDerivativeCheckTemplate, {{"req_inp", in.name}}));
  return "(" + support::join(parts, " || ") + ")";
}

std::variant<std::vector<std::string>, Failure> BodyEmitter::anyHasForwardGrad() {
  std::vector<std::string> content;
  if (!isForeach_) {
    for (const ForwardDerivative& d : fw_) {
      auto cond = anyHasFwGradCond(&d);
      if (auto* failure = std::get_if<Failure>(&cond)) return *failure;
      std::string requiresFw = std::get<std::string>(cond);
      if (info_ != nullptr && info_->outputDifferentiabilityConditions)
        requiresFw = "(" + info_->outputDifferentiabilityConditions->front() + ") && " + requiresFw;
      content.push_back("[[maybe_unused]] auto " + anyHasForwardGradName(d.varNames) + " = " + requiresFw + ";");
    }
    return content;
  }
  for (const ForwardDerivative& d : fw_) {
    const std::string vec = anyHasForwardGradName(d.varNames);
    std::vector<std::string> conditions;
    for (const DiffInput& in : differentiableInputs_) {
      if (!contains(d.requiredInputsFwGrad, in.name)) continue;
      std::string inName = in.name;
      model::Type inType = in.type;
      if (inplace_) {
        const auto it = refToForeach_.find(in.name);
        if (it == refToForeach_.end()) return Failure{"no foreach argument for " + in.name};
        inName = it->second->name;
        inType = it->second->type;
      }
      if (isTensorListType(inType)) {
        if (inName != "self") content.push_back(fill(kFwDerivativeSizeCheckTemplate, TemplateEnv().set("inp_name", inName)));
        conditions.push_back(support::fillSnippet(kFwDerivativeCheckTemplate, {{"req_inp", inName + "[i]"}}));
      } else {
        conditions.push_back(support::fillSnippet(kFwDerivativeCheckTemplate, {{"req_inp", inName}}));
      }
    }
    content.push_back("std::vector<bool> " + vec + "(self.size());");
    content.push_back("for (const auto& i : c10::irange(self.size())) {");
    content.push_back("  " + vec + "[i] = " + support::join(conditions, " || ") + ";");
    content.push_back("}");
  }
  return content;
}

std::variant<std::vector<std::string>, Failure> BodyEmitter::fwDerivatives() {
  std::vector<std::string> content, setters;
  std::string zerosFn;
  for (const ForwardDerivative& d : fw_) {
    std::vector<std::string> res = d.varNames;
    if (f_.func.name.name.inplace) {
      if (res.size() != 1) return Failure{"Expected number of outputs to be 1 if function is inplace"};
      res = {"self"};
    }
    std::string unpacked;
    for (const DiffInput& in : differentiableInputs_) {
      std::string inName = in.name;
      model::Type inType = in.type;
      const auto mapped = refToForeach_.find(in.name);
      if (inplace_ && isForeach_) {
        if (mapped == refToForeach_.end()) return Failure{"no foreach argument for " + in.name};
        inType = mapped->second->type;
      }
      const bool inputTensorList = isForeach_ && isTensorListType(inType);
      const std::string suffix = inputTensorList ? "[i]" : "";
      if (isInplaceForeach_ && mapped != refToForeach_.end()) inName = mapped->second->name;
      zerosFn = inplace_ && in.name == "self" ? "zeros_symint" : "_efficientzerotensor_symint";
      if (contains(d.requiredInputsFwGrad, in.name)) {
        unpacked += support::fillSnippet(kFwDerivativeDefinedGradTemplate, {{"inp_name", in.name}, {"inp", inName + suffix}, {"zeros_fn", zerosFn}});
        if (zerosFn == "_efficientzerotensor_symint")
          unpacked += support::fillSnippet(kFwDerivativeUpdateWrappedNumTemplate, {{"inp_name", in.name}});
      }
      if (contains(d.requiredInputsPrimal, in.name))
        unpacked += support::fillSnippet(kFwDerivativeDefinedPrimalTemplate, {{"inp_name", in.name}, {"inp", inName + suffix}});
    }
    if (d.requiredOriginalSelfValue) {
      const std::string suffix = isInplaceForeach_ ? "s[i]" : "";
      unpacked += support::fillSnippet(kFwDerivativeDefinedGradTemplate,
                                       {{"inp_name", "original_self"}, {"inp", "original_self" + suffix}, {"zeros_fn", zerosFn}});
      unpacked += support::fillSnippet(kFwDerivativeDefinedPrimalTemplate, {{"inp_name", "original_self"}, {"inp", "original_self" + suffix}});
    } else if (inplace_ && d.isReusingOutplaceFormula) {
      unpacked += "self_t = GradMode::is_enabled() ? self_t.clone() : self_t;";
    }
    const std::string isInplace = inplace_ ? "true" : "false";
    std::string requiresFw = anyHasForwardGradName(d.varNames);
    std::string optType;
    const bool allTensors = std::all_of(d.varTypes.begin(), d.varTypes.end(),
                                        [](const model::Type& t) { return t.kind() == model::Type::Kind::Base && t.isTensorLike(); });
    const std::string joined = support::join(res, "_");
    if (allTensors) {
      if (d.varTypes.size() == 1) {
        optType = CType::optional(CType::base(api::tensorT)).cppType();
        if (!isForeach_) {
          setters.push_back(fill(kFwDerivativeSetterTensor, TemplateEnv().set("out_arg", res[0]).set("is_inplace", isInplace)));
        } else {
          if (res[0] != (inplace_ ? "self" : "result")) return Failure{"res[0] is " + res[0]};
          setters.push_back(fill(kFwDerivativeSetterTensorForeach, TemplateEnv().set("out_arg", res[0]).set("is_inplace", isInplace)));
        }
        requiresFw += " && (" + d.varNames[0] + ".defined())";
      } else {
        optType = CType::optional(CType::tuple(std::vector<CType>(d.varTypes.size(), CType::base(api::tensorT)))).cppType();
        for (std::size_t i = 0; i < res.size(); ++i)
          setters.push_back(fill(kFwDerivativeSetterMultiOutput,
                                 TemplateEnv().set("idx", std::to_string(i)).set("all_res", joined).set("out_arg", res[i])));
      }
    } else if (d.varTypes[0].isList() && d.varTypes[0].isTensorLike()) {
      if (d.varTypes.size() != 1) return Failure{"Expected number of outputs to be 1 if function returns ListType"};
      if (!isForeach_) {
        optType = CType::optional(CType::vector(CType::base(api::tensorT))).cppType();
        setters.push_back(fill(kFwDerivativeSetterTensorList, TemplateEnv().set("out_arg", res[0]).set("is_inplace", isInplace)));
      } else {
        optType = CType::optional(CType::base(api::tensorT)).cppType();
        setters.push_back(fill(kFwDerivativeSetterTensorForeach, TemplateEnv().set("out_arg", res[0]).set("is_inplace", isInplace)));
      }
    } else {
      return Failure{"Unsupported output type for forward derivative"};
    }
    if (!isForeach_) {
      content.push_back(fill(kFwDerivativeTemplate, TemplateEnv()
                                                         .set("fw_grad_opt_definition", optType + " " + joined + "_new_fw_grad_opt = ::std::nullopt;")
                                                         .set("requires_fw_grad", requiresFw)
                                                         .set("formula", d.formula)
                                                         .set("out_arg", joined)
                                                         .set("unpacked_arguments", unpacked)));
    } else {
      std::string formula = d.formula;
      if (inplace_) {
        for (const auto& [foreachArg, refArg] : foreachToRef_)
          if (!(isTensorType(foreachArg->type) || isTensorListType(foreachArg->type)))
            formula = support::replaceAll(formula, refArg->name, foreachArg->name + (foreachArg->type.isList() ? "[i]" : ""));
      } else if (formula.find("result") != std::string::npos && formula.find("result[i]") == std::string::npos) {
        formula = support::replaceAll(formula, "result", "result[i]");
      }
      std::vector<std::string> any;
      for (const ForwardDerivative& other : fw_) any.push_back(anyHasForwardGradName(other.varNames) + "[i]");
      content.push_back(fill(kFwDerivativeForeachTemplate,
                             TemplateEnv()
                                 .set("fw_grad_opt_definition", "std::vector<" + optType + "> " + joined +
                                                                    "_new_fw_grad_opts(self.size(), ::std::nullopt);")
                                 .set("vector_of_optional_tensor", joined + "_new_fw_grad_opts")
                                 .set("any_has_forward_grad_for_current_index", support::join(any, " || "))
                                 .set("formula", formula)
                                 .set("unpacked_arguments", unpacked)));
    }
  }
  content.push_back(support::join(setters, "\n"));
  return content;
}

std::variant<std::string, Failure> BodyEmitter::checkTensorImplAndStorage(std::string call,
                                                                         const std::vector<Binding>& unpacked) const {
  static const std::set<std::string> kDontEnforceSameImplOrStorage(kDontEnforceSameTensorImplOrStorage.begin(),
                                                                     kDontEnforceSameTensorImplOrStorage.end());
  if (kDontEnforceSameImplOrStorage.count(api::cpp::name(f_.func))) return call;
  std::vector<std::string> before, after;
  const CType tensor = CType::base(api::tensorT);
  for (const Binding& b : unpacked) {
    const std::string& arg = b.name;
    const CType t = b.nctype.type.removeConstRef();
    if (t == CType::base(api::tensorListT) || t == CType::base(api::iTensorListRefT)) {
      before.push_back(support::fillSnippet(kSaveTensorlistStorage, {{"tensorlist_name", arg}}));
      before.push_back(support::fillSnippet(kSaveTensorlistImpl, {{"tensorlist_name", arg}}));
      after.push_back(support::fillSnippet(kEnforceSameTensorlistStorage, {{"tensorlist_name", arg}}));
      after.push_back(support::fillSnippet(kEnforceSameTensorlistImpl, {{"tensorlist_name", arg}}));
    } else if (t == CType::list(CType::optional(tensor))) {
      before.push_back(support::fillSnippet(kSaveOptionaltensorlistStorage, {{"tensorlist_name", arg}}));
      before.push_back(support::fillSnippet(kSaveOptionaltensorlistImpl, {{"tensorlist_name", arg}}));
      after.push_back(support::fillSnippet(kEnforceSameOptionaltensorlistStorage, {{"tensorlist_name", arg}}));
      after.push_back(support::fillSnippet(kEnforceSameOptionaltensorlistImpl, {{"tensorlist_name", arg}}));
    } else if (t == tensor) {
      before.push_back(support::fillSnippet(kSaveTensorStorage, {{"tensor_name", arg}}));
      before.push_back(support::fillSnippet(kSaveTensorImpl, {{"tensor_name", arg}}));
      after.push_back(support::fillSnippet(kEnforceSameTensorStorage, {{"tensor_name", arg}, {"out_tensor_name", arg}}));
      after.push_back(support::fillSnippet(kEnforceSameTensorImpl, {{"tensor_name", arg}}));
    }
  }
  if (!modifiesArguments(f_)) {
    const std::string& base = f_.func.name.name.base;
    std::optional<std::string> aliased;
    if (const std::string* v = viewFunctionBase(base)) aliased = *v + "_";
    else if (base == "_unsafe_view") aliased = "self_";
    const std::vector<std::string> retNames = api::cpp::returnNames(f_);
    const std::string wrapper = typeWrapperName(f_);
    for (std::size_t i = 0; i < f_.func.returns.size(); ++i) {
      const CType t = api::cpp::returnType(f_.func.returns[i], options_).removeConstRef();
      if (t == tensor) {
        if (aliased) {
          if (i != 0) return Failure{"Expect non-CompositeImplicitAutograd view function " + base + " to return single output"};
          after.push_back(support::fillSnippet(kEnforceSameTensorStorage, {{"tensor_name", *aliased}, {"out_tensor_name", retNames[i]}}));
        } else if (!kDontEnforceStorageImplUseCount.count(wrapper)) {
          after.push_back(support::fillSnippet(kEnforceTensorStorageUseCountEqualsOne, {{"tensor_name", retNames[i]}, {"fn_name", wrapper}}));
        }
        if (!kDontEnforceTensorImplUseCount.count(wrapper))
          after.push_back(support::fillSnippet(kEnforceTensorImplUseCount, {{"tensor_name", retNames[i]}, {"fn_name", wrapper}}));
      } else if (t == CType::list(CType::optional(tensor)) || t == CType::base(api::tensorListT)) {
        return Failure{"Please add use_count checks for " + t.cppType()};
      }
    }
  }
  if (!before.empty() && !after.empty())
    call = fill(kRunOnlyInDebugMode, TemplateEnv().set("statements", before)) + call +
           fill(kRunOnlyInDebugMode, TemplateEnv().set("statements", after));
  return call;
}

std::variant<std::string, Failure> BodyEmitter::call(const std::vector<Binding>& unpacked) {
  std::vector<std::string> args = {"ks & c10::after_autograd_keyset"};
  for (const Binding& b : unpacked) args.push_back(b.name);
  const std::string baseTypeCall = support::fillSnippet(
      kCallRedispatch, {{"api_name", api::cpp::name(f_.func, /*faithfulNameForOutOverloads=*/true, f_.func.hasSymInt())},
                        {"unpacked_args", support::join(args, ", ")}});
  const std::string guard = viewInfo(f_) != nullptr || modifiesArguments(f_) ? "at::AutoDispatchBelowAutograd guard;"
                                                                             : "at::AutoDispatchBelowADInplaceOrView guard;";
  std::string anyHasForwardGrad = "false";
  if (requiresDerivative_) {
    auto cond = anyHasFwGradCond(nullptr);
    if (auto* failure = std::get_if<Failure>(&cond)) return *failure;
    anyHasForwardGrad = std::get<std::string>(cond);
  }
  std::vector<std::string> returnTypes;
  for (const model::Return& r : f_.func.returns) returnTypes.push_back(api::cpp::returnType(r, options_).cppType());
  std::string rt = support::join(returnTypes, ", ");
  if (f_.func.returns.size() > 1) rt = "std::tuple<" + rt + ">";
  std::vector<std::string> argNames;
  for (const Binding& b : api::cpp::arguments(f_.func.arguments, {.faithful = true, .symint = true, .method = false}, {}, options_))
    argNames.push_back(b.name);
  std::string result;
  if (!modifiesArguments(f_) && !returnsVoid_) {
    if (tryJitDecomposition_) {
      result = fill(kDispatchToNonVarTypeWithTmpReturnValuesJvpDecomp, TemplateEnv()
                                                                         .set("base_type_call", baseTypeCall)
                                                                         .set("tmp_var", "_tmp")
                                                                         .set("guard", guard)
                                                                         .set("any_has_forward_grad", anyHasForwardGrad)
                                                                         .set("op_name", api::cpp::name(f_.func))
                                                                         .set("op_overload", f_.func.name.overloadName)
                                                                         .set("return_types", rt)
                                                                         .set("arg_names", argNames));
    } else {
      result = fill(kDispatchToNonVarTypeWithTmpReturnValues,
                    TemplateEnv().set("base_type_call", baseTypeCall).set("tmp_var", "_tmp").set("guard", guard));
    }
    const bool tensorReturn =
        std::any_of(f_.func.returns.begin(), f_.func.returns.end(), [](const model::Return& r) { return r.type.isTensorLike(); });
    result += fill(kAssignReturnValue, TemplateEnv()
                                           .set("return_values", tieReturnValues(f_))
                                           .set("rhs_value", tensorReturn ? std::string("std::move(_tmp)") : std::string("_tmp")));
  } else {
    result = fill(kDispatchToNonVarTypeWithoutReturnValues, TemplateEnv().set("base_type_call", baseTypeCall).set("guard", guard));
  }
  return checkTensorImplAndStorage(result, unpacked);
}

std::string BodyEmitter::history() const {
  const std::string fn = modifiesArguments(f_) && viewInfo(f_) == nullptr ? "rebase" : "set";
  std::vector<std::string> names;
  for (const DiffOutput& o : differentiableOutputs_) names.push_back(o.name);
  const std::string outs = "flatten_tensor_args( " + (isInplaceForeach_ ? std::string("self") : support::join(names, ", ")) + " )";
  if (!isInplaceForeach_) {
    if (fn == "rebase") return support::fillSnippet(kRebaseHistory, {{"differentiable_outputs", outs}});
    return fill(kSetHistory, TemplateEnv().set("fn", fn).set("differentiable_outputs", outs));
  }
  std::string decl, capture;
  if (fn == "rebase") {
    decl = "c10::SmallVector<c10::intrusive_ptr<Node>, 8> _rebased_fns(grad_fns.size());\n";
    capture = "_rebased_fns[i] = ";
  }
  return decl + fill(kLoopOverVectorOfGradFns,
                     TemplateEnv()
                         .set("preamble", "auto differentiable_outputs = " + outs +
                                              ";\nTORCH_INTERNAL_ASSERT(differentiable_outputs.size() == grad_fns.size());")
                         .set("statements", capture + fn + "_history(differentiable_outputs[i], grad_fns[i]);"));
}

std::variant<std::string, Failure> BodyEmitter::saveOutputs() const {
  if (isOutFn_ || info_ == nullptr || !info_->hasDerivatives()) return std::string();
  auto saved = saveVariables(info_->allSavedOutputs, true, false);
  if (auto* failure = std::get_if<Failure>(&saved)) return *failure;
  const auto& stmts = std::get<0>(saved);
  if (stmts.empty()) return std::string();
  if (!isInplaceForeach_) return fill(kConditional, TemplateEnv().set("cond", "grad_fn").set("statements", stmts));
  return fill(kLoopOverVectorOfGradFns, TemplateEnv().set("preamble", "").set("statements", stmts));
}

std::variant<std::vector<std::string>, Failure> BodyEmitter::emit() {
  bool missing = false;
  info_ = infoFor(fn_, key_, missing);
  if (missing) return Failure{"the function's derivatives have no formulas for " + key_};
  for (const auto& [k, fws] : fn_.fwDerivatives)
    if (k == key_) fw_ = fws;
  name_ = api::cpp::name(f_.func);
  inplace_ = f_.func.kind() == SchemaKind::Inplace;
  isOutFn_ = f_.func.kind() == SchemaKind::Out;
  returnsVoid_ = f_.func.returns.empty();
  baseName_ = f_.func.name.name.base;
  isForeach_ = name_.starts_with("_foreach");
  isInplaceForeach_ = isForeach_ && inplace_;
  const std::vector<const model::Argument*> flat = f_.func.arguments.flatNonOut();
  std::vector<const model::Argument*> arguments = flat;
  if (isInplaceForeach_) {
    const std::pair<std::string, std::string> id{baseName_, f_.func.name.overloadName};
    static const std::set<std::pair<std::string, std::string>> kWithoutInfo = {
        {"_foreach_addcdiv", "Tensor"}, {"_foreach_addcmul", "Tensor"},       {"_foreach_copy", ""},
        {"_foreach_maximum", "Scalar"}, {"_foreach_maximum", "ScalarList"}, {"_foreach_minimum", "Scalar"},
        {"_foreach_minimum", "ScalarList"}};
    static const std::set<std::pair<std::string, std::string>> kDifferentArity = {
        {"_foreach_add", "Scalar"}, {"_foreach_add", "ScalarList"}, {"_foreach_sub", "Scalar"}, {"_foreach_sub", "ScalarList"}};
    if (info_ == nullptr) {
      if (!kWithoutInfo.count(id)) return Failure{id.first + "." + id.second + " should have a differentiability info"};
    } else {
      const std::vector<const model::Argument*> refs = info_->func->func.arguments.flatNonOut();
      if (flat.size() != refs.size() && !kDifferentArity.count(id))
        return Failure{id.first + "." + id.second + " has " + std::to_string(flat.size()) + " args but the reference has " +
                       std::to_string(refs.size())};
      for (std::size_t i = 0; i < std::min(flat.size(), refs.size()); ++i) {
        const model::Type& t = flat[i]->type.isList() ? flat[i]->type.elem() : flat[i]->type;
        if (!(t == refs[i]->type)) return Failure{"foreach_arg_type (" + t.str() + ") != ref_arg.type (" + refs[i]->type.str() + ")"};
        foreachToRef_.emplace_back(flat[i], refs[i]);
        refToForeach_[refs[i]->name] = flat[i];
        arguments[i] = refs[i];
      }
    }
  }
  for (const model::Argument* a : arguments)
    if (std::optional<DiffInput> in = differentiableInput(*a)) differentiableInputs_.push_back(std::move(*in));
  if (info_ == nullptr || !info_->hasDerivatives()) {
    argsWithDerivatives_ = differentiableInputs_;
  } else {
    std::set<std::string> names;
    for (const auto& d : info_->derivatives) names.insert(d.varNames.begin(), d.varNames.end());
    for (const DiffInput& in : differentiableInputs_)
      if (names.count(in.name)) argsWithDerivatives_.push_back(in);
    if (argsWithDerivatives_.size() != names.size()) return Failure{"Missing arguments for derivatives in " + info_->name};
  }
  auto outs = differentiableOutputs(fn_, key_, options_);
  if (auto* failure = std::get_if<Failure>(&outs)) return *failure;
  differentiableOutputs_ = std::get<0>(outs);
  const bool undifferentiable = kDontRequireDerivative.count(baseName_) || kDontRequireDerivative.count(name_);
  requiresDerivative_ = !undifferentiable && !differentiableInputs_.empty() && (!differentiableOutputs_.empty() || isInplaceForeach_);
  if (info_ != nullptr && info_->hasDerivatives() && !requiresDerivative_ && !f_.func.returns.empty())
    return Failure{"ERROR: derivative ignored for " + name_ + " -- specified an autograd function without derivative"};
  if (requiresDerivative_ && !fw_.empty() && !isInplaceForeach_) {
    std::size_t n = 0;
    for (const ForwardDerivative& d : fw_) n += d.varNames.size();
    if (n != differentiableOutputs_.size())
      return Failure{"Expected the number of forward derivatives implemented (" + std::to_string(n) +
                     ") to match the number of differentiable outputs (" + std::to_string(differentiableOutputs_.size()) + ")."};
  }
  tryJitDecomposition_ = requiresDerivative_ && fw_.empty() && !modifiesArguments(f_) && !returnsVoid_;

  std::vector<std::string> body;
  // unpack_args
  std::vector<Binding> unpacked;
  const std::vector<const model::Argument*> all = f_.func.schemaOrderArguments();
  for (std::size_t i = 0; i < all.size(); ++i) {
    Binding b = api::cpp::argument(*all[i], /*symint=*/true, {}, /*hasTensorOptions=*/false, options_);
    const model::Type& t = all[i]->type;
    if (!t.isTensorLike() || t.isNullable()) {
      unpacked.push_back(std::move(b));
      continue;
    }
    const bool list = isTensorListType(t);
    body.push_back("auto" + std::string(list ? "" : "&") + " " + b.name + "_ = unpack(" + b.name + ", \"" + b.name + "\", " +
                   std::to_string(i) + ");");
    unpacked.push_back(b.withName(b.name + "_"));
  }
  const auto append = [&](auto&& part) -> std::optional<Failure> {
    if (auto* failure = std::get_if<Failure>(&part)) return *failure;
    using T = std::decay_t<decltype(std::get<0>(part))>;
    if constexpr (std::is_same_v<T, std::string>) body.push_back(std::get<0>(part));
    else body.insert(body.end(), std::get<0>(part).begin(), std::get<0>(part).end());
    return std::nullopt;
  };
  if (requiresDerivative_) {
    std::vector<std::string> names;
    for (const DiffInput& a : argsWithDerivatives_) names.push_back(a.name);
    if (isInplaceForeach_ && info_ != nullptr)
      for (std::string& n : names)
        for (const auto& [foreachArg, refArg] : foreachToRef_)
          if (n == refArg->name) n = foreachArg->name;
    std::string extra;
    if (info_ != nullptr && info_->outputDifferentiabilityConditions)
      extra = "_any_requires_grad &= (" + info_->outputDifferentiabilityConditions->front() + ");";
    body.push_back(fill(kSetupAnyRequiresGrad,
                        TemplateEnv().set("args_with_derivatives", names).set("extra_differentiability_conditions", extra)));
    if (auto failure = append(anyHasForwardGrad())) return *failure;
    if (inplace_)
      for (const DiffOutput& o : differentiableOutputs_) body.push_back("check_inplace(" + o.name + ", _any_requires_grad);");
    if (inplace_) {
      body.push_back(isInplaceForeach_ ? "std::vector<::std::optional<at::Tensor>> original_selfs(self.size());"
                                       : "::std::optional<at::Tensor> original_self;");
      std::vector<std::string> conds;
      for (const ForwardDerivative& d : fw_)
        if (d.requiredOriginalSelfValue) conds.push_back(anyHasForwardGradName(d.varNames));
      if (!conds.empty()) {
        if (!isInplaceForeach_) {
          body.push_back("if (" + support::join(conds, " || ") + ") {");
          body.push_back("  original_self = self.clone();");
          body.push_back("}");
        } else {
          for (std::string& c : conds) c += "[i]";
          body.push_back("for (const auto& i : c10::irange(self.size())) {");
          body.push_back("  if (" + support::join(conds, " || ") + ") {");
          body.push_back("    original_selfs[i] = self[i].clone();");
          body.push_back("  }");
          body.push_back("}");
        }
      }
    }
    if (auto failure = append(setupDerivative())) return *failure;
  }
  if (auto failure = append(call(unpacked))) return *failure;
  if (requiresDerivative_) {
    body.push_back(history());
    if (!kGradientImplementedForComplex.count(baseName_))
      for (const DiffOutput& o : differentiableOutputs_)
        if (o.cppType == "at::Tensor" || contains(kTensorListLikeCTypes, o.cppType))
          body.push_back("throw_error_for_complex_autograd(" + o.name + ", \"" + baseName_ + "\");");
  }
  const auto forbid = [&](bool outFn) -> std::variant<std::string, Failure> {
    const std::string msg = outFn ? "because it is an out= function"
                                  : "because it has not been implemented yet.\\nPlease file an issue to PyTorch at "
                                    "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
                                    "we can prioritize its implementation.";
    auto cond = anyHasFwGradCond(nullptr);
    if (auto* failure = std::get_if<Failure>(&cond)) return *failure;
    return support::fillSnippet(kFwDerivativeForbidTemplate, {{"cond", std::get<std::string>(cond)}, {"name", name_}, {"msg", msg}});
  };
  if (isOutFn_) {
    if (auto failure = append(forbid(true))) return *failure;
  } else if (requiresDerivative_ && !tryJitDecomposition_) {
    if (!fw_.empty()) {
      if (auto failure = append(fwDerivatives())) return *failure;
    } else if (auto failure = append(forbid(false))) {
      return *failure;
    }
  }
  if (requiresDerivative_) {
    if (auto failure = append(saveOutputs())) return *failure;
    const bool rebase = modifiesArguments(f_) && viewInfo(f_) == nullptr;
    if (!isInplaceForeach_) {
      body.push_back(support::fillSnippet(kFireNodeCreationHooks, {{"node", rebase ? "_rebased_fn" : "grad_fn"}}));
    } else {
      const std::string node = rebase ? "_rebased_fns[i]" : "grad_fns[i]";
      body.push_back("for (const auto& i : c10::irange(grad_fns.size())) {\n    if (" + node +
                     ") {\n        fire_node_creation_hooks(" + node + ");\n    }\n}\n");
    }
  }
  if (kResetGradAccumulator.count(f_.func.name.name.str())) {
    if (!inplace_) return Failure{"expected inplace=True for " + f_.func.name.name.str() + " which is in RESET_GRAD_ACCUMULATOR"};
    body.push_back("reset_grad_accumulator(self);");
  }
  if (!returnsVoid_) body.push_back("return " + returnValue(f_) + ";");
  return body;
}

// torchgen's gen_variable_type_func: one function's kernels and registrations, per dispatch key.
std::variant<ShardEnv, Failure> variableTypeEnv(const FunctionWithInfo& fn) {
  const NativeFunction& f = *fn.func;
  const api::Options options = api::Options::of(f);
  const std::string name = api::cpp::name(f.func);
  const std::string wrapper = typeWrapperName(f);
  ShardEnv env;
  auto outputs = differentiableOutputs(fn, "Default", options);
  if (fn.info.empty() && !kResetGradAccumulator.count(f.func.name.name.str()) && !kDontRequireDerivative.count(f.func.name.name.base)) {
    if (auto* failure = std::get_if<Failure>(&outputs)) return *failure;
  }
  const bool notImplemented = fn.info.empty() && !kResetGradAccumulator.count(f.func.name.name.str()) &&
                              !kDontRequireDerivative.count(f.func.name.name.base) &&
                              !std::get<0>(outputs).empty() && !kDontEnforceSameTensorImplOrStorage.count(name) &&
                              !kDontEnforceStorageImplUseCount.count(wrapper) && !kDontEnforceTensorImplUseCount.count(wrapper);
  if (notImplemented) {
    env.push_back({"type_derived_method_definitions_Default", {""}});
    env.push_back({"wrapper_registrations_Default",
                   {support::fillSnippet(kAutogradNotImplementedRegistration, {{"unqual_operator_name_with_overload", f.func.name.str()}})}});
  } else {
    std::vector<std::string> keys;
    if (fn.info.empty()) keys = {"Default"};
    for (const auto& [key, info] : fn.info) keys.push_back(key);
    for (const std::string& key : keys) {
      auto body = BodyEmitter(fn, key).emit();
      if (auto* failure = std::get_if<Failure>(&body)) return *failure;
      env.push_back({"type_derived_method_definitions_" + key,
                     {fill(kMethodDefinition, TemplateEnv()
                                                  .set("return_type", api::cpp::returnsType(f.func.returns, options).cppType())
                                                  .set("type_wrapper_name", typeWrapperName(f, key))
                                                  .set("type_definition_body", std::get<0>(body))
                                                  .set("formals", formals(f, options)))}});
      env.push_back({"wrapper_registrations_" + key,
                     {support::fillSnippet(kWrapperRegistration, {{"unqual_operator_name_with_overload", f.func.name.str()},
                                                                  {"type_wrapper_name", typeWrapperName(f, key)},
                                                                  {"class_type", "VariableType"}})}});
    }
  }
  static const std::set<std::string> kManualBackend = {"options", "data", "set_data", "is_leaf", "output_nr", "_version",
                                                       "retain_grad", "_backward", "requires_grad_"};
  if (static_cast<bool>(kManualBackend.count(name)) != f.manualKernelRegistration)
    return Failure{"(name in MANUAL_BACKEND) != f.manual_kernel_registration"};
  const bool hasDerivatives =
      std::any_of(fn.info.begin(), fn.info.end(), [](const auto& kv) { return kv.second->hasDerivatives(); });
  if ((isManualAutogradOrTracer(name) && !kManualBackend.count(name)) || hasDerivatives)
    if (!f.isAbstract)
      return Failure{"There's a formula for " + name + "(or its functional variant) in derivatives.yaml. It's required to "
                     "add a dispatch section for it with explicit supported backends e.g CPU/CUDA or "
                     "CompositeExplicitAutograd in native_functions.yaml."};
  return env;
}

}  // namespace

std::optional<std::string> emitVariableTypeTemplate(const std::set<std::string>& usedKeys, Writer& templatesOut) {
  std::vector<std::string> definitions, registrations;
  for (const std::string& key : usedKeys) {  // (sorted)
    definitions.push_back("${type_derived_method_definitions_" + key + "}");
    registrations.push_back("TORCH_LIBRARY_IMPL(aten, " + (key == "Default" ? std::string("Autograd") : key) +
                            ", m) {\n${wrapper_registrations_" + key + "}\n}");
  }
  TemplateEnv env;
  env.set("type_derived_method_definitions", support::join(definitions, "\n\n"))
      .set("wrapper_registrations", support::join(registrations, "\n\n"))
      .set("generated_comment", "@generated by torchgen/packaged/autograd/gen_autograd.py from VariableType.cpp");
  std::optional<std::string> text = templatesOut.renderTemplate("VariableType.cpp", std::move(env));
  if (text) templatesOut.writeText("VariableType.cpp", [&] { return *text; });
  return text;
}

bool emitVariableTypeKernels(const std::vector<FunctionWithInfo>& functions, const std::set<std::string>& usedKeys,
                             const std::string& commentDir, const std::string& derivativesPath, Writer& out,
                             support::Diagnostics& diags) {
  std::vector<const FunctionWithInfo*> derived;
  for (const FunctionWithInfo& fn : functions)
    if (useDerived(fn)) derived.push_back(&fn);
  // The kernels are made on two threads (each half of the functions); the first failure in the
  // functions' order is the one reported, as torchgen reports it.
  std::vector<ShardEnv> envs(derived.size());
  std::vector<std::optional<Failure>> failures(derived.size());
  const auto make = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      auto env = variableTypeEnv(*derived[i]);
      if (auto* failure = std::get_if<Failure>(&env)) {
        failures[i] = *failure;
        return;
      }
      envs[i] = std::move(std::get<0>(env));
    }
  };
  std::thread half(make, 0, derived.size() / 2);
  make(derived.size() / 2, derived.size());
  half.join();
  for (std::size_t i = 0; i < derived.size(); ++i)
    if (failures[i]) {
      model::reportError(diags, *derived[i]->func, failures[i]->message);
      return false;
    }
  Sharded spec{.filename = "VariableType.cpp",
               .templateName = "VariableType.cpp",
               .numShards = 10,
               .baseEnv = {{"generated_comment", support::TemplateValue("@generated from " + commentDir + "/VariableType.cpp")}},
               .shardedKeys = {}};
  for (const std::string& key : usedKeys) {
    spec.shardedKeys.insert("type_derived_method_definitions_" + key);
    spec.shardedKeys.insert("wrapper_registrations_" + key);
  }
  for (std::size_t i = 0; i < envs.size(); ++i)
    for (const auto& [key, items] : envs[i])
      if (!spec.shardedKeys.count(key)) {
        const std::string dispatchKey = key.substr(key.rfind('_') + 1);
        diags.error(support::SourceLoc{derivativesPath, 1, 1},
                    "no entry of derivatives.yaml is for the key " + dispatchKey + " (one without dispatch:, or with " +
                        dispatchKey + ":), which the Autograd kernel of '" + derived[i]->func->func.name.str() +
                        "' needs (torchgen: undeclared sharded key " + key + ")");
        return false;
      }
  out.writeSharded(
      spec, derived.size(), [&](std::size_t i) { return api::cpp::name(derived[i]->func->func); },
      [&](std::size_t i) { return std::move(envs[i]); });
  return true;
}

}  // namespace opgen::dest::autograd
