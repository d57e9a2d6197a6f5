#include "dest/library/Autograd.h"

#include <algorithm>

#include "api/Autograd.h"
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

// Legend: $node$, $count$ the differentiable inputs, $unpacks$ the saved values as the formulas name
// them, $grads$ grad / grad_NAME, $any_grad_defined$ whether a gradient is defined (when a formula
// needs it), $formulas$ one kFormula or kMultiFormula each.
constexpr std::string_view kApply = R"cc(
torch::autograd::variable_list $node$::apply(torch::autograd::variable_list&& grads) {
  std::lock_guard<std::mutex> lock(mutex_);
  $unpacks$
  $grads$
  $any_grad_defined$
  torch::autograd::variable_list grad_inputs($count$);
  $formulas$
  return grad_inputs;
}
)cc";

// The gradient of inputs $indices$ (input $index$ alone, or tuple element $k$ of $formula$'s result).
//   $mask$ the std::array<bool, N> of which of them need one (grad_input_mask), $any$ whether one does
constexpr std::string_view kFormula = R"cc(if ($any$) {
    $mask$
    grad_inputs[$index$] = $formula$;
  })cc";
constexpr std::string_view kMultiFormula = R"cc(if ($any$) {
    $mask$
    auto grad_result = $formula$;
    $copies$
  })cc";
constexpr std::string_view kMultiCopy = "if (should_compute_output($index$)) grad_inputs[$index$] = std::get<$k$>(grad_result);";
constexpr std::string_view kMask = "const std::array<bool, $n$> grad_input_mask = {$flags$};";

// Legend: $head$ the kernel's head (dispatcher signature after a DispatchKeySet), $diff$ the
// differentiable inputs, $node$, $node_pointer$, $new_node$, $check$ the in-place check, $saves$
// the inputs saved, $guard$ the guard below autograd, $redispatch$ the operator's redispatch,
// $args$ its arguments, $outputs$ the returns bound to their names, $history$ set/rebase history,
// $save_outputs$, $forward$ the forward-mode tangents, $return$.
constexpr std::string_view kKernel = R"cc(
$head$ {
  const bool _any_requires_grad = torch::autograd::compute_requires_grad($diff$);
  $check$
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
    $save_outputs$
  }
  $forward$
  return $return$;
}
)cc";

// Legend: $cond$ whether an input has a tangent, $tangents$ / $primals$ the formula's NAME_t / NAME_p,
// $output$ the return, $formula$.
constexpr std::string_view kForward = R"cc(if ($cond$) {
    $tangents$
    $primals$
    $output$._set_fw_grad($formula$, /*level=*/0, /*is_inplace_op=*/false);
  })cc";

// The ADInplaceOrView kernel of an in-place operator: $mutated$ bumps of its mutated arguments.
constexpr std::string_view kInplaceOrView = R"cc(
$head$ {
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    $redispatch$(dispatchKeySet & c10::after_ADInplaceOrView_keyset$args$);
  }
  $mutated$
  return $return$;
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

// What the generated code of one entry needs, or an error.
struct Entry {
  const model::Derivative& d;
  const model::NativeFunction& f;
  api::DispatcherSignature sig;
  std::vector<api::SavedValue> savedInputs, savedOutputs;
};

support::Expected<Entry> entryOf(const model::Derivative& d, api::Libtorch libtorch) {
  const model::NativeFunction& f = *d.function;
  Entry e{d, f, api::DispatcherSignature::fromSchema(f.func, api::Options::of(f, libtorch)), {}, {}};
  for (const model::Return& r : f.func.returns)
    if (!r.type.isBase(model::BaseTy::Tensor))
      return support::makeError("formulas for operators returning " + r.type.str() + " are not supported yet");
  for (const std::string& name : d.savedInputs) {
    support::Expected<api::SavedValue> v = api::savedArgument(d.argument(name), libtorch);
    if (!v) return v.error();
    e.savedInputs.push_back(*v);
  }
  for (const std::string& name : d.savedOutputs) e.savedOutputs.push_back(api::savedReturn(name, libtorch));
  return e;
}

std::string maskLine(const std::vector<std::size_t>& indices) {
  return support::fillSnippet(kMask, {{"n", std::to_string(indices.size())},
                                      {"flags", support::joinMapped(indices, ", ", [](std::size_t i) {
                                         return "should_compute_output(" + std::to_string(i) + ")";
                                       })}});
}

std::string nodeCode(const Entry& e) {
  const model::Derivative& d = e.d;
  std::vector<std::string> releases, members, unpacks, grads, formulas;
  for (const auto* saved : {&e.savedInputs, &e.savedOutputs})
    for (const api::SavedValue& v : *saved) {
      members.push_back(v.type + " " + v.member + ";");
      if (v.isTensor) releases.push_back(v.member + ".reset_data();");
      unpacks.push_back((v.isTensor ? "auto " : "const auto& ") + v.name + " = " + v.unpack + ";");
    }
  // grads holds the differentiable outputs, in order.
  std::size_t k = 0;
  for (std::size_t i = 0; i < d.returnNames.size(); ++i) {
    if (!d.outputDifferentiability[i]) continue;
    const std::optional<std::string>& name = d.function->func.returns[i].name;
    const bool usedAsGrad = k == 0 && std::any_of(d.backward.begin(), d.backward.end(), [](const model::BackwardFormula& b) {
                              return model::usesIdentifier(b.formula, "grad");
                            });
    if (usedAsGrad) grads.push_back("const auto& grad = grads[0];");
    if (name && std::any_of(d.backward.begin(), d.backward.end(), [&](const model::BackwardFormula& b) {
          return model::usesIdentifier(b.formula, "grad_" + *name);
        }))
      grads.push_back("const auto& grad_" + *name + " = grads[" + std::to_string(k) + "];");
    ++k;
  }
  bool usesAnyGradDefined = false;
  for (const model::BackwardFormula& b : d.backward) {
    std::vector<std::size_t> indices;
    for (const std::string& input : b.inputs)
      indices.push_back(static_cast<std::size_t>(
          std::find(d.differentiableInputs.begin(), d.differentiableInputs.end(), input) - d.differentiableInputs.begin()));
    const std::string any = support::joinMapped(indices, " || ", [](std::size_t i) {
      return "should_compute_output(" + std::to_string(i) + ")";
    });
    const std::string mask = model::usesIdentifier(b.formula, "grad_input_mask") ? maskLine(indices) : "";
    if (indices.size() == 1) {
      // torchgen's rule: without any gradient, the gradient of a tensor is undefined (not_implemented
      // still fails).
      const bool guarded = !support::contains(b.formula, "not_implemented");
      usesAnyGradDefined = usesAnyGradDefined || guarded;
      const std::string formula = guarded ? "any_grad_defined ? (" + b.formula + ") : at::Tensor()" : b.formula;
      formulas.push_back(support::fillSnippet(
          kFormula, {{"any", any}, {"mask", mask}, {"index", std::to_string(indices[0])}, {"formula", formula}}));
      continue;
    }
    std::vector<std::string> copies;
    for (std::size_t j = 0; j < indices.size(); ++j)
      copies.push_back(support::fillSnippet(kMultiCopy, {{"index", std::to_string(indices[j])}, {"k", std::to_string(j)}}));
    formulas.push_back(
        support::fillSnippet(kMultiFormula, {{"any", any}, {"mask", mask}, {"formula", b.formula}, {"copies", lines(copies, "\n    ")}}));
  }
  std::string out = support::fillSnippet(kNodeClass, {{"node", d.nodeName}, {"releases", lines(releases, "\n    ")}, {"members", lines(members)}});
  support::appendSnippet(out, kApply, {{"node", d.nodeName},
                                       {"count", std::to_string(d.differentiableInputs.size())},
                                       {"unpacks", lines(unpacks)},
                                       {"grads", lines(grads)},
                                       {"any_grad_defined", usesAnyGradDefined ? "const bool any_grad_defined = opgen_any_defined(grads);" : ""},
                                       {"formulas", lines(formulas)}});
  return out;
}

std::string forwardCode(const model::Derivative& d) {
  std::vector<std::string> blocks;
  for (const model::ForwardFormula& fw : d.forward) {
    const std::vector<std::string>& inputs = fw.tangentInputs.empty() ? d.differentiableInputs : fw.tangentInputs;
    std::vector<std::string> tangents, primals;
    for (const std::string& n : fw.tangentInputs) tangents.push_back("auto " + n + "_t = opgen_tangent(" + n + ");");
    for (const std::string& n : fw.primalInputs) primals.push_back("auto " + n + "_p = opgen_primal(" + n + ");");
    blocks.push_back(support::fillSnippet(
        kForward, {{"cond", support::joinMapped(inputs, " || ", [](const std::string& n) { return "opgen_has_tangent(" + n + ")"; })},
                   {"tangents", lines(tangents, "\n    ")},
                   {"primals", lines(primals, "\n    ")},
                   {"output", fw.output},
                   {"formula", fw.formula}}));
  }
  return lines(blocks);
}

std::string kernelName(const model::NativeFunction& f, std::string_view suffix) {
  return f.func.name.unambiguousName() + std::string(suffix);
}

std::string kernelCode(const Entry& e, const std::string& ns, api::Libtorch libtorch) {
  const model::Derivative& d = e.d;
  const api::Spelling& spelling = api::Spelling::of(libtorch);
  const std::string diff = support::join(d.differentiableInputs, ", ");
  const std::string args = api::joinNames(e.sig.arguments());
  const std::string redispatch = ns + "::_ops::" + e.f.func.name.unambiguousName() + "::redispatch";
  std::vector<std::string> saves, outputs, diffOutputs, saveOutputs;
  for (const api::SavedValue& v : e.savedInputs) {
    const bool overwritten = d.isInplace() && contains(e.f.func.arguments.mutableArgNames(), v.name);
    saves.push_back("_grad_fn->" + v.member + " = " + v.save(overwritten ? v.name + ".clone()" : v.name) + ";");
  }
  for (const api::SavedValue& v : e.savedOutputs) saveOutputs.push_back("_grad_fn->" + v.member + " = " + v.save(v.name) + ";");
  std::string history, ret;
  if (d.isInplace()) {
    const std::string self = e.f.func.arguments.mutableArgNames().front();
    if (!e.savedOutputs.empty()) outputs.push_back("auto& result = " + self + ";");
    history = "torch::autograd::rebase_history(" + self + ", _grad_fn);";
    ret = self;
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
                {"check", d.isInplace() ? "torch::autograd::check_inplace(" + ret + ", _any_requires_grad);" : ""},
                {"node_pointer", std::string(spelling.nodePointer)},
                {"node", d.nodeName},
                {"new_node", support::fillSnippet(spelling.newNode, {{"node", d.nodeName}})},
                {"saves", lines(saves, "\n    ")},
                {"guard", d.isInplace() ? "at::AutoDispatchBelowAutograd" : "at::AutoDispatchBelowADInplaceOrView"},
                {"redispatch", redispatch},
                {"args", args.empty() ? "" : ", " + args},
                {"outputs", lines(outputs)},
                {"history", history},
                {"save_outputs", lines(saveOutputs, "\n    ")},
                {"forward", forwardCode(d)},
                {"return", ret}});
}

std::string inplaceOrViewCode(const Entry& e, const std::string& ns) {
  const std::vector<std::string> mutated = e.f.func.arguments.mutableArgNames();
  const std::string args = api::joinNames(e.sig.arguments());
  return support::fillSnippet(
      kInplaceOrView,
      {{"head", e.sig.defn({.name = kernelName(e.f, "_ad_inplace_or_view"), .isRedispatchingFn = true})},
       {"redispatch", ns + "::_ops::" + e.f.func.name.unambiguousName() + "::redispatch"},
       {"args", args.empty() ? "" : ", " + args},
       {"mutated", support::joinMapped(mutated, "\n  ", [](const std::string& m) { return "torch::autograd::increment_version(" + m + ");"; })},
       {"return", mutated.front()}});
}

}  // namespace

std::string_view autogradSourceFile() { return kFile; }

void emitAutograd(const EmitContext& ctx, const std::string& ns, const model::Derivatives& derivatives,
                  const std::string& anchor, Writer& out) {
  std::vector<std::string> nodes, kernels, autograd, inplaceOrView;
  for (const model::Derivative& d : derivatives.entries()) {
    if (d.nodeName.empty()) continue;  // every input non_differentiable: nothing to record
    support::Expected<Entry> e = entryOf(d, ctx.libtorch());
    if (!e) {
      ctx.diags.error(d.loc, support::aboutOperator(d.function->func.name.str(), e.error().message));
      continue;
    }
    nodes.push_back(withoutBlankPlaceholders(nodeCode(*e)));
    kernels.push_back(withoutBlankPlaceholders(kernelCode(*e, ns, ctx.libtorch())));
    autograd.push_back(support::fillSnippet(kRegistration, {{"name", d.function->func.name.str()}, {"kernel", kernelName(*d.function, "_autograd")}}));
    if (d.isInplace()) {
      kernels.push_back(inplaceOrViewCode(*e, ns));
      inplaceOrView.push_back(support::fillSnippet(
          kRegistration, {{"name", d.function->func.name.str()}, {"kernel", kernelName(*d.function, "_ad_inplace_or_view")}}));
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
    env.set("nodes", nodes);
    env.set("kernels", kernels);
    env.set("registrations", registrations);
    env.set("anchor", anchor);
    return env;
  });
}

}  // namespace opgen::dest
