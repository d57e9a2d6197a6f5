// Conformance of opgen's reading of ATen's derivatives.yaml (api/DifferentiabilityInfo.h) with torchgen's
// load_derivatives (the reference, torchgen 2.14.1): both readings are printed as the same JSON (every
// field of every DifferentiabilityInfo, per entry and dispatch key; tool/test/reference/dump_derivatives.py
// for the reference) and compared entry by entry. Inputs: PyTorch 2.14.1's derivatives.yaml, native_functions.yaml
// and tags.yaml; the same with entries removed and changed at test time; and entries both refuse (opgen
// with one located error).
//
// Run:  build/tool/test/opgen_tests --gtest_filter='DerivativesConformance*'
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "api/DifferentiabilityInfo.h"
#include "model/Loader.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using opgen::test::ProcessResult;
using opgen::test::readFile;
using opgen::test::reference;
using opgen::test::TempDir;
using opgen::test::writeFile;
namespace ad = opgen::api::autograd;

fs::path packaged() { return reference().root / "torchgen/packaged"; }
fs::path nativeFunctions() { return packaged() / "ATen/native/native_functions.yaml"; }
fs::path tags() { return packaged() / "ATen/native/tags.yaml"; }
fs::path atenDerivatives() { return packaged() / "autograd/derivatives.yaml"; }

json saved(const std::vector<ad::SavedAttribute>& attrs) {
  json out = json::array();
  for (const ad::SavedAttribute& a : attrs) out.push_back({a.name(), a.nctype.cppType(), a.expr});
  return out;
}

json sortedList(std::vector<std::string> xs) {
  std::sort(xs.begin(), xs.end());
  return xs;
}

json infoJson(const ad::DifferentiabilityInfo& info) {
  json derivatives = json::array(), forward = json::array(), args = json::array();
  for (const ad::Derivative& d : info.derivatives)
    derivatives.push_back({{"formula", d.formula},
                           {"original_formula", d.originalFormula},
                           {"var_names", d.varNames},
                           {"saved_inputs", saved(d.savedInputs)},
                           {"saved_outputs", saved(d.savedOutputs)},
                           {"named_gradients", std::vector<std::string>(d.namedGradients.begin(), d.namedGradients.end())}});
  for (const ad::ForwardDerivative& f : info.forwardDerivatives) {
    std::vector<std::string> types;
    for (const opgen::model::Type& t : f.varTypes) types.push_back(t.str());
    forward.push_back({{"formula", f.formula},
                       {"var_names", f.varNames},
                       {"var_types", types},
                       {"required_inputs_fw_grad", sortedList(f.requiredInputsFwGrad)},
                       {"required_inputs_primal", sortedList(f.requiredInputsPrimal)}});
  }
  for (const opgen::api::Binding& b : info.argsWithDerivatives) args.push_back({b.name, b.type()});
  json j = {{"name", info.name},
            {"func", info.func->func.str()},
            {"op", info.op ? json(*info.op) : json(nullptr)},
            {"derivatives", derivatives},
            {"forward_derivatives", forward},
            {"all_saved_inputs", saved(info.allSavedInputs)},
            {"all_saved_outputs", saved(info.allSavedOutputs)},
            {"available_named_gradients", info.availableNamedGradients},
            {"used_named_gradients", std::vector<std::string>(info.usedNamedGradients.begin(), info.usedNamedGradients.end())},
            {"args_with_derivatives", args},
            {"non_differentiable_arg_names", info.nonDifferentiableArgNames},
            {"output_differentiability", info.outputDifferentiability ? json(*info.outputDifferentiability) : json(nullptr)},
            {"output_differentiability_conditions",
             info.outputDifferentiabilityConditions ? json(*info.outputDifferentiabilityConditions) : json(nullptr)}};
  return j;
}

struct OpgenResult {
  std::optional<json> dump;
  std::string errors;
};

OpgenResult loadWithOpgen(const fs::path& derivatives) {
  opgen::support::Diagnostics diags;
  auto validTags = opgen::model::loadTags(tags().string(), readFile(tags()), diags);
  if (!validTags) return {std::nullopt, diags.str()};
  auto ops = opgen::model::loadNativeFunctions(nativeFunctions().string(), readFile(nativeFunctions()), *validTags,
                                               opgen::model::LoadOptions{}, diags);
  if (!ops) return {std::nullopt, diags.str()};
  auto loaded = ad::loadAtenDerivatives(derivatives.string(), readFile(derivatives), *ops, diags);
  if (!loaded) return {std::nullopt, diags.str()};
  json entries = json::array();
  for (const ad::DerivativesEntry& e : loaded->entries) {
    json byKey = json::array();
    for (const auto& [key, info] : e.byKey) byKey.push_back({key, infoJson(info)});
    entries.push_back({e.canonical->func.str(), byKey});
  }
  json out = {{"used_dispatch_keys", std::vector<std::string>(loaded->usedDispatchKeys.begin(), loaded->usedDispatchKeys.end())},
              {"entries", entries}};
  return {out, diags.str()};
}

ProcessResult dumpWithReference(const fs::path& derivatives) {
  return reference().python({(fs::path(OPGEN_TEST_SCRIPTS) / "dump_derivatives.py").string(), derivatives.string(),
                             nativeFunctions().string(), tags().string()});
}

#define REQUIRE_REFERENCE()                                          \
  do {                                                               \
    if (!reference().available) GTEST_SKIP() << reference().problem; \
  } while (0)

void conform(const fs::path& derivatives) {
  ProcessResult ref = dumpWithReference(derivatives);
  ASSERT_TRUE(ref.ok()) << "the reference failed: " << ref.describe();
  const json expected = json::parse(ref.out);
  OpgenResult opg = loadWithOpgen(derivatives);
  ASSERT_TRUE(opg.dump) << opg.errors;
  EXPECT_EQ(expected["used_dispatch_keys"], (*opg.dump)["used_dispatch_keys"]);
  const json& want = expected["entries"];
  const json& got = (*opg.dump)["entries"];
  EXPECT_EQ(want.size(), got.size()) << "a different number of entries";
  EXPECT_FALSE(want.empty()) << "the reference read no entry";
  int reported = 0;
  for (std::size_t i = 0; i < std::min(want.size(), got.size()) && reported < 5; ++i)
    if (want[i] != got[i]) {
      ++reported;
      ADD_FAILURE() << "entry " << i << " differs:\nreference: " << want[i].dump(1) << "\nopgen: " << got[i].dump(1);
    }
}

TEST(DerivativesConformance, Aten) {
  REQUIRE_REFERENCE();
  conform(atenDerivatives());
}

// Entries removed (every third) and changed at test time: node counters, view copies and in-place-only
// entries shift, formulas with named gradients, dispatch keys and output_differentiability conditions.
TEST(DerivativesConformance, AtenEdited) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-derivatives-edited");
  const std::string text = readFile(atenDerivatives());
  std::string edited;
  std::size_t entry = 0, from = 0;
  while (from < text.size()) {
    std::size_t next = text.find("\n- name:", from + 1);
    if (next == std::string::npos) next = text.size();
    std::string chunk = text.substr(from, next - from);
    const bool isEntry = chunk.find("- name:") != std::string::npos;
    if (!isEntry || entry++ % 3 != 1) edited += chunk;
    from = next;
  }
  edited += "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n"
            "  dispatch:\n    AutogradCUDA:\n      self: grad.sym_size(-1) * self.sym_numel() + zeros_like(self)\n"
            "      result: auto_element_wise\n";
  writeFile(dir / "derivatives.yaml", edited);
  conform(dir / "derivatives.yaml");
}

struct Refusal {
  const char* name;
  const char* yaml;  // appended to ATen's derivatives.yaml
  const char* message;
};

class DerivativesRefusal : public ::testing::TestWithParam<Refusal> {};

TEST_P(DerivativesRefusal, BothRefuse) {
  REQUIRE_REFERENCE();
  const Refusal& r = GetParam();
  TempDir dir("opgen-derivatives-refusal");
  writeFile(dir / "derivatives.yaml", readFile(atenDerivatives()) + r.yaml);
  ProcessResult ref = dumpWithReference(dir / "derivatives.yaml");
  EXPECT_FALSE(ref.ok()) << "the reference accepted the input";
  OpgenResult opg = loadWithOpgen(dir / "derivatives.yaml");
  EXPECT_FALSE(opg.dump) << "opgen accepted the input";
  EXPECT_EQ(opg.errors.find('\n'), opg.errors.size() - 1) << "expected one line:\n" << opg.errors;
  EXPECT_NE(opg.errors.find("derivatives.yaml:"), std::string::npos) << opg.errors;
  EXPECT_NE(opg.errors.find(": error: "), std::string::npos) << opg.errors;
  EXPECT_NE(opg.errors.find(r.message), std::string::npos) << opg.errors;
}

INSTANTIATE_TEST_SUITE_P(
    DerivativesConformance, DerivativesRefusal,
    ::testing::Values(
        Refusal{"UnknownSchema", "\n- name: frobnicate(Tensor self) -> Tensor\n  self: grad\n", "could not find ATen function"},
        Refusal{"SizesCall", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  self: grad.expand(self.sizes())\n",
                ".sizes() is not supported"},
        Refusal{"GradsOutOfBounds", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  self: grads[1]\n",
                "Out of bounds grads access"},
        Refusal{"OnlyGrads0", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  self: grads[0] * 2\n",
                "solely refers to 'grads[0]'"},
        Refusal{"MixedGrads", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  self: grad + grads[0]\n",
                "illegally mixes use of 'grad' and 'grads'"},
        Refusal{"BadDispatchKey", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  dispatch:\n    CPU:\n      self: grad\n",
                "Invalid dispatch key CPU"},
        Refusal{"AmbiguousForward", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  self: grad\n  result: self * 2\n",
                "is using the base name of the self argument"},
        Refusal{"UnknownOutput", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  self: grad\n  output: self_t\n",
                "No matching output"},
        Refusal{"Overlap", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  self: grad\n  self , self: non_differentiable\n",
                "overlapped non_differentiable"},
        Refusal{"ConditionsForSeveral", "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n  output_differentiability: [\"a\", \"b\"]\n  self: grad\n",
                "output_differentiability must either be"}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

}  // namespace
