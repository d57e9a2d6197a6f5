// Loading native_functions.yaml: defaults and torchgen's rules on small inputs, and one test per
// class of broken input with its exact "FILE:LINE:COL: error: ..." line.
#include <gtest/gtest.h>

#include "model/Groups.h"
#include "model/Loader.h"

namespace opgen::model {
namespace {

const std::set<std::string> kTags = {"core", "pointwise", "view_copy", "inplace_view", "nondeterministic_seeded",
                                     "generated", "out", "inplace"};

struct Loaded {
  std::optional<Operators> ops;
  support::Diagnostics diags;
};

Loaded load(const std::string& yaml, LoadOptions options = {}) {
  Loaded r;
  r.ops = loadNativeFunctions("ops.yaml", yaml, kTags, options, r.diags);
  return r;
}

// The one error line a broken input must produce.
std::string errorOf(const std::string& yaml) {
  Loaded r = load(yaml);
  EXPECT_FALSE(r.ops.has_value()) << "expected an error for:\n" << yaml;
  return r.diags.all().empty() ? std::string("(no diagnostic)") : r.diags.all().front().str();
}

TEST(Loader, DefaultsAndCompositeImplicit) {
  Loaded r = load("- func: myops::foo(Tensor self, int dim=0) -> Tensor\n");
  ASSERT_TRUE(r.ops) << r.diags.str();
  ASSERT_EQ(r.ops->functions().size(), 1u);
  const NativeFunction& f = *r.ops->functions()[0];
  EXPECT_EQ(f.ns, "myops");
  EXPECT_TRUE(f.explicitNamespace);
  EXPECT_EQ(f.loc.str(), "ops.yaml:1");
  EXPECT_EQ(f.variants, std::set<Variant>{Variant::Function});
  EXPECT_TRUE(f.deviceGuard);
  EXPECT_EQ(f.deviceCheck, DeviceCheckType::ExactSame);
  EXPECT_TRUE(f.hasCompositeImplicitAutogradKernel);
  EXPECT_FALSE(f.isAbstract);
  const BackendMetadata* m = r.ops->index(DispatchKey::CompositeImplicitAutograd).find(f.func.name);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kernel, "foo");
  EXPECT_EQ(m->cppNamespace, "at::native");
}

TEST(Loader, DispatchTableWithNamespacesAndSharedKeys) {
  Loaded r = load(
      "- func: foo(Tensor self) -> Tensor\n"
      "  variants: function, method\n"
      "  dispatch:\n"
      "    CPU, CUDA: foo_kernel\n"
      "    Meta: myops::foo_meta\n"
      "    CompositeExplicitAutogradNonFunctional: a::b::c::foo_generic\n");
  ASSERT_TRUE(r.ops) << r.diags.str();
  const auto& name = r.ops->functions()[0]->func.name;
  EXPECT_EQ(r.ops->index(DispatchKey::CPU).find(name)->kernel, "foo_kernel");
  EXPECT_EQ(r.ops->index(DispatchKey::CUDA).find(name)->kernel, "foo_kernel");
  EXPECT_TRUE(r.ops->index(DispatchKey::CUDA).deviceGuard());
  EXPECT_FALSE(r.ops->index(DispatchKey::CPU).deviceGuard());
  EXPECT_EQ(r.ops->index(DispatchKey::Meta).find(name)->cppNamespace, "myops::native");
  EXPECT_EQ(r.ops->index(DispatchKey::CompositeExplicitAutogradNonFunctional).find(name)->cppNamespace, "a::b::c::native");
  EXPECT_TRUE(r.ops->functions()[0]->isAbstract);
}

TEST(Loader, AutogenMakesFunctionalAndOutVariants) {
  Loaded r = load(
      "- func: _bump_(Tensor(a!) self, int n) -> Tensor(a!)\n"
      "  dispatch:\n"
      "    CPU: bump_\n"
      "  autogen: _bump, _bump.out\n");
  ASSERT_TRUE(r.ops) << r.diags.str();
  ASSERT_EQ(r.ops->functions().size(), 3u);
  EXPECT_EQ(r.ops->functions()[1]->func.str(), "_bump.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(r.ops->functions()[2]->func.str(), "_bump(Tensor self, int n) -> Tensor");
  EXPECT_TRUE(r.ops->functions()[1]->generated());
  EXPECT_EQ(r.ops->index(DispatchKey::CompositeExplicitAutograd).find(r.ops->functions()[1]->func.name)->kernel, "_bump_out");
  ASSERT_EQ(r.ops->grouped().size(), 1u);
  EXPECT_TRUE(std::holds_alternative<NativeFunctionsGroup>(r.ops->grouped()[0]));
}

TEST(Loader, StructuredGroup) {
  Loaded r = load(
      "- func: sq.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
      "  structured: True\n"
      "  dispatch:\n"
      "    CPU: sq_out\n"
      "- func: sq(Tensor self) -> Tensor\n"
      "  structured_delegate: sq.out\n"
      "- func: sq_(Tensor(a!) self) -> Tensor(a!)\n"
      "  structured_delegate: sq.out\n");
  ASSERT_TRUE(r.ops) << r.diags.str();
  EXPECT_TRUE(r.ops->index(DispatchKey::CPU).find(r.ops->functions()[0]->func.name)->structured);
  ASSERT_EQ(r.ops->grouped().size(), 1u);
  const auto& g = std::get<NativeFunctionsGroup>(r.ops->grouped()[0]);
  EXPECT_TRUE(g.structured());
  EXPECT_EQ(g.inplace->func.name.str(), "sq_");
}

TEST(Loader, LegacyLintsAreWarningsInFilesThatUseDimname) {
  const std::string yaml =
      "- func: rand_like(Tensor self, Dimname d) -> Tensor\n"
      "  dispatch:\n"
      "    CompositeExplicitAutograd: rand_like\n";
  Loaded r = load(yaml);
  ASSERT_TRUE(r.ops) << r.diags.str();
  ASSERT_EQ(r.diags.all().size(), 1u);
  EXPECT_EQ(r.diags.all()[0].severity, support::Severity::Warning);
  LoadOptions strict;
  strict.edition = LoadOptions::Edition::Current;
  EXPECT_FALSE(load(yaml, strict).ops);
}

TEST(LoaderErrors, YamlSyntax) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  dispatch: [CPU\n"),
            "ops.yaml:3:1: error: invalid YAML: while parsing a flow sequence: did not find expected ',' or ']'");
}

TEST(LoaderErrors, NotAList) {
  EXPECT_EQ(errorOf("func: foo(Tensor self) -> Tensor\n"),
            "ops.yaml:1:1: error: native_functions.yaml must be a list of entries, not a mapping");
}

TEST(LoaderErrors, EntryNotAMapping) {
  EXPECT_EQ(errorOf("- foo(Tensor self) -> Tensor\n"),
            "ops.yaml:1:3: error: an entry must be a mapping with a 'func' key, not a string");
}

TEST(LoaderErrors, MissingFunc) {
  EXPECT_EQ(errorOf("- variants: function\n"), "ops.yaml:1:3: error: entry has no 'func' key");
}

TEST(LoaderErrors, UnknownKey) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  dispach:\n    CPU: foo\n"),
            "ops.yaml:2:3: error: in 'foo': unknown key 'dispach'");
}

TEST(LoaderErrors, FakeIsAnOperatorLibrarysKeyOnly) {
  // (torchgen has no `fake:`; opgen library accepts `fake: python`, LoadOptions::fakeKey)
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  fake: python\n"),
            "ops.yaml:2:3: error: in 'foo': unknown key 'fake'");
}

TEST(LoaderErrors, DuplicateKey) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  variants: function\n  variants: method\n"),
            "ops.yaml:3:3: error: in 'foo': duplicate key 'variants'");
}

TEST(LoaderErrors, BadSchemaType) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self, Tentor other) -> Tensor\n"),
            "ops.yaml:1:26: error: in 'foo': unrecognized type 'Tentor'");
}

TEST(LoaderErrors, BadSchemaShape) {
  EXPECT_EQ(errorOf("- func: myops::foo Tensor self\n"),
            "ops.yaml:1:16: error: in 'foo Tensor self': invalid function schema: expected 'NAME(ARGUMENTS) -> RETURNS'");
}

TEST(LoaderErrors, TooManyNamespaceLevels) {
  EXPECT_EQ(errorOf("- func: a::b::foo(Tensor self) -> Tensor\n"),
            "ops.yaml:1:9: error: in 'foo': codegen doesn't support more than 1 level(s) of custom namespace; got 'a::b'");
}

TEST(LoaderErrors, UnknownDispatchKey) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU, CUDAA: foo\n"),
            "ops.yaml:3:10: error: in 'foo': unknown dispatch key 'CUDAA'");
}

TEST(LoaderErrors, UnsupportedDispatchKey) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    Autograd: foo\n"),
            "ops.yaml:3:5: error: in 'foo': dispatch key Autograd of kernel foo is not a supported dispatch key");
}

TEST(LoaderErrors, NotABool) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  device_guard: maybe\n"),
            "ops.yaml:2:17: error: in 'foo': 'device_guard' must be a bool (True or False), not a string");
}

TEST(LoaderErrors, IllegalVariant) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  variants: function, methd\n"),
            "ops.yaml:2:23: error: in 'foo': illegal variant 'methd' (expected 'function' or 'method')");
}

TEST(LoaderErrors, IllegalTag) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  tags: [core, shiny]\n"),
            "ops.yaml:2:16: error: in 'foo': illegal tag 'shiny' (not declared in tags.yaml)");
}

TEST(LoaderErrors, TagWithoutTagsYaml) {
  Loaded r;
  r.ops = loadNativeFunctions("ops.yaml", "- func: foo(Tensor self) -> Tensor\n  tags: view_copy\n", {}, {}, r.diags);
  EXPECT_FALSE(r.ops.has_value());
  EXPECT_EQ(r.diags.str(),
            "ops.yaml:2:9: error: in 'foo': tag 'view_copy' used but tags.yaml declares no tags (a tags.yaml beside the "
            "YAML, or given with TAGS / --tags, declares each as `- tag: view_copy` with a `desc:`)\n");
}

TEST(LoaderErrors, StructuredDelegateNamesNothing) {
  EXPECT_EQ(errorOf("- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n"),
            "ops.yaml:2:24: error: in 'foo': marked as a structured_delegate pointing to foo.out, but foo.out is missing");
}

TEST(LoaderErrors, StructuredDelegateNotStructured) {
  EXPECT_EQ(errorOf("- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: foo_out\n"
                    "- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n"),
            "ops.yaml:5:24: error: in 'foo': marked as a structured_delegate pointing to foo.out, but foo.out is not "
            "marked as structured; consider adding 'structured: True' to the delegated operator");
}

TEST(LoaderErrors, InplaceNamingRule) {
  EXPECT_EQ(errorOf("- func: foo_(Tensor self) -> Tensor\n"),
            "ops.yaml:1:9: error: in 'foo_': inplace op foo_ must have a self argument with a mutable annotation");
}

TEST(LoaderErrors, InplaceViewNamingRule) {
  EXPECT_EQ(errorOf("- func: squeeze(Tensor(a) self) -> Tensor(a)\n  tags: inplace_view\n  dispatch:\n    CPU: squeeze\n"),
            "ops.yaml:2:9: error: in 'squeeze': marked with tag inplace_view, but it doesn't follow the naming convention "
            "for inplace ops: the base name must have a trailing underscore");
}

TEST(LoaderErrors, OutVariantWithMethod) {
  EXPECT_EQ(errorOf("- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  variants: function, method\n"),
            "ops.yaml:2:13: error: in 'foo.out': native functions with out arguments MUST be declared with only "
            "function variant; e.g., variants: function");
}

TEST(LoaderErrors, FactoryWithoutDispatch) {
  EXPECT_EQ(errorOf("- func: ones2(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                    "bool? pin_memory=None) -> Tensor\n"),
            "ops.yaml:1:9: error: in 'ones2': expected ones2 to have a CompositeExplicitAutograd dispatch entry, but "
            "there was no dispatch table; factory functions should not have implicit dispatch as they should not be "
            "decomposed for __torch_dispatch__");
}

TEST(LoaderErrors, MissingAutogen) {
  EXPECT_EQ(errorOf("- func: _bump_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: bump_\n  autogen: _bump.out\n"),
            "ops.yaml:4:12: error: in '_bump_': the codegen expects to be able to generate '_bump, _bump.out'; to do so, "
            "it expects a line 'autogen: _bump, _bump.out', but found 'autogen: _bump.out'");
}

}  // namespace
}  // namespace opgen::model

namespace opgen::model {
namespace {

std::string tagsErrorOf(const std::string& yaml) {
  support::Diagnostics diags;
  auto tags = loadTags("tags.yaml", yaml, diags);
  EXPECT_FALSE(tags.has_value()) << "expected an error for:\n" << yaml;
  return diags.all().empty() ? std::string("(no diagnostic)") : diags.all().front().str();
}

TEST(Tags, Loads) {
  support::Diagnostics diags;
  auto tags = loadTags("tags.yaml", "- tag: core\n  desc: Core.\n- tag: pointwise\n  desc: |\n    Elementwise.\n", diags);
  ASSERT_TRUE(tags) << diags.str();
  EXPECT_EQ(*tags, (std::set<std::string>{"core", "pointwise"}));
}

TEST(TagsErrors, MissingDescription) {
  EXPECT_EQ(tagsErrorOf("- tag: core\n- tag: pointwise\n  desc: x\n"),
            "tags.yaml:1:3: error: tag 'core' must have a non-empty description");
}

TEST(TagsErrors, NotAList) {
  EXPECT_EQ(tagsErrorOf("tag: core\ndesc: x\n"),
            "tags.yaml:1:1: error: tags.yaml must be a list of '- tag: NAME' entries, not a mapping");
}

TEST(TagsErrors, EntryWithoutTag) {
  EXPECT_EQ(tagsErrorOf("- desc: x\n"), "tags.yaml:1:3: error: a tags.yaml entry must be a mapping with a string 'tag' key");
}

}  // namespace
}  // namespace opgen::model
