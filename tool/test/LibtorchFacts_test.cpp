// The facts about a libtorch that generated code depends on (api::LibtorchFacts): how
// --torch-version and --torch-facts choose them, and that each fact changes the text it is about
// (and only where a libtorch with or without it needs another text).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "TestSupport.h"
#include "api/Types.h"

namespace {

using namespace opgen::test;
using opgen::api::LibtorchChoice;
using opgen::api::LibtorchFacts;
using opgen::api::Spelling;

TEST(LibtorchFacts, TheDefaultIsTheLatestRelease) {
  EXPECT_EQ(LibtorchFacts{}, LibtorchFacts::ofVersion(2, 14));
  EXPECT_EQ(LibtorchFacts{}, LibtorchChoice{}.facts());
  // A major alone: its last release.
  LibtorchChoice two;
  EXPECT_EQ(two.setVersion("2"), "");
  EXPECT_EQ(two.facts(), LibtorchFacts{});
  LibtorchChoice one;
  EXPECT_EQ(one.setVersion("1"), "");
  EXPECT_EQ(one.facts(), LibtorchFacts::ofVersion(1, 13));
}

// Each fact is named once, and the table's rows only ever gain a fact with the version (named
// tensors: only ever lose it), so that a version between two tested ones gets an earlier or later
// row's answer, never a mix of facts that no release had.
TEST(LibtorchFacts, NamesAndTableRowsAreConsistent) {
  std::set<std::string_view> names;
  for (const auto& [name, member] : LibtorchFacts::names()) EXPECT_TRUE(names.insert(name).second) << name;
  EXPECT_EQ(names.size(), sizeof(LibtorchFacts) / sizeof(bool));
  LibtorchFacts previous = LibtorchFacts::ofVersion(1, 13);
  for (int minor = 0; minor <= 14; ++minor) {
    const LibtorchFacts row = LibtorchFacts::ofVersion(2, minor);
    for (const auto& [name, member] : LibtorchFacts::names()) {
      if (member == &LibtorchFacts::namedTensors) {
        EXPECT_LE(row.*member, previous.*member) << "2." << minor << ": " << name;
      } else {
        EXPECT_GE(row.*member, previous.*member) << "2." << minor << ": " << name;
      }
    }
    previous = row;
  }
}

// at::Tag's enumerators: the version's row (2.6 has no `inplace`/`out`), unless --torch-tags gives
// those of the libtorch's own enum_tag.h; a bad list is refused.
TEST(LibtorchFacts, TagsAreTheVersionsUnlessGiven) {
  LibtorchChoice latest, v26, v113, given;
  const auto has = [](const std::vector<std::string>& tags, const std::string& tag) {
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
  };
  EXPECT_TRUE(has(latest.tags(), "inplace") && has(latest.tags(), "out") && has(latest.tags(), "pt2_compliant_tag"));
  EXPECT_EQ(v26.setVersion("2.6"), "");
  EXPECT_TRUE(has(v26.tags(), "pt2_compliant_tag"));
  EXPECT_FALSE(has(v26.tags(), "inplace") || has(v26.tags(), "out"));
  EXPECT_EQ(v113.setVersion("1.13"), "");
  EXPECT_FALSE(has(v113.tags(), "pt2_compliant_tag"));
  EXPECT_EQ(given.setTags("view_copy,core,out"), "");
  EXPECT_EQ(given.tags(), (std::vector<std::string>{"core", "out", "view_copy"}));
  EXPECT_NE(given.setTags("core,,out"), "");
  EXPECT_NE(given.setTags("core;out"), "");
  for (const auto* table : {&latest.tags(), &v26.tags(), &v113.tags()})
    EXPECT_TRUE(std::is_sorted(table->begin(), table->end()));
}

TEST(LibtorchFacts, GivenFactsOverrideTheVersionInEitherOrder) {
  LibtorchChoice a, b;
  EXPECT_EQ(a.addFacts("intrusive-nodes=0,named-tensors=1"), "");
  EXPECT_EQ(a.setVersion("2.14.1"), "");
  EXPECT_EQ(b.setVersion("2.14"), "");
  EXPECT_EQ(b.addFacts("intrusive-nodes=0"), "");
  EXPECT_EQ(b.addFacts("named-tensors=1"), "");
  EXPECT_EQ(a.facts(), b.facts());
  EXPECT_FALSE(a.facts().intrusiveNodes);
  EXPECT_TRUE(a.facts().namedTensors);
  EXPECT_TRUE(a.facts().stdOptional);

  LibtorchChoice bad;
  EXPECT_NE(bad.addFacts("intrusive-nodes").find("needs NAME=0 or NAME=1, not 'intrusive-nodes'"), std::string::npos);
  EXPECT_NE(bad.addFacts("shiny=1").find("no fact named 'shiny' (known: std-optional, "), std::string::npos);
  EXPECT_NE(bad.addFacts("std-optional=1,").find("not ''"), std::string::npos);
  EXPECT_NE(bad.setVersion("two").find("needs a version like 1.13 or 2"), std::string::npos);
  EXPECT_NE(bad.setVersion("2.x").find("needs a version like 1.13 or 2"), std::string::npos);
}

TEST(LibtorchFacts, SpellingsFollowTheirFactsAlone) {
  LibtorchFacts f;
  f.stdOptional = false;
  EXPECT_EQ(Spelling::of(f).optional, "c10::optional");
  EXPECT_EQ(Spelling::of(f).fromIntArrayRefSlow, "c10::fromIntArrayRefSlow");
  EXPECT_EQ(Spelling::of(f).nodePointer, "c10::intrusive_ptr");
  f = LibtorchFacts{};
  f.intrusiveNodes = false;
  EXPECT_EQ(Spelling::of(f).optional, "::std::optional");
  EXPECT_EQ(Spelling::of(f).nodePointer, "std::shared_ptr");
  EXPECT_EQ(Spelling::of(f).thisNode, "shared_from_this()");
  f = LibtorchFacts{};
  f.slowIntArrayRefNames = false;
  EXPECT_EQ(Spelling::of(f).asIntArrayRefSlow, "c10::asIntArrayRefSlow");
  EXPECT_EQ(Spelling::of(f).nullopt, "::std::nullopt");
}

// Through the binary: a structured operator with a derivative and a view, generated for the libtorch
// facts of 2.14 and of 2.6/2.11 (named tensors, shared-pointer nodes) and 2.2 (no ViewFunc yet).
constexpr const char* kOps = R"(- func: demo::axpby.out(Tensor self, Tensor other, float a, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: axpby_out_cpu

- func: demo::axpby(Tensor self, Tensor other, float a) -> Tensor
  structured_delegate: axpby.out

- func: demo::first_row(Tensor(a) self) -> Tensor(a)
  dispatch:
    CPU: first_row_cpu

- func: demo::first_row_copy(Tensor self) -> Tensor
  tags: view_copy
  dispatch:
    CPU: first_row_copy_cpu
)";
constexpr const char* kTags = R"(- tag: view_copy
  desc: A view operator's copy variant.
)";
constexpr const char* kDerivatives = R"(- name: axpby(Tensor self, Tensor other, float a) -> Tensor
  self: grad * a
  other: grad

- name: first_row(Tensor(a) self) -> Tensor(a)
  self: grad
)";

struct Generated {
  ProcessResult result;
  std::string registerCpu, registerAutograd, registerSchema;
};

Generated generate(const TempDir& dir, std::vector<std::string> extra) {
  writeFile(dir.path() / "ops.yaml", kOps);
  writeFile(dir.path() / "derivatives.yaml", kDerivatives);
  writeFile(dir.path() / "tags.yaml", kTags);
  const fs::path out = dir.path() / "out";
  std::vector<std::string> argv = {opgenBinary().string(), "library", (dir.path() / "ops.yaml").string(), "-o",
                                   out.string(), "--backend", "CPU", "--derivatives",
                                   (dir.path() / "derivatives.yaml").string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Generated g{runProcess(argv), "", "", ""};
  if (g.result.ok()) {
    g.registerCpu = readFile(out / "src/RegisterCPU.cpp");
    g.registerAutograd = readFile(out / "src/RegisterAutograd.cpp");
    g.registerSchema = readFile(out / "src/RegisterSchema.cpp");
  }
  return g;
}

TEST(LibtorchFacts, EachFactChangesItsText) {
  TempDir dir;
  const Generated latest = generate(dir, {});
  ASSERT_TRUE(latest.result.ok()) << latest.result.describe();
  // 2.14: no names in set_output_*, intrusive nodes, ViewFunc.
  EXPECT_EQ(latest.registerCpu.find("DimnameList"), std::string::npos) << latest.registerCpu;
  EXPECT_EQ(latest.registerCpu.find("NamedTensorUtils"), std::string::npos);
  EXPECT_NE(latest.registerAutograd.find("c10::intrusive_ptr<"), std::string::npos) << latest.registerAutograd;
  EXPECT_NE(latest.registerAutograd.find("OpgenViewFunc"), std::string::npos);

  // pip's 2.11 as its headers say (what the CMake functions pass): names, shared nodes.
  const Generated v211 = generate(dir, {"--torch-version", "2.11.0", "--torch-facts", "named-tensors=1,intrusive-nodes=0"});
  ASSERT_TRUE(v211.result.ok()) << v211.result.describe();
  EXPECT_NE(v211.registerCpu.find("TensorOptions options, DimnameList names"), std::string::npos) << v211.registerCpu;
  EXPECT_NE(v211.registerCpu.find("namedinference::propagate_names("), std::string::npos);
  EXPECT_NE(v211.registerCpu.find("#include <ATen/NamedTensorUtils.h>"), std::string::npos);
  EXPECT_NE(v211.registerCpu.find("::std::optional"), std::string::npos);
  EXPECT_EQ(v211.registerAutograd.find("intrusive_ptr"), std::string::npos) << v211.registerAutograd;
  EXPECT_NE(v211.registerAutograd.find("std::shared_ptr<"), std::string::npos);
  EXPECT_NE(v211.registerAutograd.find("OpgenViewFunc"), std::string::npos);
  // The table's row for 2.6 (Debian trixie) is the same.
  const Generated v26 = generate(dir, {"--torch-version", "2.6"});
  ASSERT_TRUE(v26.result.ok()) << v26.result.describe();
  EXPECT_EQ(v26.registerCpu, v211.registerCpu);
  EXPECT_EQ(v26.registerAutograd, v211.registerAutograd);

  // Before ViewFunc, with a reverse replay (the facts of a libtorch between the two changes): a
  // std::function replay and a null reverse one.
  const Generated between = generate(dir, {"--torch-version", "2.6", "--torch-facts", "view-funcs=0"});
  ASSERT_TRUE(between.result.ok()) << between.result.describe();
  EXPECT_EQ(between.registerAutograd.find("OpgenViewFunc"), std::string::npos);
  EXPECT_NE(between.registerAutograd.find("std::move(func), /*rev_view_func=*/nullptr, creation_meta)"), std::string::npos)
      << between.registerAutograd;
  const Generated v22 = generate(dir, {"--torch-version", "2.2"});
  ASSERT_TRUE(v22.result.ok()) << v22.result.describe();
  EXPECT_NE(v22.registerAutograd.find("std::move(func), creation_meta)"), std::string::npos) << v22.registerAutograd;
  // 2.0 and 2.1: c10's own optional.
  const Generated v21 = generate(dir, {"--torch-version", "2.1"});
  ASSERT_TRUE(v21.result.ok()) << v21.result.describe();
  EXPECT_EQ(v21.registerCpu.find("std::optional"), std::string::npos) << v21.registerCpu;
  EXPECT_NE(v21.registerCpu.find("std::array<c10::optional<Tensor>, 1> proxy_outputs_;"), std::string::npos) << v21.registerCpu;

  // The view's Functionalize kernel: its ViewMeta a subclass (2.14), or two replays told
  // has_symbolic_inputs (2.6), or not (1.13); only these facts change it.
  const std::string subclass = "struct first_row_ViewMeta final : public at::functionalization::ViewMeta {";
  const std::string replays = "at::functionalization::ViewMeta view_meta(";
  EXPECT_NE(latest.registerSchema.find(subclass), std::string::npos) << latest.registerSchema;
  EXPECT_EQ(latest.registerSchema.find(replays), std::string::npos);
  EXPECT_EQ(v26.registerSchema.find(subclass), std::string::npos) << v26.registerSchema;
  EXPECT_NE(v26.registerSchema.find("return replay->reverse(base, mutated_view);\n      }, has_symbolic_inputs);"),
            std::string::npos)
      << v26.registerSchema;
  const Generated v113 = generate(dir, {"--torch-version", "1.13"});
  ASSERT_TRUE(v113.result.ok()) << v113.result.describe();
  EXPECT_NE(v113.registerSchema.find("return replay->reverse(base, mutated_view);\n      });"), std::string::npos)
      << v113.registerSchema;
  const Generated v26NoSymbolic = generate(dir, {"--torch-version", "2.6", "--torch-facts", "view-meta-symbolic-inputs=0"});
  ASSERT_TRUE(v26NoSymbolic.result.ok()) << v26NoSymbolic.result.describe();
  EXPECT_NE(v26NoSymbolic.registerSchema.find("return replay->reverse(base, mutated_view);\n      });"), std::string::npos);
  const Generated latestAsReplays = generate(dir, {"--torch-facts", "view-meta-classes=0"});
  ASSERT_TRUE(latestAsReplays.result.ok()) << latestAsReplays.result.describe();
  const auto kernels = [](const std::string& schema) {  // (the tags registered differ: 2.6 has no `out`)
    return schema.substr(schema.find("namespace demo::native {"));
  };
  EXPECT_EQ(kernels(latestAsReplays.registerSchema), kernels(v26.registerSchema));

  const Generated bad = generate(dir, {"--torch-facts", "named_tensors=1"});
  EXPECT_EQ(bad.result.exitCode, 2);
  EXPECT_NE(bad.result.err.find("--torch-facts no fact named 'named_tensors'"), std::string::npos) << bad.result.err;
}

}  // namespace
