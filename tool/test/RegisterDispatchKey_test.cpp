// The kernels of a dispatch key (dest/common/RegisterDispatchKey, dest/common/StructuredKernels) on small
// inputs: what each of torchgen's targets gets, selection, and the errors torchgen raises. Byte equality
// with torchgen on whole files is gen_conformance_test.cpp's job; snippets (support/CodeText) are tested
// here too.
#include <gtest/gtest.h>

#include <stdexcept>

#include "dest/common/RegisterDispatchKey.h"
#include "gen/Selector.h"
#include "model/Loader.h"
#include "support/CodeText.h"

namespace opgen::dest {
namespace {

using model::DispatchKey;
using support::appendSnippet;
using support::fillSnippet;

TEST(CodeText, ReplacesPlaceholdersAndDollars) {
  EXPECT_EQ(fillSnippet("$ret$ $name$($args$) costs $$1", {{"ret", "int"}, {"name", "f"}, {"args", "int a"}}),
            "int f(int a) costs $1");
  // Values are inserted as they are, never scanned for placeholders.
  EXPECT_EQ(fillSnippet("[$x$]", {{"x", "$y$"}}), "[$y$]");
  std::string out = "a";
  appendSnippet(out, "-$b$", {{"b", "c"}});
  EXPECT_EQ(out, "a-c");
}

TEST(CodeText, MissingValueIsABug) {
  EXPECT_THROW(fillSnippet("$missing$", {}), std::logic_error);
  EXPECT_THROW(fillSnippet("$open", {}), std::logic_error);
}

struct Fixture {
  std::optional<model::Operators> ops;
  support::Diagnostics diags;
  gen::SelectiveBuilder all = gen::SelectiveBuilder::selectAll();
  ApiTable api;

  explicit Fixture(const std::string& yaml) {
    ops = model::loadNativeFunctions("ops.yaml", yaml, {"core", "generated", "view_copy"}, {}, diags);
  }
  EmitContext context(const OperatorSelector& selector) {
    return EmitContext{.ops = *ops,
                       .selector = selector,
                       .allOperators = all,
                       .dispatchKeys = {},
                       .functionsKeys = {},
                       .staticDispatchIndices = {},
                       .aotiBackends = {},
                       .diags = diags,
                       .api = api};
  }
  KernelCode emit(DispatchKey key, KernelTargets targets, const OperatorSelector* selector = nullptr) {
    EmitContext ctx = context(selector ? *selector : all);
    RegisterDispatchKeyEmitter emitter(ctx, ctx.backendIndex(key), targets);
    KernelCode code;
    for (const model::FunctionOrGroup& item : ops->grouped()) emitter.emit(item, code);
    return code;
  }
};

constexpr KernelTargets kEverything{.declarations = true, .definitions = true};

TEST(RegisterDispatchKey, UnstructuredKernel) {
  Fixture fx("- func: myops::foo(Tensor self, int dim=0) -> Tensor\n"
             "  dispatch:\n"
             "    CPU: foo_cpu\n");
  ASSERT_TRUE(fx.ops) << fx.diags.str();
  KernelCode code = fx.emit(DispatchKey::CPU, kEverything);
  ASSERT_EQ(code.anonymousDefinitions.size(), 1u);
  EXPECT_NE(code.anonymousDefinitions[0].find("at::Tensor wrapper_CPU__foo(const at::Tensor & self, int64_t dim) {"),
            std::string::npos)
      << code.anonymousDefinitions[0];
  EXPECT_NE(code.anonymousDefinitions[0].find("return at::native::foo_cpu(self, dim);"), std::string::npos);
  EXPECT_EQ(code.namespacedDeclarations, std::vector<std::string>{"TORCH_API at::Tensor foo(const at::Tensor & self, int64_t dim=0);\n"});
  ASSERT_EQ(code.namespacedDefinitions.size(), 1u);
  EXPECT_EQ(code.namespacedDefinitions[0],
            "\nat::Tensor foo(const at::Tensor & self, int64_t dim) {\nreturn wrapper_CPU__foo(self, dim);\n}\n");
  EXPECT_EQ(code.registrations, std::vector<std::string>{"m.impl(\"foo\",\nTORCH_FN(wrapper_CPU__foo));\n"});
  // Another key has nothing for it.
  KernelCode cuda = fx.emit(DispatchKey::CUDA, kEverything);
  EXPECT_TRUE(cuda.anonymousDefinitions.empty() && cuda.namespacedDeclarations.empty());
}

TEST(RegisterDispatchKey, OnlyTheTargetsAskedFor) {
  Fixture fx("- func: foo(Tensor self) -> Tensor\n"
             "  dispatch:\n"
             "    CPU: foo_cpu\n");
  ASSERT_TRUE(fx.ops) << fx.diags.str();
  KernelCode declarations = fx.emit(DispatchKey::CPU, {.declarations = true});
  EXPECT_EQ(declarations.namespacedDeclarations.size(), 1u);
  EXPECT_TRUE(declarations.anonymousDefinitions.empty() && declarations.registrations.empty() &&
              declarations.namespacedDefinitions.empty());
}

TEST(RegisterDispatchKey, UnselectedOperatorsAreDefinedButNotRegistered) {
  Fixture fx("- func: foo(Tensor self) -> Tensor\n"
             "  dispatch:\n"
             "    CPU: foo_cpu\n"
             "- func: bar(Tensor self) -> Tensor\n"
             "  dispatch:\n"
             "    CPU: bar_cpu\n");
  ASSERT_TRUE(fx.ops) << fx.diags.str();
  const gen::SelectiveBuilder onlyFoo = gen::SelectiveBuilder::fromLegacyAllowList({"aten::foo"}, true, false);
  KernelCode code = fx.emit(DispatchKey::CPU, kEverything, &onlyFoo);
  EXPECT_EQ(code.anonymousDefinitions.size(), 2u);
  EXPECT_EQ(code.registrations, std::vector<std::string>{"m.impl(\"foo\",\nTORCH_FN(wrapper_CPU__foo));\n"});
}

// Meta and CompositeExplicitAutogradNonFunctional need a kernel somewhere to have an index (torchgen's
// backend_indices is a defaultdict whose default has the key Undefined).
constexpr const char* kOtherKeys =
    "- func: other(Tensor self) -> Tensor\n"
    "  dispatch:\n"
    "    Meta: other_meta\n"
    "    CompositeExplicitAutogradNonFunctional: other_generic\n";

constexpr const char* kStructured =
    "- func: myop(Tensor self) -> Tensor\n"
    "  structured_delegate: myop.out\n"
    "- func: myop.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
    "  structured: True\n"
    "  dispatch:\n"
    "    CPU: myop_out\n";

TEST(RegisterDispatchKey, StructuredGroupGetsClassesPerKind) {
  Fixture fx(std::string(kStructured) + kOtherKeys);
  ASSERT_TRUE(fx.ops) << fx.diags.str();
  KernelCode cpu = fx.emit(DispatchKey::CPU, kEverything);
  ASSERT_EQ(cpu.anonymousDefinitions.size(), 2u);  // functional, out
  EXPECT_EQ(cpu.anonymousDefinitions[0].rfind("struct structured_myop_out_functional final : public "
                                              "at::native::structured_myop_out {",
                                              0),
            0u)
      << cpu.anonymousDefinitions[0];
  EXPECT_NE(cpu.anonymousDefinitions[1].find("structured_myop_out_out op(out);"), std::string::npos);
  EXPECT_EQ(cpu.registrations[0], "m.impl(\"myop\", TORCH_FN(wrapper_CPU_myop));");
  // Meta gets generated kernels that only run meta(); CompositeExplicitAutogradNonFunctional gets a
  // functional kernel calling the out= function, and no out= kernel.
  KernelCode meta = fx.emit(DispatchKey::Meta, kEverything);
  ASSERT_EQ(meta.anonymousDefinitions.size(), 3u);  // myop, myop.out, other
  EXPECT_EQ(meta.anonymousDefinitions[0].rfind("struct structured_myop_meta_functional final : public "
                                               "at::meta::structured_myop {",
                                               0),
            0u)
      << meta.anonymousDefinitions[0];
  EXPECT_EQ(meta.anonymousDefinitions[0].find("op.impl("), std::string::npos);
  KernelCode generic = fx.emit(DispatchKey::CompositeExplicitAutogradNonFunctional, kEverything);
  ASSERT_EQ(generic.anonymousDefinitions.size(), 2u);  // myop, other
  EXPECT_NE(generic.anonymousDefinitions[0].find("at::myop_outf(self, op.outputs_[0]);"), std::string::npos)
      << generic.anonymousDefinitions[0];
}

TEST(RegisterDispatchKey, ExplicitMetaKernelOnStructuredGroupIsAnError) {
  Fixture fx(std::string(kStructured) + "    Meta: myop_meta\n");  // Meta's index exists
  ASSERT_TRUE(fx.ops) << fx.diags.str();
  KernelCode code = fx.emit(DispatchKey::Meta, kEverything);
  EXPECT_TRUE(code.anonymousDefinitions.empty());
  ASSERT_EQ(fx.diags.errorCount(), 1);
  EXPECT_EQ(fx.diags.all()[0].str(),
            "ops.yaml:3:3: error: in 'myop.out': Do not explicitly specify Meta dispatch key on structured "
            "functions, they will be automatically generated for you");
}

TEST(RegisterDispatchKey, MetaInplaceWithoutKernelChecksItsArgument) {
  Fixture fx(std::string("- func: foo_(Tensor(a!) self) -> Tensor(a!)\n"
                         "  dispatch:\n"
                         "    CPU: foo_cpu_\n") +
             kOtherKeys);
  ASSERT_TRUE(fx.ops) << fx.diags.str();
  KernelCode code = fx.emit(DispatchKey::Meta, kEverything);
  ASSERT_EQ(code.anonymousDefinitions.size(), 2u);  // foo_, other
  EXPECT_NE(code.anonymousDefinitions[0].find("TORCH_CHECK_NOT_IMPLEMENTED(self.is_meta(),"), std::string::npos);
}

}  // namespace
}  // namespace opgen::dest
