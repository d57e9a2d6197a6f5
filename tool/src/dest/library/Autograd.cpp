#include "dest/library/Autograd.h"

#include <algorithm>
#include <functional>
#include <tuple>

#include "api/Autograd.h"
#include "api/DifferentiabilityInfo.h"
#include "api/Signatures.h"
#include "dest/library/Library.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

constexpr std::string_view kFile = "RegisterAutograd.cpp";

// Legend: $node$ the class, $releases$ reset_data() of its saved tensors, $members$ its saved values.
constexpr std::string_view kNodeClass = R"cc(
struct $node$ : public torch::autograd::TraceableFunction {
  torch::autograd::variable_list apply(torch::autograd::variable_list&& grads) override;
  std::string name() const override { return "$node$"; }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    $releases$
  }
  $members$
};
)cc";

// Legend: $node$, $unpacks$ the saved values as the formulas name them, $grads$ grad / grad_NAME,
// $any_grad_defined$ whether a gradient is defined (when a formula needs it), $ranges$ where each
// input's gradients go (with tensor lists only), $count$ how many gradients, $formulas$ one kFormula or
// kMultiFormula each.
constexpr std::string_view kApply = R"cc(
torch::autograd::variable_list $node$::apply(torch::autograd::variable_list&& grads) {
  std::lock_guard<std::mutex> lock(mutex_);
  $unpacks$
  $grads$
  $any_grad_defined$
  $ranges$
  torch::autograd::variable_list grad_inputs($count$);
  $formulas$
  return grad_inputs;
}
)cc";

// The gradient of one input ($store$ puts $formula$ in its place), or of several ($copies$ put the
// tuple elements of $formula$'s result in theirs).
//   $mask$ the std::array<bool, N> of which of them need one (grad_input_mask), $any$ whether one does
constexpr std::string_view kFormula = R"cc(if ($any$) {
    $mask$
    $store$
  })cc";
constexpr std::string_view kMultiFormula = R"cc(if ($any$) {
    $mask$
    auto grad_result = $formula$;
    $copies$
  })cc";
constexpr std::string_view kMultiCopy = "if ($needed$) $store$";
constexpr std::string_view kMask = "const std::array<bool, $n$> grad_input_mask = {$flags$};";
// Where the gradients of an input go when the node has tensor lists: $name$, from $from$ (where the
// previous input's end) to $end$ (a list's size is known when the node is recorded).
constexpr std::string_view kRange = "const torch::autograd::IndexRange $name$_ix{$from$, $end$};";

// Legend: $head$ the kernel's head (dispatcher signature after a DispatchKeySet), $diff$ the
// differentiable inputs, $no_grad$ the checks of tensor arguments without gradient, $check$ the
// in-place check, $has_tangent$ whether each forward formula has a tangent to compute, $original$
// self's value before an in-place call, $node$, $node_pointer$, $new_node$, $saves$ the inputs saved,
// $guard$ the guard below autograd, $redispatch$ the operator's redispatch, $args$ its arguments,
// $outputs$ the returns bound to their names, $history$ set/rebase history, $forward$ the forward-mode
// tangents, $save_outputs$, $return$.
constexpr std::string_view kKernel = R"cc(
$head$ {
  const bool _any_requires_grad = torch::autograd::compute_requires_grad($diff$);
  $no_grad$
  $check$
  $has_tangent$
  $original$
  $node_pointer$<$node$> _grad_fn;
  if (_any_requires_grad) {
    _grad_fn = $new_node$;
    _grad_fn->set_next_edges(torch::autograd::collect_next_edges($diff$));
    $saves$
  }
  auto _result = ([&]() {
    $guard$ guard;
    return $redispatch$(dispatchKeySet & c10::after_autograd_keyset$args$);
  })();
  $outputs$
  if (_grad_fn) {
    $history$
  }
  $forward$
  $save_outputs$
  return $return$;
}
)cc";

// Legend: $cond$ the formula's _any_has_tangent variable, $tangents$ / $primals$ the formula's NAME_t /
// NAME_p, $formula$, $set$ the outputs' tangents from `_tangent`.
constexpr std::string_view kForward = R"cc(if ($cond$) {
    $tangents$
    $primals$
    auto _tangent = $formula$;
    $set$
  })cc";
// Without forward formula, forward mode fails rather than give outputs without tangent (torchgen's
// rule; $cond$ whether an input has a tangent, $name$ the operator's C++ name).
constexpr std::string_view kNoForward = R"cc(TORCH_CHECK_NOT_IMPLEMENTED(!($cond$), "Trying to use forward AD with $name$ that does not support it because it has not been implemented yet: its derivatives.yaml entry has no forward formula");)cc";
constexpr std::string_view kSetTangent = "opgen_set_tangent($output$, $tangent$, /*is_inplace_op=*/$inplace$);";
constexpr std::string_view kSaveOutputs = R"cc(if (_grad_fn) {
    $saves$
  })cc";

// The Autograd kernel of an out= overload of an operator with formulas (torchgen's): out= functions
// are not differentiable, so it refuses inputs and outputs that require grad and forward-mode tangents.
// Legend: $head$, $inputs$ its differentiable inputs, $outs$ its differentiable outputs, $base$ the
// operator's base name, $name$ the overload's C++ name, $redispatch$, $args$, $fw_cond$ whether an
// input has a tangent, $return$.
constexpr std::string_view kOutKernel = R"cc(
$head$ {
  if (torch::autograd::compute_requires_grad($inputs$)) {
    torch::autograd::throw_error_out_requires_grad("$base$");
  }
  if (torch::autograd::compute_requires_grad($outs$)) {
    torch::autograd::throw_error_out_requires_grad("$base$");
  }
  {
    at::AutoDispatchBelowAutograd guard;
    $redispatch$(dispatchKeySet & c10::after_autograd_keyset$args$);
  }
  TORCH_CHECK_NOT_IMPLEMENTED(!($fw_cond$), "Trying to use forward AD with $name$ that does not support it because it is an out= function");
  $return$
}
)cc";

// The ADInplaceOrView kernel of an in-place or out= operator: $mutated$ bumps of its mutated arguments.
constexpr std::string_view kInplaceOrView = R"cc(
$head$ {
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    $redispatch$(dispatchKeySet & c10::after_ADInplaceOrView_keyset$args$);
  }
  $mutated$
  $return$
}
)cc";

// The ADInplaceOrView kernel of a view operator: its output becomes a view of $base$ for autograd.
// $captures$ copy what the replay needs (opgen_as_view replays the operator on another base when
// as_strided cannot), $replay_args$ its arguments after the base.
constexpr std::string_view kViewKernel = R"cc(
$head$ {
  auto _tmp = ([&]() {
    at::AutoDispatchBelowADInplaceOrView guard;
    return $redispatch$(dispatchKeySet & c10::after_ADInplaceOrView_keyset$args$);
  })();
  $captures$
  return opgen_as_view($base$, _tmp, [=](const at::Tensor& _base) { return $call$(_base$replay_args$); });
}
)cc";

// opgen_as_view (torchgen's as_view call), per libtorch: one whose as_view takes the replay as a
// ViewFunc (LibtorchFacts::viewFuncs), or as a std::function ($reverse$: the reverse replay as_view
// takes before the creation meta, where it takes one).
constexpr std::string_view kViewHelpersViewFunc = R"cc(
// A view operator's replay on another base, for as_view (when as_strided cannot recreate the view).
struct OpgenViewFunc : public torch::autograd::ViewFunc {
  explicit OpgenViewFunc(std::function<at::Tensor(const at::Tensor&)> replay) : replay_(std::move(replay)) {}
  at::Tensor operator()(const at::Tensor& base) const override { return replay_(base); }
  std::unique_ptr<torch::autograd::ViewFunc> clone_and_set(
      std::optional<std::vector<c10::SymInt>> = std::nullopt,
      std::optional<std::vector<at::Tensor>> = std::nullopt) const override {
    return std::make_unique<OpgenViewFunc>(replay_);
  }
  std::function<at::Tensor(const at::Tensor&)> replay_;
};

// The output of a view operator as a view of its base for autograd (what torchgen's ADInplaceOrView
// kernels do).
[[maybe_unused]] at::Tensor opgen_as_view(const at::Tensor& base, const at::Tensor& output,
                                          std::function<at::Tensor(const at::Tensor&)> replay) {
  std::unique_ptr<torch::autograd::ViewFunc> func;
  if (!base.unsafeGetTensorImpl()->support_as_strided() || base.unsafeGetTensorImpl()->is_python_dispatch() ||
      c10::AutogradState::get_tls_state().get_view_replay_enabled())
    func = std::make_unique<OpgenViewFunc>(std::move(replay));
  const auto creation_meta = c10::InferenceMode::is_enabled() ? torch::autograd::CreationMeta::INFERENCE_MODE
                             : at::GradMode::is_enabled()    ? torch::autograd::CreationMeta::DEFAULT
                                                             : torch::autograd::CreationMeta::NO_GRAD_MODE;
  return torch::autograd::as_view(base, output, /*is_bw_differentiable=*/true, /*is_fw_differentiable=*/true,
                                  std::move(func), /*rev_view_func=*/nullptr, creation_meta);
}
)cc";
constexpr std::string_view kViewHelpersFunction = R"cc(
// The output of a view operator as a view of its base for autograd (what torchgen's ADInplaceOrView
// kernels do), with the replay of the operator when as_strided cannot recreate the view.
[[maybe_unused]] at::Tensor opgen_as_view(const at::Tensor& base, const at::Tensor& output,
                                          std::function<at::Tensor(const at::Tensor&)> replay) {
  std::function<at::Tensor(const at::Tensor&)> func = nullptr;
  if (!base.unsafeGetTensorImpl()->support_as_strided()) func = std::move(replay);
  const auto creation_meta = c10::InferenceMode::is_enabled() ? torch::autograd::CreationMeta::INFERENCE_MODE
                             : at::GradMode::is_enabled()    ? torch::autograd::CreationMeta::DEFAULT
                                                             : torch::autograd::CreationMeta::NO_GRAD_MODE;
  return torch::autograd::as_view(base, output, /*is_bw_differentiable=*/true, /*is_fw_differentiable=*/true,
                                  std::move(func), $reverse$creation_meta);
}
)cc";

constexpr std::string_view kRegistration = R"cc(m.impl("$name$", TORCH_FN($kernel$));)cc";
constexpr std::string_view kRegistrationBlock = R"cc(
TORCH_LIBRARY_IMPL($namespace$, $key$, m) {
  $registrations$
}
)cc";

bool contains(const std::vector<std::string>& xs, const std::string& x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

// The code without the lines that only held an empty placeholder (indentation and nothing else).
std::string withoutBlankPlaceholders(std::string_view code) {
  std::string out;
  for (std::string_view line : support::split(code, "\n")) {
    if (!line.empty() && line.find_first_not_of(' ') == std::string_view::npos) continue;
    out.append(line).append("\n");
  }
  out.pop_back();  // split gives one more piece than there are newlines
  return out;
}

std::string lines(const std::vector<std::string>& xs, std::string_view indent = "\n  ") { return support::join(xs, indent); }

// What the generated code of one entry needs, or an error. `f` is the entry's operator, or an
// in-place overload that reuses the entry (then `forward` holds its rewritten forward formulas).
struct Entry {
  const model::Derivative& d;
  const model::NativeFunction& f;
  api::DispatcherSignature sig;
  std::vector<api::SavedValue> savedInputs, savedOutputs;
  const std::vector<model::ForwardFormula>* forward = nullptr;
  bool reusesFunctional = false;  // an in-place overload with the functional operator's formulas

  bool inplace() const { return f.func.kind() == model::SchemaKind::Inplace; }

  bool isList(const std::string& input) const { return d.argument(input).type.isList(); }
  bool isOptional(const std::string& input) const { return d.argument(input).type.isOptional(); }
  bool hasLists() const {
    return std::any_of(d.differentiableInputs.begin(), d.differentiableInputs.end(), [&](const std::string& n) { return isList(n); });
  }
};

support::Expected<Entry> entryOf(const model::Derivative& d, const api::LibtorchFacts& libtorch, const model::InplaceVariant* variant = nullptr) {
  const model::NativeFunction& f = variant ? *variant->function : *d.function;
  Entry e{d, f, api::DispatcherSignature::fromSchema(f.func, api::Options::of(f, libtorch)), {}, {},
          variant ? &variant->forward : &d.forward, variant != nullptr};
  for (const model::Return& r : f.func.returns)
    if (!r.type.isBase(model::BaseTy::Tensor))
      return support::makeError("formulas for operators returning " + r.type.str() + " are not supported yet");
  for (const std::string& name : d.savedInputs) {
    support::Expected<api::SavedValue> v = api::savedArgument(d.argument(name), libtorch);
    if (!v) return v.error();
    e.savedInputs.push_back(*v);
  }
  for (const std::string& name : d.savedOutputs) e.savedOutputs.push_back(api::savedReturn(name, libtorch, e.inplace()));
  for (const model::NativeFunction* out : d.outVariants)
    for (const model::Argument& a : out->func.arguments.out)
      if (!a.type.isBase(model::BaseTy::Tensor))
        return support::makeError("its out= overload '" + out->func.name.str() + "' has an out argument of type " +
                                  a.type.str() + ", which out= Autograd kernels do not support yet");
  return e;
}

// How apply() addresses the gradients of one differentiable input: a position, or a range when the
// node has tensor lists (their sizes are known when the node is recorded).
struct GradSlot {
  std::string needed;                       // whether it needs a gradient
  std::function<std::string(const std::string&)> store;  // a statement storing a gradient expression
};

GradSlot slotOf(const Entry& e, std::size_t index) {
  const std::string& name = e.d.differentiableInputs[index];
  if (!e.hasLists()) {
    const std::string i = std::to_string(index);
    return {"should_compute_output(" + i + ")", [i](const std::string& g) { return "grad_inputs[" + i + "] = " + g + ";"; }};
  }
  return {"should_compute_output({" + name + "_ix})",
          [name](const std::string& g) { return "opgen_copy_range(grad_inputs, " + name + "_ix, " + g + ");"; }};
}

std::string maskLine(const std::vector<GradSlot>& slots) {
  return support::fillSnippet(kMask, {{"n", std::to_string(slots.size())},
                                      {"flags", support::joinMapped(slots, ", ", [](const GradSlot& s) { return s.needed; })}});
}

// The ranges of the inputs' gradients and how many there are, for a node with tensor lists.
std::pair<std::vector<std::string>, std::string> gradRanges(const Entry& e) {
  std::vector<std::string> ranges;
  std::string end = "0";
  for (const std::string& n : e.d.differentiableInputs) {
    const std::string size = e.isList(n) ? n + "_size_" : "1";
    ranges.push_back(support::fillSnippet(kRange, {{"name", n}, {"from", end}, {"end", end == "0" ? size : end + " + " + size}}));
    end = n + "_ix.second";
  }
  return {ranges, end};
}

std::string nodeCode(const Entry& e) {
  const model::Derivative& d = e.d;
  std::vector<std::string> releases, members, unpacks, grads, formulas, ranges;
  for (const auto* saved : {&e.savedInputs, &e.savedOutputs})
    for (const api::SavedValue& v : *saved) {
      for (std::string& m : v.declarations()) members.push_back(std::move(m));
      for (std::string& r : v.releases()) releases.push_back(std::move(r));
      unpacks.push_back((v.kind == api::SavedValue::Kind::Value ? "const auto& " : "auto ") + v.name + " = " + v.unpack + ";");
    }
  for (const std::string& n : d.differentiableInputs)
    if (e.isList(n)) members.push_back("std::size_t " + n + "_size_ = 0;");
  // grads holds the differentiable outputs, in order.
  std::size_t k = 0;
  for (std::size_t i = 0; i < d.returnNames.size(); ++i) {
    if (!d.outputDifferentiability[i]) continue;
    const std::optional<std::string>& name = d.function->func.returns[i].name;
    const bool usedAsGrad = k == 0 && std::any_of(d.backward.begin(), d.backward.end(), [](const model::BackwardFormula& b) {
                              return api::autograd::pyIdentSearch(b.formula, "grad");
                            });
    if (usedAsGrad) grads.push_back("const auto& grad = grads[0];");
    if (name && std::any_of(d.backward.begin(), d.backward.end(), [&](const model::BackwardFormula& b) {
          return api::autograd::pyIdentSearch(b.formula, "grad_" + *name);
        }))
      grads.push_back("const auto& grad_" + *name + " = grads[" + std::to_string(k) + "];");
    ++k;
  }
  bool usesAnyGradDefined = false;
  for (const model::BackwardFormula& b : d.backward) {
    std::vector<GradSlot> slots;
    for (const std::string& input : b.inputs)
      slots.push_back(slotOf(e, static_cast<std::size_t>(std::find(d.differentiableInputs.begin(), d.differentiableInputs.end(), input) -
                                                         d.differentiableInputs.begin())));
    const std::string any = support::joinMapped(slots, " || ", [](const GradSlot& s) { return s.needed; });
    const std::string mask = api::autograd::pyIdentSearch(b.formula, "grad_input_mask") ? maskLine(slots) : "";
    if (slots.size() == 1) {
      // torchgen's rule: without any gradient, the gradient of a tensor (or optional tensor) is
      // undefined (not_implemented still fails; a list's formula handles it).
      const bool guarded = !support::contains(b.formula, "not_implemented") && !e.isList(b.inputs.front());
      usesAnyGradDefined = usesAnyGradDefined || guarded;
      const std::string formula = guarded ? "any_grad_defined ? (" + b.formula + ") : at::Tensor()" : b.formula;
      formulas.push_back(support::fillSnippet(kFormula, {{"any", any}, {"mask", mask}, {"store", slots[0].store(formula)}}));
      continue;
    }
    std::vector<std::string> copies;
    for (std::size_t j = 0; j < slots.size(); ++j)
      copies.push_back(support::fillSnippet(
          kMultiCopy, {{"needed", slots[j].needed}, {"store", slots[j].store("std::get<" + std::to_string(j) + ">(grad_result)")}}));
    formulas.push_back(
        support::fillSnippet(kMultiFormula, {{"any", any}, {"mask", mask}, {"formula", b.formula}, {"copies", lines(copies, "\n    ")}}));
  }
  std::string count = std::to_string(d.differentiableInputs.size());
  if (e.hasLists()) std::tie(ranges, count) = gradRanges(e);
  std::string out = support::fillSnippet(kNodeClass, {{"node", d.nodeName}, {"releases", lines(releases, "\n    ")}, {"members", lines(members)}});
  support::appendSnippet(out, kApply, {{"node", d.nodeName},
                                       {"unpacks", lines(unpacks)},
                                       {"grads", lines(grads)},
                                       {"any_grad_defined", usesAnyGradDefined ? "const bool any_grad_defined = opgen_any_defined(grads);" : ""},
                                       {"ranges", lines(ranges)},
                                       {"count", count},
                                       {"formulas", lines(formulas)}});
  return out;
}

// The name of a forward formula's condition: whether one of the inputs it uses has a tangent.
std::string tangentCondition(const model::ForwardFormula& fw) { return "_any_has_tangent_" + support::join(fw.outputs, "_"); }

// A differentiable input as the tangent helpers take it (an optional tensor as a tensor, undefined when
// absent).
std::string asTensor(const Entry& e, const std::string& input) { return e.isOptional(input) ? "opgen_tensor(" + input + ")" : input; }

// The inputs whose tangents a forward formula depends on: those it names (NAME_t, or a list itself),
// or the only differentiable input, a tensor list.
std::vector<std::string> tangentSources(const Entry& e, const model::ForwardFormula& fw) {
  std::vector<std::string> out;
  for (const std::string& n : e.d.differentiableInputs)
    if (contains(fw.tangentInputs, n) || contains(fw.listInputs, n)) out.push_back(n);
  if (out.empty()) out = e.d.differentiableInputs;
  return out;
}

std::vector<std::string> tangentConditions(const Entry& e) {
  std::vector<std::string> out;
  for (const model::ForwardFormula& fw : *e.forward)
    out.push_back("const bool " + tangentCondition(fw) + " = " +
                  support::joinMapped(tangentSources(e, fw), " || ",
                                      [&](const std::string& n) { return "opgen_has_tangent(" + asTensor(e, n) + ")"; }) +
                  ";");
  return out;
}

std::string forwardCode(const Entry& e) {
  const model::Derivative& d = e.d;
  if (e.forward->empty())
    return support::fillSnippet(kNoForward, {{"cond", support::joinMapped(d.differentiableInputs, " || ", [&](const std::string& n) {
                                                return "opgen_has_tangent(" + asTensor(e, n) + ")";
                                              })},
                                             {"name", model::cppName(e.f.func)}});
  std::vector<std::string> blocks;
  const std::string self = e.inplace() ? e.f.func.arguments.mutableArgNames().front() : "";
  for (const model::ForwardFormula& fw : *e.forward) {
    std::vector<std::string> tangents, primals, sets;
    // torchgen's reuse of a functional formula: the tangent of self is updated in place if it exists
    // (self_t_raw), and self_t is a copy when grad mode may record the formula.
    if (e.reusesFunctional) tangents.push_back("auto " + self + "_t_raw = " + self + "._fw_grad(/*level=*/0);");
    for (const std::string& n : fw.tangentInputs) {
      if (!api::autograd::pyIdentSearch(fw.formula, n + "_t")) continue;  // renamed original_self_t by the reuse
      tangents.push_back("auto " + n + "_t = opgen_tangent(" + asTensor(e, n) + ");");
      if (e.reusesFunctional && n == self && !fw.usesOriginalSelf)
        tangents.push_back(n + "_t = at::GradMode::is_enabled() ? " + n + "_t.clone() : " + n + "_t;");
    }
    for (const std::string& n : fw.primalInputs) primals.push_back("auto " + n + "_p = opgen_primal(" + asTensor(e, n) + ");");
    if (api::autograd::pyIdentSearch(fw.formula, "original_self_t")) tangents.push_back("auto original_self_t = opgen_tangent(original_self);");
    if (api::autograd::pyIdentSearch(fw.formula, "original_self_p")) primals.push_back("auto original_self_p = opgen_primal(original_self);");
    for (std::size_t i = 0; i < fw.outputs.size(); ++i)
      sets.push_back(support::fillSnippet(
          kSetTangent, {{"output", e.inplace() ? self : fw.outputs[i]},
                        {"tangent", fw.outputs.size() == 1 ? std::string("_tangent") : "std::get<" + std::to_string(i) + ">(_tangent)"},
                        {"inplace", e.inplace() ? "true" : "false"}}));
    blocks.push_back(support::fillSnippet(kForward, {{"cond", tangentCondition(fw)},
                                                     {"tangents", lines(tangents, "\n    ")},
                                                     {"primals", lines(primals, "\n    ")},
                                                     {"formula", fw.formula},
                                                     {"set", lines(sets, "\n    ")}}));
  }
  return lines(blocks);
}

std::string kernelName(const model::NativeFunction& f, std::string_view suffix) {
  return f.func.name.unambiguousName() + std::string(suffix);
}

std::string redispatchOf(const model::NativeFunction& f, const std::string& ns) {
  return ns + "::_ops::" + f.func.name.unambiguousName() + "::redispatch";
}

// What an in-place or out= kernel returns: its mutated arguments (none, one, or a tuple of them).
std::string mutatedReturn(const model::NativeFunction& f) {
  const std::vector<std::string> mutated = f.func.arguments.mutableArgNames();
  if (f.func.returns.empty()) return "";
  return "return " + (mutated.size() == 1 ? mutated.front() : "std::forward_as_tuple(" + support::join(mutated, ", ") + ")") + ";";
}

std::string kernelCode(const Entry& e, const std::string& ns, const api::LibtorchFacts& libtorch) {
  const model::Derivative& d = e.d;
  const api::Spelling& spelling = api::Spelling::of(libtorch);
  const std::string diff = support::join(d.differentiableInputs, ", ");
  const std::string args = api::joinNames(e.sig.arguments());
  std::vector<std::string> saves, outputs, diffOutputs, saveOutputs, noGrad;
  for (const std::string& n : d.checkedNoGrad)
    noGrad.push_back("torch::autograd::check_no_requires_grad(" + n + ", \"" + n + "\", \"" + model::cppName(e.f.func) + "\");");
  for (const api::SavedValue& v : e.savedInputs) {
    const bool overwritten = e.inplace() && contains(e.f.func.arguments.mutableArgNames(), v.name);
    saves.push_back("_grad_fn->" + v.member + " = " + v.save(overwritten ? v.name + ".clone()" : v.name) + ";");
  }
  for (const std::string& n : d.differentiableInputs)
    if (e.isList(n)) saves.push_back("_grad_fn->" + n + "_size_ = " + n + ".size();");
  for (const api::SavedValue& v : e.savedOutputs) saveOutputs.push_back("_grad_fn->" + v.member + " = " + v.save(v.name) + ";");
  std::string history, ret, original;
  if (e.inplace()) {
    const std::string self = e.f.func.arguments.mutableArgNames().front();
    if (!e.savedOutputs.empty()) outputs.push_back("auto& " + d.returnNames.front() + " = " + self + ";");
    history = "torch::autograd::rebase_history(" + self + ", _grad_fn);";
    ret = self;
    std::vector<std::string> conds;
    for (const model::ForwardFormula& fw : *e.forward)
      if (fw.usesOriginalSelf) conds.push_back(tangentCondition(fw));
    if (!conds.empty())
      original = "at::Tensor original_self;\n  if (" + support::join(conds, " || ") + ") original_self = " + self + ".clone();";
  } else {
    const std::size_t n = d.returnNames.size();
    for (std::size_t i = 0; i < n; ++i) {
      outputs.push_back("auto& " + d.returnNames[i] + " = " + (n == 1 ? std::string("_result") : "std::get<" + std::to_string(i) + ">(_result)") + ";");
      if (d.outputDifferentiability[i]) diffOutputs.push_back(d.returnNames[i]);
    }
    history = "torch::autograd::set_history(torch::autograd::flatten_tensor_args(" + support::join(diffOutputs, ", ") + "), _grad_fn);";
    ret = "_result";
  }
  return support::fillSnippet(
      kKernel, {{"head", e.sig.defn({.name = kernelName(e.f, "_autograd"), .isRedispatchingFn = true})},
                {"diff", diff},
                {"no_grad", lines(noGrad)},
                {"check", e.inplace() ? "torch::autograd::check_inplace(" + ret + ", _any_requires_grad);" : ""},
                {"has_tangent", lines(tangentConditions(e))},
                {"original", original},
                {"node_pointer", std::string(spelling.nodePointer)},
                {"node", d.nodeName},
                {"new_node", support::fillSnippet(spelling.newNode, {{"node", d.nodeName}})},
                {"saves", lines(saves, "\n    ")},
                {"guard", e.inplace() || !d.viewOf.empty() ? "at::AutoDispatchBelowAutograd" : "at::AutoDispatchBelowADInplaceOrView"},
                {"redispatch", redispatchOf(e.f, ns)},
                {"args", args.empty() ? "" : ", " + args},
                {"outputs", lines(outputs)},
                {"history", history},
                {"forward", forwardCode(e)},
                {"save_outputs", saveOutputs.empty() ? "" : support::fillSnippet(kSaveOutputs, {{"saves", lines(saveOutputs, "\n    ")}})},
                {"return", ret}});
}

// The Autograd kernel of an out= overload of e's operator.
std::string outKernelCode(const Entry& e, const model::NativeFunction& out, const std::string& ns, const api::LibtorchFacts& libtorch) {
  const model::Derivative& d = e.d;
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(out.func, api::Options::of(out, libtorch));
  // torchgen's differentiable inputs: the tensor-like arguments not marked non_differentiable.
  std::vector<std::string> inputs, outs;
  out.func.arguments.anyOf([&](const model::Argument& a) {
    if (a.type.isTensorLike() && !contains(d.nonDifferentiable, a.name)) inputs.push_back(a.name);
    return false;
  }, {.out = false});
  for (std::size_t i = 0; i < out.func.arguments.out.size(); ++i)
    if (i >= d.outputDifferentiability.size() || d.outputDifferentiability[i]) outs.push_back(out.func.arguments.out[i].name);
  const std::string args = api::joinNames(sig.arguments());
  const auto hasTangent = [&](const model::Argument& a) {
    return "opgen_has_tangent(" + (a.type.isOptional() ? "opgen_tensor(" + a.name + ")" : a.name) + ")";
  };
  std::vector<std::string> fwConds;
  for (const std::string& n : inputs) {
    const model::Argument* arg = nullptr;
    out.func.arguments.anyOf([&](const model::Argument& a) { return a.name == n && (arg = &a) != nullptr; });
    fwConds.push_back(hasTangent(*arg));
  }
  return support::fillSnippet(
      kOutKernel, {{"head", sig.defn({.name = kernelName(out, "_autograd"), .isRedispatchingFn = true})},
                   {"inputs", support::join(inputs, ", ")},
                   {"outs", support::join(outs, ", ")},
                   {"base", out.func.name.name.base},
                   {"name", model::cppName(out.func)},
                   {"redispatch", redispatchOf(out, ns)},
                   {"args", args.empty() ? "" : ", " + args},
                   {"fw_cond", fwConds.empty() ? "false" : support::join(fwConds, " || ")},
                   {"return", mutatedReturn(out)}});
}

// How the replay of a view operator keeps an argument: values and tensors as they are, array views as
// owned copies (the replay may run after the call returns). An error names a type it cannot keep.
support::Expected<std::pair<std::string, std::string>> replayCapture(const model::Argument& a) {
  using model::BaseTy;
  const model::Type& t = a.type;
  const model::Type& base = t.isOptional() ? t.elem() : t;
  if (t.isList() && (t.elem().isBase(BaseTy::Int) || t.elem().isBase(BaseTy::SymInt) || t.elem().isBase(BaseTy::Float) ||
                     t.elem().isBase(BaseTy::Tensor)))
    return std::pair{"auto " + a.name + "_copy = " + a.name + ".vec();", a.name + "_copy"};
  if (t.isBase(BaseTy::Str)) return std::pair{"std::string " + a.name + "_copy(" + a.name + ");", a.name + "_copy"};
  if (base.isBase() && !base.isBase(BaseTy::Str) && !base.isBase(BaseTy::Generator) && !base.isBase(BaseTy::Storage) &&
      !base.isBase(BaseTy::Stream))
    return std::pair{std::string(), a.name};
  return support::makeError("view operators with an argument of type " + t.str() + " ('" + a.name + "') are not supported yet");
}

support::Expected<std::string> viewCode(const model::Derivative& d, const std::string& ns, const api::LibtorchFacts& libtorch) {
  const model::NativeFunction& f = *d.function;
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, api::Options::of(f, libtorch));
  const std::string args = api::joinNames(sig.arguments());
  std::vector<std::string> captures, replayArgs;
  std::optional<support::Error> failure;
  f.func.arguments.anyOf([&](const model::Argument& a) {
    if (a.name == d.viewOf) return false;
    support::Expected<std::pair<std::string, std::string>> c = replayCapture(a);
    if (!c) {
      failure = c.error();
      return true;
    }
    if (!c->first.empty()) captures.push_back(c->first);
    replayArgs.push_back(c->second);
    return false;
  });
  if (failure) return *failure;
  return support::fillSnippet(kViewKernel, {{"head", sig.defn({.name = kernelName(f, "_ad_inplace_or_view"), .isRedispatchingFn = true})},
                                            {"redispatch", redispatchOf(f, ns)},
                                            {"args", args.empty() ? "" : ", " + args},
                                            {"captures", lines(captures)},
                                            {"base", d.viewOf},
                                            {"call", ns + "::_ops::" + f.func.name.unambiguousName() + "::call"},
                                            {"replay_args", replayArgs.empty() ? "" : ", " + support::join(replayArgs, ", ")}});
}

// The ADInplaceOrView kernel of an in-place or out= operator: the version counters of what it modifies.
std::string inplaceOrViewCode(const model::NativeFunction& f, const std::string& ns, const api::LibtorchFacts& libtorch) {
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, api::Options::of(f, libtorch));
  const std::string args = api::joinNames(sig.arguments());
  return support::fillSnippet(
      kInplaceOrView,
      {{"head", sig.defn({.name = kernelName(f, "_ad_inplace_or_view"), .isRedispatchingFn = true})},
       {"redispatch", redispatchOf(f, ns)},
       {"args", args.empty() ? "" : ", " + args},
       {"mutated", support::joinMapped(f.func.arguments.mutableArgNames(), "\n  ",
                                       [](const std::string& m) { return "torch::autograd::increment_version(" + m + ");"; })},
       {"return", mutatedReturn(f)}});
}

}  // namespace

std::string_view autogradSourceFile() { return kFile; }

AutogradCoverage autogradCoverage(const model::Derivatives& derivatives) {
  AutogradCoverage c;
  for (const model::Derivative& d : derivatives.entries()) {
    std::set<std::string>& into = d.nodeName.empty() ? c.nonDifferentiable : c.formulas;
    into.insert(d.function->func.name.str());
    for (const model::InplaceVariant& v : d.inplaceVariants) into.insert(v.function->func.name.str());
    for (const model::NativeFunction* out : d.outVariants) into.insert(out->func.name.str());
  }
  return c;
}

void emitAutograd(const EmitContext& ctx, const std::string& ns, const model::Derivatives& derivatives,
                  const std::string& anchor, Writer& out) {
  std::vector<std::string> nodes, kernels, autograd, inplaceOrView;
  bool hasViews = false;
  for (const model::Derivative& d : derivatives.entries()) {
    if (d.nodeName.empty()) continue;  // every input non_differentiable: nothing to record
    support::Expected<Entry> e = entryOf(d, ctx.libtorch());
    if (!e) {
      ctx.diags.error(d.loc, support::aboutOperator(d.function->func.name.str(), e.error().message));
      continue;
    }
    std::optional<std::string> view;
    if (!d.viewOf.empty()) {
      support::Expected<std::string> code = viewCode(d, ns, ctx.libtorch());
      if (!code) {
        ctx.diags.error(d.loc, support::aboutOperator(d.function->func.name.str(), code.error().message));
        continue;
      }
      view = withoutBlankPlaceholders(*code);
    }
    nodes.push_back(withoutBlankPlaceholders(nodeCode(*e)));
    kernels.push_back(withoutBlankPlaceholders(kernelCode(*e, ns, ctx.libtorch())));
    const auto registration = [](const model::NativeFunction& f, std::string_view suffix) {
      return support::fillSnippet(kRegistration, {{"name", f.func.name.str()}, {"kernel", kernelName(f, suffix)}});
    };
    autograd.push_back(registration(*d.function, "_autograd"));
    if (view) {
      kernels.push_back(*view);
      inplaceOrView.push_back(registration(*d.function, "_ad_inplace_or_view"));
      hasViews = true;
    }
    std::vector<const model::NativeFunction*> mutating;
    if (d.isInplace()) mutating.push_back(d.function);
    for (const model::InplaceVariant& v : d.inplaceVariants) {
      support::Expected<Entry> inplace = entryOf(d, ctx.libtorch(), &v);
      if (!inplace) {
        ctx.diags.error(d.loc, support::aboutOperator(d.function->func.name.str(), inplace.error().message));
        continue;
      }
      kernels.push_back(withoutBlankPlaceholders(kernelCode(*inplace, ns, ctx.libtorch())));
      autograd.push_back(registration(*v.function, "_autograd"));
      mutating.push_back(v.function);
    }
    for (const model::NativeFunction* out : d.outVariants) {
      kernels.push_back(withoutBlankPlaceholders(outKernelCode(*e, *out, ns, ctx.libtorch())));
      autograd.push_back(registration(*out, "_autograd"));
      mutating.push_back(out);
    }
    for (const model::NativeFunction* f : mutating) {
      if (f->func.returns.empty()) continue;  // torchgen's rule: no autograd support for those (pytorch#53796)
      kernels.push_back(withoutBlankPlaceholders(inplaceOrViewCode(*f, ns, ctx.libtorch())));
      inplaceOrView.push_back(registration(*f, "_ad_inplace_or_view"));
    }
  }
  std::string registrations;
  for (const auto& [key, impls] : {std::pair{"Autograd", &autograd}, std::pair{"ADInplaceOrView", &inplaceOrView}})
    if (!impls->empty())
      support::appendSnippet(registrations, kRegistrationBlock, {{"namespace", ns}, {"key", key}, {"registrations", lines(*impls)}});
  out.writeWithTemplate(kFile, kFile, [&] {
    support::TemplateEnv env;
    env.set("generated_comment", libraryGeneratedComment(kFile));
    env.set("namespace", ns);
    std::string viewHelpers;
    if (hasViews && ctx.libtorch().viewFuncs) {
      viewHelpers = kViewHelpersViewFunc;
    } else if (hasViews) {
      viewHelpers = support::fillSnippet(
          kViewHelpersFunction, {{"reverse", ctx.libtorch().reverseViewFuncs ? "/*rev_view_func=*/nullptr, " : ""}});
    }
    env.set("view_helpers", viewHelpers);
    env.set("nodes", nodes);
    env.set("kernels", kernels);
    env.set("registrations", registrations);
    env.set("anchor", anchor);
    return env;
  });
}

}  // namespace opgen::dest
