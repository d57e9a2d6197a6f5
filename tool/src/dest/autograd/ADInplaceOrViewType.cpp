#include "dest/autograd/ADInplaceOrViewType.h"

#include <optional>
#include <set>

#include "api/Cpp.h"
#include "api/Functionalization.h"
#include "api/Signatures.h"
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
using api::autograd::FunctionWithInfo;
using model::NativeFunction;
using support::CodeTemplate;
using support::TemplateEnv;

// The fixed parts of the generated code (PyTorch's ADInplaceOrViewType_N.cpp). Those without a
// placeholder that starts a line (where torchgen's templates indent a block) are CodeText snippets
// (`$name$`): the same text, without an environment per snippet.
constexpr std::string_view kArrayrefToVec = R"cc(auto $vec$ = $arg$.vec();
)cc";
constexpr std::string_view kOptionalToVal = R"cc(auto $val$ = $arg$.value_or($default$);
)cc";
const CodeTemplate kCallDispatch(R"cc(at::_ops::${unambiguous_name}::call(${unpacked_args}))cc");
const CodeTemplate kReverseViewDispatch(R"cc(${reverse_name}(${unpacked_args}))cc");
const CodeTemplate kMultiOutputViewIteration(R"cc(for (auto ${view_idx} : c10::irange(${var}.size())) {
  ${body}
}
)cc");
const CodeTemplate kSetupReplayView(R"cc(std::unique_ptr<torch::autograd::ViewFunc> func(nullptr);
std::function<at::Tensor(const at::Tensor&)> rev_func=nullptr;
if (${is_view_with_metadata_change} ||
    !self.unsafeGetTensorImpl()->support_as_strided() ||
    self.unsafeGetTensorImpl()->is_python_dispatch() ||
    c10::AutogradState::get_tls_state().get_view_replay_enabled()) {
  ${replay_view_func}
  ${reverse_replay_view_func}
}
)cc");
constexpr std::string_view kReplayViewFunc = R"cc(func = std::make_unique<$view_func_name$>($view_func_args$);
)cc";
constexpr std::string_view kReverseReplayViewLambdaFunc = R"cc(rev_func = [=](const at::Tensor& $input_view$) {
  return $reverse_replay_view_call$;
};
)cc";
const CodeTemplate kMethodDefinition(R"cc(${return_type} ${type_wrapper_name}(${formals}) {
  ${type_definition_body}
}
)cc");
constexpr std::string_view kWrapperRegistration = R"cc(m.impl("$unqual_operator_name_with_overload$",
       TORCH_FN($class_type$::$type_wrapper_name$)
);
)cc";
constexpr std::string_view kInplaceRedispatch = R"cc({
  at::AutoDispatchBelowADInplaceOrView guard;
  at::_ops::$unambiguous_name$::redispatch($unpacked_args$);
}
)cc";
const CodeTemplate kAssignReturnValue(R"cc(${return_values} = ${rhs_value};
)cc");
const CodeTemplate kViewRedispatch(R"cc(${assign_return_values} ([&]() {
  at::AutoDispatchBelowADInplaceOrView guard;
  return at::_ops::${unambiguous_name}::redispatch(${unpacked_args});
})();
)cc");
const CodeTemplate kUnpackTensor(R"cc(auto${ref} ${arg_name}_ = unpack${suffix}(${arg_name}, "${arg_name}", ${arg_pos});)cc");

std::string fill(const CodeTemplate& t, const TemplateEnv& env) {
  support::Diagnostics unused;  // the fixed templates name only what every caller sets
  return t.substitute(env, unused).value_or("");
}

// A failure of torchgen's (it raises): the message, reported at the function's entry.
struct Failure {
  std::string message;
};

std::vector<Binding> extractBindings(const NativeFunction& f, const api::Options& options) {
  std::vector<Binding> out;
  for (const model::Argument* a : f.func.schemaOrderArguments())
    out.push_back(api::cpp::argument(*a, /*symint=*/true, {}, /*hasTensorOptions=*/false, options));
  return out;
}

bool isMetadataChangeView(const std::string& cppName) {
  static const std::set<std::string> kNames = {"view_as_complex", "view_as_real", "_conj", "_neg_view",
                                               "_nested_get_values", "_nested_view_from_buffer",
                                               "_nested_view_from_jagged"};
  return kNames.count(cppName) != 0;
}

// torchgen's emit_view_func: the replay and reverse functions of a view, for bases without as_strided.
std::variant<std::string, Failure> emitViewFunc(const NativeFunction& f, const std::vector<Binding>& bindings,
                                                const std::optional<std::string>& viewIdx) {
  const CType tensor = CType::base(api::tensorT);
  const std::vector<CType> known = {CType::base(api::longT),          CType::optional(CType::base(api::longT)),
                                    CType::base(api::SymIntT),        CType::optional(CType::base(api::SymIntT)),
                                    CType::base(api::boolT),          CType::base(api::intArrayRefT),
                                    CType::base(api::symIntArrayRefT), CType::constRef(tensor),
                                    CType::constRef(CType::optional(tensor))};
  std::string replay;
  std::vector<std::string> updatedArgs;
  for (const Binding& b : bindings) {
    const std::string& arg = b.name;
    const CType& type = b.nctype.type;
    if (arg == "self") {
      updatedArgs.push_back("input_base");
      continue;
    }
    if (std::find(known.begin(), known.end(), type) == known.end())
      return Failure{"You are adding an " + type.cppType() + " " + arg + " argument to op " + api::cpp::name(f.func) +
                     " in addition to known types. Please update the list or materialize it so that it can be "
                     "closed over by value"};
    if (type == CType::base(api::intArrayRefT) || type == CType::base(api::symIntArrayRefT)) {
      replay += support::fillSnippet(kArrayrefToVec, {{"arg", arg}, {"vec", arg + "_vec"}});
      updatedArgs.push_back(arg + "_vec");
    } else if (type == CType::optional(CType::base(api::longT))) {
      replay += support::fillSnippet(kOptionalToVal, {{"arg", arg}, {"val", arg + "_val"}, {"default", "0"}});
      updatedArgs.push_back(arg + "_val");
    } else {
      updatedArgs.push_back(arg);
    }
  }
  std::vector<std::string> viewFuncArgs;
  for (const Binding& b : bindings)
    if (b.name != "self") viewFuncArgs.push_back(b.name);
  if (viewIdx) viewFuncArgs.push_back(*viewIdx);
  replay += support::fillSnippet(kReplayViewFunc, {{"view_func_name", "torch::autograd::generated::" + viewFuncClassName(f)},
                                                   {"view_func_args", support::join(viewFuncArgs, ", ")}});
  std::vector<std::string> reverseArgs = {"self", "input_view", "at::functionalization::InverseReturnMode::AlwaysView"};
  if (viewIdx) reverseArgs.push_back(*viewIdx);
  reverseArgs.insert(reverseArgs.end(), updatedArgs.begin() + (updatedArgs.empty() ? 0 : 1), updatedArgs.end());
  const std::string reverseCall =
      fill(kReverseViewDispatch, TemplateEnv()
                                     .set("reverse_name", api::functionalization::reverseName(f, true))
                                     .set("unpacked_args", reverseArgs));
  const std::string reverse =
      support::fillSnippet(kReverseReplayViewLambdaFunc, {{"input_view", "input_view"}, {"reverse_replay_view_call", reverseCall}});
  return fill(kSetupReplayView, TemplateEnv()
                                    .set("is_view_with_metadata_change", isMetadataChangeView(api::cpp::name(f.func)) ? "true" : "false")
                                    .set("replay_view_func", replay)
                                    .set("reverse_replay_view_func", reverse));
}

// torchgen's gen_differentiable_outputs (key Default): the names and types of the differentiable outputs.
std::variant<std::vector<std::pair<std::string, const model::Type*>>, Failure> differentiableOutputs(const FunctionWithInfo& fn) {
  const NativeFunction& f = *fn.func;
  const DifferentiabilityInfo* info = nullptr;
  if (!fn.info.empty()) {
    for (const auto& [key, i] : fn.info)
      if (key == "Default") info = i;
    if (info == nullptr) return Failure{"the function's derivatives have no Default formulas (KeyError: 'Default')"};
  }
  const std::vector<std::string> names = api::cpp::returnNames(f);
  std::vector<std::pair<std::string, const model::Type*>> outputs;
  for (std::size_t i = 0; i < f.func.returns.size(); ++i) outputs.emplace_back(names[i], &f.func.returns[i].type);
  if (info != nullptr && info->outputDifferentiability) {
    const std::vector<bool>& d = *info->outputDifferentiability;
    if (d.size() != outputs.size())
      return Failure{"The length of output_differentiability (" + std::to_string(d.size()) +
                     "), does not match the number of outputs (" + std::to_string(outputs.size()) + ")."};
    if (std::find(d.begin(), d.end(), false) != d.end() && f.func.kind() == model::SchemaKind::Inplace)
      return Failure{"output_differentiability=False for inplace operation (version_counter won't get updated)"};
    std::vector<std::pair<std::string, const model::Type*>> out;
    for (std::size_t i = 0; i < d.size(); ++i)
      if (d[i]) out.push_back(outputs[i]);
    return out;
  }
  std::vector<std::pair<std::string, const model::Type*>> candidates;
  for (const auto& o : outputs)
    if (o.second->isTensorLike() &&
        (info == nullptr || std::find(info->nonDifferentiableArgNames.begin(), info->nonDifferentiableArgNames.end(),
                                      o.first) == info->nonDifferentiableArgNames.end()))
      candidates.push_back(o);
  const bool singleGrad = info != nullptr && std::any_of(info->derivatives.begin(), info->derivatives.end(), [](const auto& d) {
                            return api::autograd::pyIdentSearch(d.formula, "grad");
                          });
  if (singleGrad && candidates.size() > 1) candidates.resize(1);
  return candidates;
}

bool isTensorType(const model::Type& t) { return t.isTensorLike() && t.listLike() == nullptr; }
bool isTensorListType(const model::Type& t) { return t.isTensorLike() && t.listLike() != nullptr; }

std::string creationMetaInMode(const std::string& original) {
  return "InferenceMode::is_enabled() ? CreationMeta::INFERENCE_MODE : (at::GradMode::is_enabled() ? " + original +
         " : CreationMeta::NO_GRAD_MODE)";
}

// torchgen's emit_view_body: the statements after the redispatch, and the value returned.
std::variant<std::pair<std::string, std::string>, Failure> emitViewBody(const FunctionWithInfo& fn, const std::string& var,
                                                                        const api::Options& options) {
  const NativeFunction& f = *fn.func;
  const std::string& viewInfo = *dest::autograd::viewInfo(f);
  auto outputs = differentiableOutputs(fn);
  if (auto* failure = std::get_if<Failure>(&outputs)) return *failure;
  const auto& outs = std::get<0>(outputs);
  std::set<std::string> names;
  for (const auto& o : outs) names.insert(o.first);
  std::string call, rhs;
  if (names.empty()) {
    rhs = "as_view(" + viewInfo + ", " + var + ", /* is_bw_differentiable */ false, /* is_fw_differentiable */ false)";
  } else if (names.size() == 1) {
    const model::Type& type = *outs[0].second;
    if (!isTensorType(type) && !isTensorListType(type))
      return Failure{f.func.name.name.base + " that return differentiable views can only return Tensor or Tensor[]"};
    if (isTensorListType(type)) {
      const std::string creationMeta = creationMetaInMode("CreationMeta::MULTI_OUTPUT_NODE");
      auto viewFunc = emitViewFunc(f, extractBindings(f, options), std::string("view_idx"));
      if (auto* failure = std::get_if<Failure>(&viewFunc)) return *failure;
      const std::string asView = "as_view(/* base */ " + viewInfo + ", /* output */ " + var +
                                 "[view_idx], /* is_bw_differentiable */ true, /* is_fw_differentiable */ true, "
                                 "/* view_func */ std::move(func), /* rev_view_func */ rev_func, /* creation_meta */ " +
                                 creationMeta + ");";
      call += fill(kMultiOutputViewIteration,
                   TemplateEnv()
                       .set("var", var)
                       .set("view_idx", "view_idx")
                       .set("body", std::string(support::trim(std::get<std::string>(viewFunc))) + "\n" + asView));
      rhs = "std::move(" + var + ")";
    } else {
      auto viewFunc = emitViewFunc(f, extractBindings(f, options), std::nullopt);
      if (auto* failure = std::get_if<Failure>(&viewFunc)) return *failure;
      call += std::get<std::string>(viewFunc);
      rhs = "as_view(/* base */ " + viewInfo + ", /* output */ " + var +
            ", /* is_bw_differentiable */ true, /* is_fw_differentiable */ true, /* view_func */ std::move(func), "
            "/* rev_view_func */ rev_func, /* creation_meta */ " + creationMetaInMode("CreationMeta::DEFAULT") + ")";
    }
  } else {
    return Failure{"Function that return multiple differentiable output when at least one of them is view is not supported."};
  }
  return std::make_pair(call, rhs);
}

bool modifiesArguments(const NativeFunction& f) {
  return f.func.kind() == model::SchemaKind::Inplace || f.func.kind() == model::SchemaKind::Out;
}

struct Kernel {
  std::string definition, registration;
};

// The kernel of one function, none for a function that needs none; a Failure for what torchgen refuses.
std::variant<std::optional<Kernel>, Failure> kernel(const FunctionWithInfo& fn) {
  const NativeFunction& f = *fn.func;
  if (dest::autograd::viewInfo(f) == nullptr && (!modifiesArguments(f) || f.func.returns.empty()))
    return std::optional<Kernel>();
  const api::Options options = api::Options::of(f);
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, options);
  std::vector<std::string> args = {"ks & c10::after_ADInplaceOrView_keyset"};
  for (const api::Expr& e : sig.exprs()) args.push_back(e.expr);
  const std::string redispatchArgs = support::join(args, ", ");
  std::vector<std::string> body;
  if (modifiesArguments(f)) {
    body.push_back(support::fillSnippet(
        kInplaceRedispatch, {{"unambiguous_name", f.func.name.unambiguousName()}, {"unpacked_args", redispatchArgs}}));
    for (const std::string& r : api::cpp::returnNames(f)) body.push_back("increment_version(" + r + ");");
  } else {
    body.push_back(fill(kViewRedispatch, TemplateEnv()
                                             .set("assign_return_values", "auto _tmp = ")
                                             .set("unambiguous_name", f.func.name.unambiguousName())
                                             .set("unpacked_args", redispatchArgs)));
    auto view = emitViewBody(fn, "_tmp", options);
    if (auto* failure = std::get_if<Failure>(&view)) return *failure;
    const auto& [call, rhs] = std::get<0>(view);
    body.push_back(call);
    body.push_back(fill(kAssignReturnValue, TemplateEnv().set("return_values", tieReturnValues(f)).set("rhs_value", rhs)));
  }
  if (!f.func.returns.empty()) body.push_back("return " + returnValue(f) + ";");
  std::vector<std::string> formals = {"c10::DispatchKeySet ks"};
  for (const model::Argument* a : f.func.schemaOrderArguments())
    formals.push_back(api::cpp::argumentType(*a, "__placeholder__", options, /*symint=*/true).cppType() + " " + a->name);
  Kernel k;
  k.definition = fill(kMethodDefinition, TemplateEnv()
                                             .set("return_type", api::cpp::returnsType(f.func.returns, options).cppType())
                                             .set("type_wrapper_name", typeWrapperName(f))
                                             .set("formals", support::join(formals, ", "))
                                             .set("type_definition_body", body));
  k.registration = support::fillSnippet(kWrapperRegistration, {{"unqual_operator_name_with_overload", f.func.name.str()},
                                                               {"type_wrapper_name", typeWrapperName(f)},
                                                               {"class_type", "ADInplaceOrView"}});
  return std::optional<Kernel>(std::move(k));
}

}  // namespace

bool emitADInplaceOrViewType(const std::vector<FunctionWithInfo>& functions, const std::string& commentDir, Writer& out,
                             support::Diagnostics& diags) {
  std::vector<const FunctionWithInfo*> derived;
  std::vector<ShardEnv> envs;
  for (const FunctionWithInfo& fn : functions) {
    if (!useDerived(fn)) continue;
    auto k = kernel(fn);
    if (auto* failure = std::get_if<Failure>(&k)) {
      model::reportError(diags, *fn.func, failure->message);
      return false;
    }
    derived.push_back(&fn);
    const std::optional<Kernel>& kk = std::get<0>(k);
    ShardEnv env{{"ops_headers", {}}, {"inplace_or_view_method_definitions", {}}, {"inplace_or_view_wrapper_registrations", {}}};
    if (kk) env = {{"ops_headers", {"#include <ATen/ops/" + fn.func->rootName() + "_ops.h>"}},
                   {"inplace_or_view_method_definitions", {kk->definition}},
                   {"inplace_or_view_wrapper_registrations", {kk->registration}}};
    envs.push_back(std::move(env));
  }
  Sharded spec{.filename = "ADInplaceOrViewType.cpp",
               .templateName = "ADInplaceOrViewType.cpp",
               .numShards = 2,
               .baseEnv = {{"generated_comment",
                            support::TemplateValue("@generated from " + commentDir + "/ADInplaceOrViewType.cpp")}},
               .shardedKeys = {"ops_headers", "inplace_or_view_method_definitions", "inplace_or_view_wrapper_registrations"}};
  out.writeSharded(
      spec, derived.size(), [&](std::size_t i) { return derived[i]->func->rootName(); },
      [&](std::size_t i) { return std::move(envs[i]); });
  return true;
}

}  // namespace opgen::dest::autograd
