#include "model/Autogen.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "model/Groups.h"
#include "support/Strings.h"

namespace opgen::model {

namespace {

// torchgen keeps these lists of existing ATen operators that its grouping rules cannot handle;
// they are part of the rules, so opgen keeps them too.
constexpr std::array<std::string_view, 2> kOutOpsThatDontGetGroupedProperly = {
    "adaptive_avg_pool3d_backward.grad_input", "_slow_conv2d_backward.grad_input"};
constexpr std::array<std::string_view, 2> kMutableOpsThatCannotGetAnOutVariant = {"_cummax_helper", "_cummin_helper"};
constexpr std::array<std::string_view, 38> kFunctionalOpsThatCannotGetAnOutVariant = {
    "_assert_async", "_assert_async.msg", "_assert_tensor_metadata", "_cslt_sparse_mm_search", "_assert_scalar",
    "_dimI", "_dimV", "_has_same_storage_numel", "_linalg_check_errors", "_local_scalar_dense",
    "_nested_tensor_from_mask_left_aligned", "_nnz", "_use_cudnn_ctc_loss", "_use_cudnn_ctc_loss.Tensor",
    "_use_miopen_ctc_loss", "_use_miopen_ctc_loss.Tensor", "_validate_compressed_sparse_indices", "allclose",
    "dense_dim", "equal", "is_coalesced", "is_pinned", "is_same_size", "is_set_to", "q_per_channel_axis",
    "q_scale", "q_zero_point", "qscheme", "record_stream", "sparse_dim", "sym_constrain_range",
    "sym_constrain_range_for_size", "_nested_tensor_storage_offsets", "_chunk_grad_outputs_efficient_attention",
    "_fused_sdp_choice", "_print", "_sink_tokens", "_nested_get_ragged_idx"};
constexpr std::array<std::string_view, 1> kInplaceOpsThatDontGetGroupedProperly = {"polygamma_"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::string outOverloadName(const std::string& overload) { return overload.empty() ? "out" : overload + "_out"; }

// Turns tensor-like returns into out= arguments (out, or out0, out1, ...).
Expected<std::pair<std::vector<Return>, std::vector<Argument>>> outArgsFromReturns(const FunctionSchema& func) {
  for (const auto& r : func.returns)
    if (r.isWrite()) return support::makeError("mutable schema kinds should not return mutable arguments");
  bool anyTensor = false, allTensors = true;
  for (const auto& r : func.returns) {
    anyTensor = anyTensor || r.type.isTensorLike();
    allTensors = allTensors && r.type == Type::base(BaseTy::Tensor);
  }
  if (!anyTensor) return support::makeError("expected at least one tensor-like return");
  std::string used;
  for (const Argument* a : func.arguments.flatAll())
    if (a->annotation)
      for (const auto& s : a->annotation->aliasSet) used += s;
  std::string valid;
  for (char c = 'a'; c <= 'z'; ++c)
    if (used.find(c) == std::string::npos) valid += c;
  std::vector<Return> returns;
  std::vector<Argument> outs;
  for (size_t i = 0; i < func.returns.size(); ++i) {
    const Return& r = func.returns[i];
    if (!r.type.isTensorLike()) {
      returns.push_back(r);
      continue;
    }
    if (i >= valid.size()) return support::makeError("ran out of alias annotation letters");
    Annotation ann{{std::string(1, valid[i])}, true, {}};
    outs.push_back(Argument{func.returns.size() == 1 ? "out" : "out" + std::to_string(i), r.type, std::nullopt, ann});
    if (allTensors) returns.push_back(Return{std::nullopt, r.type, ann});
  }
  return std::make_pair(std::move(returns), std::move(outs));
}

Expected<FunctionSchema> outSchemaFor(const FunctionSchema& func) {
  switch (func.kind()) {
    case SchemaKind::Inplace: {
      const Argument& self = *func.arguments.selfArg;
      return FunctionSchema{func.name.removeInplace().withOverload(outOverloadName(func.name.overloadName)),
                            func.arguments.withoutSelfAnnotation().withOutArgs(
                                {Argument{"out", self.type, std::nullopt, self.annotation}}),
                            func.returns};
    }
    case SchemaKind::Mutable:
    case SchemaKind::Functional: {
      auto converted = outArgsFromReturns(func);
      if (!converted) return converted.error();
      bool isMutable = func.kind() == SchemaKind::Mutable;
      OperatorName name = isMutable ? func.name.removeInplace().withOverload(outOverloadName(func.name.overloadName))
                                    : func.name.withOverload(outOverloadName(func.name.overloadName));
      Arguments args = isMutable ? func.arguments.withOutArgs(converted->second)
                                 : func.arguments.signature().withOutArgs(converted->second);
      return FunctionSchema{std::move(name), std::move(args), std::move(converted->first)};
    }
    default:
      return support::makeError("out= variants are generated only from inplace, mutable or functional variants");
  }
}

struct Generated {
  std::unique_ptr<NativeFunction> f;
  BackendMetadata kernel;
};

// A new NativeFunction of kind `k` (functional or out) made from `f`, its kernel in NS::native.
Expected<Generated> generateFunction(const NativeFunction& f, SchemaKind k, std::string_view kernelNamespace) {
  FunctionSchema func;
  if (k == SchemaKind::Functional) {
    FunctionSchema sig = f.func.signature(FunctionSchema::SignatureOptions{.keepReturnNames = true});
    func = sig.withName(OperatorName{BaseOperatorName{f.func.name.name.base, false, f.func.name.name.dunderMethod,
                                                      f.func.kind() == SchemaKind::Mutable, ""},
                                     f.func.name.overloadName});
  } else {
    auto out = outSchemaFor(f.func);
    if (!out) return out.error();
    func = out.take();
  }
  if (auto problem = func.validate()) return support::makeError("generated schema " + func.str() + " is invalid: " + *problem);

  std::string kernel = func.kind() == SchemaKind::Out ? func.name.unambiguousName() : cppName(func);
  if (f.func.hasSymInt()) kernel += "_symint";

  auto g = std::make_unique<NativeFunction>();
  g->ns = f.ns;
  g->explicitNamespace = f.explicitNamespace;
  g->useConstRefForMutableTensors = f.useConstRefForMutableTensors;
  g->variants = {Variant::Function};
  g->deviceGuard = false;
  g->deviceCheck = DeviceCheckType::NoCheck;
  g->loc = f.loc;
  g->isAbstract = f.isAbstract;
  g->hasCompositeExplicitAutogradKernel = true;
  g->tags.insert("generated");
  for (const char* t : {"nondeterministic_seeded", "view_copy", "pt2_compliant_tag"})
    if (f.tags.count(t)) g->tags.insert(t);
  if (func.isOutFn()) g->tags.insert("out");
  if (func.name.name.inplace) g->tags.insert("inplace");
  g->func = std::move(func);
  g->schemaString = g->func.str();
  g->signatureString = g->func.signature().str();
  const std::string ns = kernelNamespace.empty() ? g->ns : std::string(kernelNamespace);
  return Generated{std::move(g), BackendMetadata{kernel, false, ns + "::native", false}};
}

}  // namespace

bool BackendIndices::add(DispatchKey key, const OperatorName& op, BackendMetadata m) {
  auto it = std::find_if(indices_.begin(), indices_.end(), [&](const BackendIndex& i) { return i.dispatchKey() == key; });
  if (it == indices_.end()) {
    // In-tree backends: structured kernels are implemented by their out= variant, and only
    // CUDA- and XPU-like devices need device guards.
    indices_.emplace_back(key, true, isCudaDispatchKey(key) || isXpuDispatchKey(key), false);
    it = indices_.end() - 1;
  }
  return it->add(op, std::move(m));
}

bool addGeneratedNativeFunctions(std::vector<std::unique_ptr<const NativeFunction>>& functions,
                                 BackendIndices& indices, MissingOutVariant missingOut, std::string_view kernelNamespace,
                                 support::Diagnostics& diags) {
  std::vector<const NativeFunction*> all;
  for (const auto& f : functions) all.push_back(f.get());
  auto families = preGroupBySignature(all, diags);
  if (!families) return false;

  const int errorsBefore = diags.errorCount();
  auto error = [&](const NativeFunction& f, const std::string& message) {
    diags.errorAbout(autogenSourceLoc(f), f.func.name.str(), message);
  };
  for (auto& family : *families) {
    auto find = [&](SchemaKind k) -> const NativeFunction* {
      for (const auto& [kind, f] : family)
        if (kind == k) return f;
      return nullptr;
    };
    const NativeFunction* functional = find(SchemaKind::Functional);
    const NativeFunction* inplace = find(SchemaKind::Inplace);
    const NativeFunction* mutableFn = find(SchemaKind::Mutable);
    const NativeFunction* out = find(SchemaKind::Out);

    // A family of scratch variants alone has nothing to generate from.
    if (!functional && !inplace && !mutableFn && !out) continue;
    bool isCore = false, allManual = true, hasViewOps = false, allCompositeImplicit = true;
    for (const auto& [kind, f] : family) {
      isCore = isCore || f->tags.count("core");
      allManual = allManual && f->manualCppBinding;
      hasViewOps = hasViewOps || (f->isViewOp() && f->func.name.name.str() != "set_");
      allCompositeImplicit = allCompositeImplicit && f->hasCompositeImplicitAutogradKernel;
    }
    // Manual bindings bypass the dispatcher, views are not functionalized this way, and
    // non-core composite operators decompose anyway.
    if (allManual || hasViewOps || (allCompositeImplicit && !isCore)) continue;
    if (out && family.size() == 1) {
      if (!listed(kOutOpsThatDontGetGroupedProperly, out->func.name.str()))
        error(*out, "found an out= operator that we could not find any other variants of: " + out->func.str());
      continue;
    }
    if (inplace && listed(kInplaceOpsThatDontGetGroupedProperly, inplace->func.name.str())) continue;

    const NativeFunction* base = mutableFn ? mutableFn : inplace ? inplace : out ? out : functional;
    bool baseValid = base->func.kind() == SchemaKind::Inplace;
    for (const auto& r : base->func.returns) baseValid = baseValid || r.type.isTensorLike();
    bool needsOut = false;
    for (const auto& op : base->autogen) needsOut = needsOut || support::contains(op.str(), "out");
    bool getsOutVariant = !out && baseValid && needsOut;
    if (!out && !baseValid && missingOut != MissingOutVariant::Allowed &&
        !listed(kMutableOpsThatCannotGetAnOutVariant, base->func.name.str()) &&
        !listed(kFunctionalOpsThatCannotGetAnOutVariant, base->func.name.str())) {
      const std::string message = "found an operator that we could not generate an out= variant for: " + base->func.str() +
                                  "; operators without a tensor-like return cannot get a proper out= variant";
      if (missingOut == MissingOutVariant::Error) {
        error(*base, message);
        continue;
      }
      diags.warning(autogenSourceLoc(*base),
                    support::aboutOperator(base->func.name.str(), message + " (accepted in an older file that uses Dimname)"));
    }
    auto emit = [&](SchemaKind k) {
      auto g = generateFunction(*base, k, kernelNamespace);
      if (!g) {
        error(*base, g.error().message);
        return;
      }
      if (!indices.add(DispatchKey::CompositeExplicitAutograd, g->f->func.name, std::move(g->kernel)))
        error(*base, "duplicate operator " + g->f->func.name.str() + " for dispatch key CompositeExplicitAutograd");
      functions.push_back(std::move(g->f));
    };
    if (getsOutVariant) emit(SchemaKind::Out);
    if (!functional && (out || getsOutVariant)) emit(SchemaKind::Functional);
  }
  return diags.errorCount() == errorsBefore;
}

}  // namespace opgen::model
