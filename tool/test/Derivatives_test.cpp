// derivatives.yaml of an operator library (api/DifferentiabilityInfo.h's one reader, with the library's
// options; libraryDerivatives' view of it, model/Derivatives.h): what an entry means (formulas, saved
// values, node names, forward-mode expansion), and one test per class of broken input with its exact
// "FILE:LINE:COL: error: ..." line.
#include <gtest/gtest.h>

#include "api/DifferentiabilityInfo.h"
#include "model/Derivatives.h"
#include "model/Loader.h"

namespace opgen::model {
namespace {

using api::autograd::pyIdentSearch;
using api::autograd::pyIdentSub;

std::optional<Derivatives> loadDerivatives(const std::string& path, const std::string& content, const Operators& ops,
                                           const std::string& ns, support::Diagnostics& diags) {
  return api::autograd::libraryDerivatives(path, content, ops, ns, diags);
}

constexpr const char* kOps = R"(- func: lib::mul2(Tensor self, Tensor other, *, int power=1) -> Tensor
  dispatch:
    CPU: mul2
- func: lib::mul2_(Tensor(a!) self, Tensor other) -> Tensor(a!)
  dispatch:
    CPU: mul2_
- func: lib::split2(Tensor self) -> (Tensor a, Tensor b)
  dispatch:
    CPU: split2
- func: lib::minmax(Tensor self) -> (Tensor, Tensor)
  dispatch:
    CPU: minmax
- func: lib::masked(Tensor self, Tensor? mask) -> Tensor
  dispatch:
    CPU: masked
- func: lib::twice(Tensor self) -> Tensor
- func: lib::stack2(Tensor[] tensors, int dim=0) -> Tensor
  dispatch:
    CPU: stack2
- func: lib::mul2.out(Tensor self, Tensor other, *, int power=1, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: mul2_out
- func: lib::pick(Tensor self, Tensor?[] indices) -> Tensor
  dispatch:
    CPU: pick
- func: lib::sq(Tensor self) -> Tensor
  dispatch:
    CPU: sq
- func: lib::sq_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: sq_
)";

struct Loaded {
  std::optional<Operators> ops;
  std::optional<Derivatives> derivatives;
  support::Diagnostics diags;
};

std::unique_ptr<Loaded> load(const std::string& derivatives) {
  auto r = std::make_unique<Loaded>();
  LoadOptions options;
  options.defaultKernelNamespace = "";
  r->ops = loadNativeFunctions("ops.yaml", kOps, {}, options, r->diags);
  EXPECT_TRUE(r->ops) << r->diags.str();
  if (r->ops) r->derivatives = loadDerivatives("derivatives.yaml", derivatives, *r->ops, "lib", r->diags);
  return r;
}

std::string errorOf(const std::string& derivatives) {
  std::unique_ptr<Loaded> r = load(derivatives);
  EXPECT_FALSE(r->derivatives.has_value()) << "expected an error for:\n" << derivatives;
  return r->diags.all().empty() ? std::string("(no diagnostic)") : r->diags.all().front().str();
}

TEST(Derivatives, FormulasSavedValuesAndNodeNames) {
  std::unique_ptr<Loaded> r = load(R"(- name: lib::mul2(Tensor self, Tensor other, *, int power=1) -> Tensor
  self: grad * other * power
  other: grad * self
- name: mul2_(Tensor(a!) self, Tensor other) -> Tensor(a!)
  self: grad * other
  other: grad * result / other
)");
  ASSERT_TRUE(r->derivatives) << r->diags.str();
  ASSERT_EQ(r->derivatives->entries().size(), 2u);
  const Derivative& mul2 = r->derivatives->entries()[0];
  EXPECT_EQ(mul2.function->func.name.str(), "mul2");
  EXPECT_EQ(mul2.nodeName, "Mul2Backward0");
  EXPECT_EQ(mul2.differentiableInputs, (std::vector<std::string>{"self", "other"}));
  EXPECT_EQ(mul2.savedInputs, (std::vector<std::string>{"self", "other", "power"}));
  EXPECT_TRUE(mul2.savedOutputs.empty());
  EXPECT_EQ(mul2.loc.str(), "derivatives.yaml:1:9");
  const Derivative& inplace = r->derivatives->entries()[1];
  EXPECT_TRUE(inplace.isInplace());
  EXPECT_EQ(inplace.nodeName, "Mul2Backward1");  // torchgen numbers the nodes of one name
  EXPECT_EQ(inplace.savedInputs, (std::vector<std::string>{"other"}));
  EXPECT_EQ(inplace.savedOutputs, (std::vector<std::string>{"result"}));
  EXPECT_EQ(r->derivatives->find(*r->ops->functions()[2]), nullptr);
}

TEST(Derivatives, NamedAndIndexedReturnsNonDifferentiableOutputs) {
  std::unique_ptr<Loaded> r = load(R"(- name: split2(Tensor self) -> (Tensor a, Tensor b)
  self: grad_a + 2 * grad_b
- name: minmax(Tensor self) -> (Tensor, Tensor)
  output_differentiability: [True]
  self: grad * (self == result0)
- name: masked(Tensor self, Tensor? mask) -> Tensor
  self: not_implemented("masked")
)");
  ASSERT_TRUE(r->derivatives) << r->diags.str();
  const auto& e = r->derivatives->entries();
  EXPECT_EQ(e[0].returnNames, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(e[1].returnNames, (std::vector<std::string>{"result0", "result1"}));
  EXPECT_EQ(e[1].outputDifferentiability, (std::vector<bool>{true, false}));
  EXPECT_EQ(e[1].savedOutputs, (std::vector<std::string>{"result0"}));
  EXPECT_EQ(e[2].savedInputs, std::vector<std::string>{});
}

TEST(Derivatives, ForwardFormulasAndTheirExpansion) {
  std::unique_ptr<Loaded> r = load(R"(- name: masked(Tensor self, Tensor? mask) -> Tensor
  self: grad * self.sgn()
  result: auto_element_wise
- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor
  self: grad * other
  other: grad * self
  result: auto_linear
- name: split2(Tensor self) -> (Tensor a, Tensor b)
  self: grad_a + grad_b
  a: self_t * self_p
  b: 2 * self_t
)");
  ASSERT_TRUE(r->derivatives) << r->diags.str();
  const auto& e = r->derivatives->entries();
  EXPECT_EQ(e[0].forward[0].formula, "(self_t.conj() * self_p.sgn()).conj()");
  EXPECT_EQ(e[0].forward[0].tangentInputs, std::vector<std::string>{"self"});
  EXPECT_EQ(e[0].forward[0].primalInputs, std::vector<std::string>{"self"});
  EXPECT_EQ(e[1].forward[0].formula, "lib::_ops::mul2::call(self_t, other_t, power)");
  EXPECT_EQ(e[2].forward[0].outputs, std::vector<std::string>{"a"});
}

TEST(Derivatives, OptionalTensorsAndTensorLists) {
  std::unique_ptr<Loaded> r = load(R"(- name: masked(Tensor self, Tensor? mask) -> Tensor
  self: grad * mask
  mask: grad * self
  result: self_t * mask_p + self_p * mask_t
- name: stack2(Tensor[] tensors, int dim=0) -> Tensor
  tensors: grad.unbind(dim)
  result: at::stack(tensors_t, dim) + 0 * at::stack(tensors, dim)
- name: pick(Tensor self, Tensor?[] indices) -> Tensor
  self: grad
)");
  ASSERT_TRUE(r->derivatives) << r->diags.str();
  const auto& e = r->derivatives->entries();
  EXPECT_EQ(e[0].differentiableInputs, (std::vector<std::string>{"self", "mask"}));
  EXPECT_EQ(e[0].savedInputs, (std::vector<std::string>{"self", "mask"}));
  EXPECT_TRUE(e[0].checkedNoGrad.empty());
  EXPECT_EQ(e[1].differentiableInputs, std::vector<std::string>{"tensors"});
  EXPECT_EQ(e[1].savedInputs, std::vector<std::string>{"dim"});
  // torchgen's rule: a formula names a tensor list itself (not ambiguous); NAME_t is its tangents.
  EXPECT_EQ(e[1].forward[0].tangentInputs, std::vector<std::string>{"tensors"});
  EXPECT_EQ(e[1].forward[0].listInputs, std::vector<std::string>{"tensors"});
  // A Tensor?[] without formula is checked at run time (torchgen's check_no_requires_grad).
  EXPECT_EQ(e[2].checkedNoGrad, std::vector<std::string>{"indices"});
}

TEST(Derivatives, InPlaceAndMultiOutputForwardFormulasAndOutVariants) {
  std::unique_ptr<Loaded> r = load(R"(- name: mul2_(Tensor(a!) self, Tensor other) -> Tensor(a!)
  self: grad * other
  other: grad * self
  result: self_t.mul_(other_p).add_(original_self_p * other_t) + 0 * result
- name: minmax(Tensor self) -> (Tensor, Tensor)
  self: grads[0] + grads[1]
  result0, result1: std::make_tuple(self_t, self_t)
- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor
  self: grad
  other: grad
  result: auto_linear
)");
  ASSERT_TRUE(r->derivatives) << r->diags.str();
  const auto& e = r->derivatives->entries();
  EXPECT_TRUE(e[0].forward[0].usesOriginalSelf);
  EXPECT_EQ(e[0].forward[0].tangentInputs, (std::vector<std::string>{"self", "other"}));
  EXPECT_EQ(e[0].forward[0].primalInputs, (std::vector<std::string>{"self", "other"}));  // result: self_p
  EXPECT_EQ(e[0].forward[0].formula, "self_t.mul_(other_p).add_(original_self_p * other_t) + 0 * self_p");
  EXPECT_TRUE(e[0].outVariants.empty());
  EXPECT_EQ(e[1].forward[0].outputs, (std::vector<std::string>{"result0", "result1"}));
  ASSERT_EQ(e[2].outVariants.size(), 1u);  // mul2.out: same signature
  EXPECT_EQ(e[2].outVariants[0]->func.name.str(), "mul2.out");
}

TEST(Derivatives, InPlaceOverloadsWithoutEntryReuseTheFunctionalOne) {
  std::unique_ptr<Loaded> r = load(R"(- name: sq(Tensor self) -> Tensor
  self: 2 * grad * self
  result: 2 * self_t * self_p + 0 * result
)");
  ASSERT_TRUE(r->derivatives) << r->diags.str();
  const Derivative& sq = r->derivatives->entries()[0];
  ASSERT_EQ(sq.inplaceVariants.size(), 1u);
  const InplaceVariant& v = sq.inplaceVariants[0];
  EXPECT_EQ(v.function->func.name.str(), "sq_");
  // torchgen's rewrite: self before the call is original_self, result is self after it, and an
  // existing tangent is updated in place.
  EXPECT_EQ(v.forward[0].formula,
            "self_t_raw.defined() ? self_t_raw.copy_(2 * original_self_t * original_self_p + 0 * self_p) : 2 * "
            "original_self_t * original_self_p + 0 * self_p");
  EXPECT_TRUE(v.forward[0].usesOriginalSelf);
  EXPECT_EQ(v.forward[0].primalInputs, std::vector<std::string>{"self"});
  std::unique_ptr<Loaded> own = load(R"(- name: sq(Tensor self) -> Tensor
  self: 2 * grad * self
- name: sq_(Tensor(a!) self) -> Tensor(a!)
  self: 2 * grad * self
)");
  ASSERT_TRUE(own->derivatives) << own->diags.str();
  EXPECT_TRUE(own->derivatives->entries()[0].inplaceVariants.empty());  // sq_ has its own entry
  EXPECT_TRUE(own->diags.all().empty()) << own->diags.str();
}

// Formulas under an in-place operator alone leave its functional variant (an `autogen:` one, say)
// without gradient: accepted, with a warning at the entry that says where they belong.
TEST(Derivatives, InPlaceEntryWithoutItsFunctionalOneIsAWarning) {
  std::unique_ptr<Loaded> r = load(R"(- name: sq_(Tensor(a!) self) -> Tensor(a!)
  self: 2 * grad * self
)");
  ASSERT_TRUE(r->derivatives) << r->diags.str();
  ASSERT_EQ(r->diags.all().size(), 1u) << r->diags.str();
  EXPECT_EQ(r->diags.all().front().str(),
            "derivatives.yaml:1:9: warning: in 'sq_': its functional variant 'sq' has no entry, so a gradient "
            "through it fails at backward (an in-place operator's formulas do not reach its functional variant); "
            "give these formulas to 'sq' instead: 'sq_' then takes them from it");
}

TEST(Derivatives, ViewOperators) {
  constexpr const char* kViews = R"(- func: lib::flip01(Tensor(a) self) -> Tensor(a)
  dispatch:
    CPU: flip01
- func: lib::flip01_copy(Tensor self) -> Tensor
  tags: view_copy
  dispatch:
    CPU: flip01_copy
- func: lib::halves(Tensor(a) self) -> (Tensor(a), Tensor(a))
  dispatch:
    CPU: halves
- func: lib::halves_copy(Tensor self) -> (Tensor, Tensor)
  tags: view_copy
  dispatch:
    CPU: halves_copy
)";
  support::Diagnostics diags;
  LoadOptions options;
  options.defaultKernelNamespace = "";
  const std::optional<Operators> ops = loadNativeFunctions("ops.yaml", kViews, {"view_copy"}, options, diags);
  ASSERT_TRUE(ops) << diags.str();
  const std::optional<Derivatives> views = loadDerivatives(
      "derivatives.yaml", "- name: flip01(Tensor(a) self) -> Tensor(a)\n  self: grad.transpose(0, 1)\n"
      "- name: flip01_copy(Tensor self) -> Tensor\n  self: grad.transpose(0, 1)\n", *ops, "lib", diags);
  ASSERT_TRUE(views) << diags.str();
  EXPECT_EQ(views->entries()[0].viewOf, "self");
  EXPECT_EQ(views->entries()[1].viewOf, "");
  EXPECT_FALSE(loadDerivatives("derivatives.yaml", "- name: halves(Tensor(a) self) -> (Tensor(a), Tensor(a))\n  self: grads[0]\n",
                               *ops, "lib", diags));
  ASSERT_FALSE(diags.all().empty());
  EXPECT_EQ(diags.all().back().str(), "derivatives.yaml:1:9: error: in 'halves': view operators with several outputs or "
                                      "a list of views are not supported yet: only one Tensor(a) return");
}

// torchgen's IDENT_REGEX with Python's re: a match consumes the non-word characters around the name, so
// of two occurrences one character apart only the first is rewritten (as torchgen rewrites formulas).
TEST(Derivatives, Identifiers) {
  EXPECT_TRUE(pyIdentSearch("grad * self.sgn()", "self"));
  EXPECT_FALSE(pyIdentSearch("grad_input_mask[0]", "grad"));
  EXPECT_FALSE(pyIdentSearch("myself", "self"));
  EXPECT_EQ(pyIdentSub("grad * grad_a + f(grad)", "grad", "g"), "g * grad_a + f(g)");
  EXPECT_EQ(pyIdentSub("grad*grad + grad", "grad", "g"), "g*grad + g");
}

TEST(Derivatives, Errors) {
  EXPECT_EQ(errorOf("- name: lib::nope(Tensor self) -> Tensor\n  self: grad\n"),
            "derivatives.yaml:1:9: error: could not find an operator of the library 'lib' for schema: nope(Tensor self) "
            "-> Tensor");
  EXPECT_EQ(errorOf("- name: mul2(Tensor self) -> Tensor\n  self: grad\n"),
            "derivatives.yaml:1:9: error: could not find an operator of the library 'lib' for schema: mul2(Tensor self) "
            "-> Tensor (available: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor)");
  EXPECT_EQ(errorOf("- name: other::split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n"),
            "derivatives.yaml:1:9: error: operator 'other::split2' is not in the library's namespace 'lib'");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n  weight: grad_b\n"),
            "derivatives.yaml:3:3: error: in 'split2': No matching output for forward derivative definition: 'weight' is "
            "neither an argument (the key of a backward formula) nor a return (the key of a forward formula) of "
            "'split2' (returns: a, b)");
  EXPECT_EQ(errorOf("- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor\n  self: grad * other\n"),
            "derivatives.yaml:1:9: error: in 'mul2': tensor argument 'other' has no formula: give one, "
            "not_implemented(\"mul2\") or non_differentiable");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n"
                    "- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_b\n"),
            "derivatives.yaml:3:9: error: in 'split2': duplicate entry (the first is at line 1)");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_c\n"),
            "derivatives.yaml:2:9: error: in 'split2': the formula names an unknown variable 'grad_c' (the named "
            "gradients are: grad_a, grad_b)");
  EXPECT_EQ(errorOf("- name: minmax(Tensor self) -> (Tensor, Tensor)\n  self: grads[2]\n"),
            "derivatives.yaml:2:9: error: in 'minmax': Out of bounds grads access: derivative formula for minmax used "
            "grads[2], but the forward only returns 2 outputs.");
  EXPECT_EQ(errorOf("- name: minmax(Tensor self) -> (Tensor, Tensor)\n  self: grad + grads[1]\n"),
            "derivatives.yaml:1:9: error: in 'minmax': Derivative definition of minmax in derivatives.yaml illegally mixes "
            "use of 'grad' and 'grads'. Consider replacing occurrences of 'grad' with 'grads[0]'");
  EXPECT_EQ(errorOf("- name: masked(Tensor self, Tensor? mask) -> Tensor\n  self: grad\n  result: self_t * self\n"),
            "derivatives.yaml:3:11: error: in 'masked': The forward formula for masked is using the base name of the self "
            "argument which is ambiguous. You should use self_p to access the primal value and self_t to access the "
            "tangent.");
  EXPECT_EQ(errorOf("- name: masked(Tensor self, Tensor? mask) -> Tensor\n  self: grad\n  result: self_t * mask_t\n"),
            "derivatives.yaml:3:11: error: in 'masked': the forward formula names an unknown variable 'mask_t' ('mask' "
            "is not a differentiable input)");
  EXPECT_EQ(errorOf("- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor\n  self: grad\n  other: grad\n"
                    "  power: grad\n"),
            "derivatives.yaml:4:3: error: in 'mul2': argument 'power' has type int: only tensors (Tensor, Tensor?, "
            "Tensor[]) have gradients");
  EXPECT_EQ(errorOf("- name: pick(Tensor self, Tensor?[] indices) -> Tensor\n  self: grad\n  indices: grad\n"),
            "derivatives.yaml:3:3: error: in 'pick': argument 'indices' has type Tensor?[]: gradients of lists of optional "
            "tensors are not supported yet");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n  self: grad_b\n"),
            "derivatives.yaml:3:3: error: duplicate key 'self'");
  EXPECT_EQ(errorOf("- name: mul2_(Tensor(a!) self, Tensor other) -> Tensor(a!)\n  self: grad\n  other: grad\n"
                    "  result: auto_element_wise\n"),
            "derivatives.yaml:4:11: error: in 'mul2_': Cannot use auto_element_wise with mul2_ because it is an in-place "
            "variant: write a formula that modifies self_t in place (e.g. self_t.mul_(...))");
  EXPECT_EQ(errorOf("- name: mul2_(Tensor(a!) self, Tensor other) -> Tensor(a!)\n  self: grad\n  other: grad\n"
                    "  result: self_t.mul_(other_p).add_(self_p * other_t)\n"),
            "derivatives.yaml:1:9: error: in 'mul2_': The formula for \"mul2_\" is using the original value of self that "
            "is being modified inplace. This would lead to wrong forward gradients. Please use \"result\" in the formula "
            "only.");
  EXPECT_EQ(errorOf("- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor\n  self: grad\n  other: grad\n"
                    "  result: original_self_p * self_t\n"),
            "derivatives.yaml:4:11: error: in 'mul2': the forward formula names 'original_self_p', which only the formulas "
            "of in-place operators modifying 'self' have");
  EXPECT_EQ(errorOf("- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor\n  self: grad\n  other: grad\n"
                    "  result: at::zeros_like(self_p)\n"),
            "derivatives.yaml:4:11: error: in 'mul2': the forward formula uses no input's tangent (NAME_t): it would run "
            "for no input (torchgen allows that only for an operator whose single differentiable input is a tensor list)");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n  a: self_t\n"),
            "derivatives.yaml:1:9: error: in 'split2': the forward formulas give no tangent for the differentiable "
            "output(s) b: give every differentiable output a forward formula, or none");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n  a, b: f(self_t)\n"
                    "  b: self_t\n"),
            "derivatives.yaml:4:3: error: in 'split2': return 'b' has two forward formulas");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n  a, a: f(self_t)\n"),
            "derivatives.yaml:3:3: error: in 'split2': return 'a' is named twice");
  EXPECT_EQ(errorOf("- name: minmax(Tensor self) -> (Tensor, Tensor)\n  output_differentiability: [True, False]\n"
                    "  self: grad\n  result0: self_t\n  result1: self_t\n"),
            "derivatives.yaml:5:12: error: in 'minmax': return 'result1' has a forward formula but is not differentiable "
            "(output_differentiability)");
  EXPECT_EQ(errorOf("- name: lib::mul2.out(Tensor self, Tensor other, *, int power=1, Tensor(a!) out) -> Tensor(a!)\n"
                    "  self: grad\n"),
            "derivatives.yaml:1:9: error: in 'mul2.out': an out= operator takes its autograd from its functional variant's "
            "entry: write the formulas under 'name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor'");
  EXPECT_EQ(errorOf("- name: stack2(Tensor[] tensors, int dim=0) -> Tensor\n  tensors: grad.unbind(dim)\n"
                    "  result: auto_element_wise\n"),
            "derivatives.yaml:3:11: error: in 'stack2': auto_element_wise needs a tensor input, and 'tensors' is a tensor list");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n  output_differentiability: [yes, 2]\n"),
            "derivatives.yaml:3:35: error: in 'split2': output_differentiability: expected True, False or a condition, not "
            "an int");
  EXPECT_EQ(errorOf("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_a\n  output_differentiability: [\"c\"]\n"),
            "derivatives.yaml:3:29: error: in 'split2': output_differentiability conditions are not supported for "
            "operator libraries yet: give True or False per return");
  EXPECT_EQ(errorOf("- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor\n  dispatch:\n    AutogradCPU:\n"
                    "      self: grad\n"),
            "derivatives.yaml:2:3: error: in 'mul2': per-dispatch-key formulas (dispatch:) are not supported yet");
  EXPECT_EQ(errorOf("- name: split2(Tensor self -> Tensor\n"),
            "derivatives.yaml:1:9: error: invalid function schema: expected 'NAME(ARGUMENTS) -> RETURNS'");
  EXPECT_EQ(errorOf("- name: twice(Tensor self) -> Tensor\n  self: 2 * grad\n"),
            "derivatives.yaml:1:9: error: in 'twice': the operator is CompositeImplicitAutograd (no dispatch:), so "
            "autograd differentiates its kernel's ATen calls and formulas would never be used: give it a dispatch: "
            "entry (e.g. CompositeExplicitAutograd) to use formulas");
  EXPECT_EQ(errorOf("name: x\n"),
            "derivatives.yaml:1:1: error: derivatives.yaml must be a list of '- name: SCHEMA' entries, not a mapping");
}

// Every entry is read (each stops at its first problem), so that one build reports every broken entry.
TEST(Derivatives, EveryBrokenEntryReported) {
  std::unique_ptr<Loaded> r = load("- name: split2(Tensor self) -> (Tensor a, Tensor b)\n  self: grad_c\n"
                                   "- name: minmax(Tensor self) -> (Tensor, Tensor)\n  self: grad\n"
                                   "- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor\n  self: grad * other\n");
  EXPECT_FALSE(r->derivatives);
  ASSERT_EQ(r->diags.all().size(), 2u) << r->diags.str();
  EXPECT_EQ(r->diags.all()[0].str().substr(0, 21), "derivatives.yaml:2:9:");
  EXPECT_EQ(r->diags.all()[1].str().substr(0, 21), "derivatives.yaml:5:9:");
}

// ATen's reading (opgen autograd) reports every broken entry too, with torchgen's messages; a library's
// checks are not made (torchgen accepts a Tensor argument without formula).
TEST(Derivatives, AtenReadingReportsEveryBrokenEntry) {
  std::unique_ptr<Loaded> r = load("");
  ASSERT_TRUE(r->ops);
  support::Diagnostics diags;
  const auto loaded = api::autograd::loadAtenDerivatives(
      "derivatives.yaml", "- name: minmax(Tensor self) -> (Tensor, Tensor)\n  self: grad + grads[1]\n"
      "- name: mul2(Tensor self, Tensor other, *, int power=1) -> Tensor\n  self: grad * other\n"
      "- name: frob(Tensor self) -> Tensor\n  self: grad\n", *r->ops, diags);
  EXPECT_FALSE(loaded);
  ASSERT_EQ(diags.all().size(), 2u) << diags.str();
  EXPECT_EQ(diags.all()[0].str(), "derivatives.yaml:1:9: error: in 'minmax': Derivative definition of minmax in "
                                  "derivatives.yaml illegally mixes use of 'grad' and 'grads'. Consider replacing "
                                  "occurrences of 'grad' with 'grads[0]'");
  EXPECT_EQ(diags.all()[1].str(), "derivatives.yaml:5:9: error: could not find ATen function for schema: frob(Tensor self) -> Tensor");
}

// auto_element_wise as torchgen expands it (Python's re.sub with IDENT_REGEX).
TEST(Derivatives, AutoElementWiseAsTorchgenExpandsIt) {
  std::unique_ptr<Loaded> r = load("- name: sq(Tensor self) -> Tensor\n  self: 2 * grad * self\n  result: auto_element_wise\n");
  ASSERT_TRUE(r->derivatives) << r->diags.str();
  const Derivative& sq = r->derivatives->entries()[0];
  EXPECT_EQ(sq.forward[0].formula, "(2 * self_t.conj() * self_p).conj()");
  ASSERT_EQ(sq.inplaceVariants.size(), 1u);  // sq_: the functional formula rewritten (torchgen's copy_)
  EXPECT_EQ(sq.inplaceVariants[0].forward[0].formula,
            "self_t_raw.defined() ? self_t_raw.copy_((2 * original_self_t.conj() * original_self_p).conj()) : "
            "(2 * original_self_t.conj() * original_self_p).conj()");
  EXPECT_EQ(sq.inplaceVariants[0].forward[0].tangentInputs, std::vector<std::string>{"self"});  // original_self_t
  // Of two occurrences one character apart, torchgen replaces the first: the second would not compile.
  EXPECT_EQ(errorOf("- name: sq(Tensor self) -> Tensor\n  self: grad*grad\n  result: auto_element_wise\n"),
            "derivatives.yaml:3:11: error: in 'sq': the forward formula names 'grad', which only backward formulas have "
            "(auto_element_wise replaces it as torchgen does, not where it directly follows another one: write grad * "
            "grad, not grad*grad)");
}

}  // namespace
}  // namespace opgen::model
