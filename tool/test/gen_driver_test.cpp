// Unit tests of `opgen gen`'s driver layer without the reference: the command line (argparse's rules),
// torchgen's path spelling, the FileManager (templates, generated_comment, the docstring fix-up,
// sharding, dry runs, duplicate writes, output lists), the selective-build selector, and a whole run
// into memory. The comparison with torchgen itself is gen_conformance_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "MemoryOutputDirs.h"
#include "TestSupport.h"
#include "dest/aten/RegisterSchema.h"
#include "gen/FileManager.h"
#include "gen/Gen.h"
#include "gen/GenOptions.h"
#include "gen/PurePath.h"
#include "gen/Selector.h"
#include "support/Sharding.h"

namespace {

namespace fs = std::filesystem;
using namespace opgen;

// ---------------------------------------------------------------------------------------------------
// Command line

std::string refusal(const std::vector<std::string>& args) {
  auto r = gen::parseGenCommandLine(args);
  return r ? std::string("(accepted)") : r.error().message;
}

TEST(GenOptions, Defaults) {
  auto o = gen::parseGenCommandLine({});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->sourcePath, "aten/src/ATen");
  EXPECT_EQ(o->installDir, "build/aten/src/ATen");
  EXPECT_EQ(o->aotiInstallDir, "torch/csrc/inductor/aoti_torch/generated");
  EXPECT_FALSE(o->headeronlyInstallDir);
  EXPECT_FALSE(o->outputDependencies);
  EXPECT_EQ(o->generate, (std::vector<std::string>{"headers", "sources", "declarations_yaml"}));
  EXPECT_FALSE(o->opRegistrationWhitelist);
  EXPECT_FALSE(o->dryRun);
}

TEST(GenOptions, SpellingsOfValues) {
  auto o = gen::parseGenCommandLine({"-sSRC", "--install-dir=OUT", "--aoti_install_dir", "AOTI", "-o", "d.cmake",
                                     "--headeronly-i", "H", "--per", "--dry", "--backend-whitelist", "CPU", "CUDA",
                                     "--static-dispatch-backend", "--generate", "headers", "headers", "-d", "-1"});
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->sourcePath, "SRC");
  EXPECT_EQ(o->installDir, "-1");  // last occurrence wins; a negative number is a value
  EXPECT_EQ(o->aotiInstallDir, "AOTI");
  EXPECT_EQ(*o->outputDependencies, "d.cmake");
  EXPECT_EQ(*o->headeronlyInstallDir, "H");
  EXPECT_TRUE(o->perOperatorHeaders);
  EXPECT_TRUE(o->dryRun);
  EXPECT_EQ(*o->backendWhitelist, (std::vector<std::string>{"CPU", "CUDA"}));
  EXPECT_TRUE(o->staticDispatchBackend && o->staticDispatchBackend->empty());
  EXPECT_EQ(o->generate, (std::vector<std::string>{"headers", "headers"}));
}

TEST(GenOptions, Refusals) {
  EXPECT_EQ(refusal({"--foo", "bar"}), "unrecognized arguments: --foo bar");
  EXPECT_EQ(refusal({"--install", "x"}), "ambiguous option: --install could match --install-dir, --install_dir");
  EXPECT_EQ(refusal({"--he"}), "ambiguous option: --he could match --help, --headeronly-install-dir, --headeronly_install_dir");
  EXPECT_EQ(refusal({"--dry-run=1"}), "argument --dry-run: ignored explicit argument '1'");
  EXPECT_EQ(refusal({"-hx"}), "argument -h/--help: ignored explicit argument 'x'");
  EXPECT_EQ(refusal({"-d"}), "argument -d/--install-dir/--install_dir: expected one argument");
  EXPECT_EQ(refusal({"-d", "--rocm"}), "argument -d/--install-dir/--install_dir: expected one argument");
  EXPECT_EQ(refusal({"-d", "--", "x"}), "argument -d/--install-dir/--install_dir: expected one argument");
  EXPECT_EQ(refusal({"--generate", "headers", "all"}),
            "argument --generate: invalid choice: 'all' (choose from 'headers', 'sources', 'declarations_yaml')");
  EXPECT_EQ(refusal({"--generate=headers", "sources"}), "unrecognized arguments: sources");
  EXPECT_EQ(refusal({"--", "-d", "x"}), "unrecognized arguments: -- -d x");
  // Ambiguity is found before anything acts, even after --help.
  EXPECT_EQ(refusal({"--help", "--op"}).rfind("ambiguous option: --op could match", 0), 0u);
}

TEST(GenOptions, HelpActsWhenReached) {
  auto o = gen::parseGenCommandLine({"--help", "--no-such-option"});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->help);
  EXPECT_EQ(refusal({"--generate", "x", "--help"}).rfind("argument --generate: invalid choice", 0), 0u);
}

TEST(GenOptions, ChecksAfterParsing) {
  auto both = gen::parseGenCommandLine({"--op-registration-whitelist", "aten::add", "--op-selection-yaml-path", "s.yaml"});
  ASSERT_TRUE(both);
  EXPECT_TRUE(gen::checkGenOptions(*both));
  auto key = gen::parseGenCommandLine({"--static-dispatch-backend", "CPU", "Nope"});
  ASSERT_TRUE(key);
  EXPECT_EQ(gen::checkGenOptions(*key).value_or(""), "argument --static-dispatch-backend: unknown dispatch key 'Nope'");
  auto fine = gen::parseGenCommandLine({"--static-dispatch-backend", "CPU", "CatchAll"});
  ASSERT_TRUE(fine);
  EXPECT_FALSE(gen::checkGenOptions(*fine));
  EXPECT_EQ(fine->staticDispatchKeys(), (std::vector<model::DispatchKey>{model::DispatchKey::CPU, model::DispatchKey::Undefined}));
}

// ---------------------------------------------------------------------------------------------------
// Paths as pathlib spells them

TEST(PurePath, Spelling) {
  EXPECT_EQ(gen::purePath("a//b/./c/"), "a/b/c");
  EXPECT_EQ(gen::purePath("./x"), "x");
  EXPECT_EQ(gen::purePath(""), ".");
  EXPECT_EQ(gen::purePath("../x/.."), "../x/..");
  EXPECT_EQ(gen::purePath("//a"), "//a");
  EXPECT_EQ(gen::purePath("///a"), "/a");
  EXPECT_EQ(gen::joinPurePath(".", "a.h"), "a.h");
  EXPECT_EQ(gen::joinPurePath("out/", "core/a.h"), "out/core/a.h");
  // Already pure directories and names (joined as they are), and the cases next to them.
  EXPECT_EQ(gen::purePath("a/b.h"), "a/b.h");
  EXPECT_EQ(gen::purePath("/"), "/");
  EXPECT_EQ(gen::purePath("a/."), "a");
  EXPECT_EQ(gen::purePath("a/.b/.."), "a/.b/..");
  EXPECT_EQ(gen::joinPurePath("/out/aten", "ops/add.h"), "/out/aten/ops/add.h");
  EXPECT_EQ(gen::joinPurePath("/", "a.h"), "/a.h");
  EXPECT_EQ(gen::joinPurePath("out", "."), "out");
  EXPECT_EQ(gen::joinPurePath("out", "./a.h"), "out/a.h");
  EXPECT_EQ(gen::joinPurePath("out", "a//b.h"), "out/a/b.h");
  EXPECT_EQ(gen::joinPurePath("out", "/abs/a.h"), "/abs/a.h");
  EXPECT_EQ(gen::osPathJoin("src/", "native/x"), "src/native/x");
  EXPECT_EQ(gen::osPathJoin("", "native/x"), "native/x");
  EXPECT_EQ(gen::pathStem("deps.cmake"), "deps");
  EXPECT_EQ(gen::pathStem("a.b.cmake"), "a.b");
  EXPECT_EQ(gen::pathStem(".cmake"), ".cmake");
  EXPECT_EQ(gen::pathStem("deps."), "deps.");
  EXPECT_EQ(gen::pathWithStem("dir/RegisterCPU.cpp", "RegisterCPU_0"), "dir/RegisterCPU_0.cpp");
  EXPECT_TRUE(gen::purePathLess("a/b", "a-b"));  // component order, not string order
  EXPECT_TRUE(gen::purePathLess("a/b", "a/b.h"));
  EXPECT_FALSE(gen::purePathLess("a.b/c", "a-b"));
}

// ---------------------------------------------------------------------------------------------------
// FileManager

TEST(FileManager, DocstringSpacing) {
  // Expected values are Python's re.sub with torchgen's pattern.
  EXPECT_EQ(gen::fixDocstringSpacing("a\"\"\"\ndef f"), "a\"\"\"\n\ndef f");
  EXPECT_EQ(gen::fixDocstringSpacing("x\"\"\"\n\n\n\n  @dec(1)\n  @other\n  class C"),
            "x\"\"\"\n\n  @dec(1)\n  @other\n  class C");
  EXPECT_EQ(gen::fixDocstringSpacing("\"\"\"\n@\ndef"), "\"\"\"\n@\ndef");
  EXPECT_EQ(gen::fixDocstringSpacing("\"\"\"\"\ndefault"), "\"\"\"\"\n\ndefault");
  EXPECT_EQ(gen::fixDocstringSpacing("\"\"\"x\ndef"), "\"\"\"x\ndef");
  EXPECT_EQ(gen::fixDocstringSpacing("\"\"\"\n@a\n\"\"\"\n\ndef g"), "\"\"\"\n@a\n\"\"\"\n\ndef g");
  EXPECT_EQ(gen::fixDocstringSpacing("\"\"\"\n@dec"), "\"\"\"\n@dec");
  EXPECT_EQ(gen::fixDocstringSpacing("no quotes"), "no quotes");
}

struct FileManagerFixture : testing::Test {
  test::TempDir templates{"opgen-fm-templates"};
  support::Diagnostics diags;
  test::MemoryOutputDirs outputs{diags};
  gen::TemplateCache cache{diags};

  void SetUp() override {
    test::writeFile(templates / "T.h", "// ${generated_comment}\n${body}\n");
    test::writeFile(templates / "S.cpp", "// ${shard_id} ${generated_comment}\n  ${items}\n${fixed}\n");
  }
  gen::FileManager make(bool dryRun, const std::string& dir = "out/./x/") {
    return gen::FileManager(dir, templates.path().string(), dryRun, cache, outputs, diags);
  }
};

TEST_F(FileManagerFixture, WritesWithGeneratedComment) {
  gen::FileManager fm = make(false);
  fm.write("T.h", [] { return support::TemplateEnv().set("body", std::vector<std::string>{"a", "b"}); });
  fm.writeWithTemplate("sub/U.h", "T.h", [] {
    return support::TemplateEnv().set("body", "u").set("generated_comment", "mine");
  });
  fm.writeText("plain.txt", [] { return std::string("verbatim ${x}"); });
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(*outputs.find("out/x", "T.h"), "// @generated by torchgen/gen.py from T.h\na\nb\n");
  EXPECT_EQ(*outputs.find("out/x", "sub/U.h"), "// mine\nu\n");
  EXPECT_EQ(*outputs.find("out/x", "plain.txt"), "verbatim ${x}");
  EXPECT_EQ(fm.filenames(), (std::vector<std::string>{"out/x/T.h", "out/x/plain.txt", "out/x/sub/U.h"}));
  EXPECT_EQ(fm.outputsList("deps"),
            "set(\ndeps\n    \"out/x/T.h\"\n    \"out/x/plain.txt\"\n    \"out/x/sub/U.h\"\n)");
}

TEST_F(FileManagerFixture, DuplicateWriteIsAnError) {
  gen::FileManager fm = make(true);
  fm.write("T.h", [] { return support::TemplateEnv(); });
  EXPECT_FALSE(diags.hasErrors());
  fm.write("./T.h", [] { return support::TemplateEnv(); });
  EXPECT_TRUE(diags.hasErrors());
}

TEST_F(FileManagerFixture, DryRunRecordsWithoutRenderingOrReading) {
  gen::FileManager fm = make(true);
  bool called = false;
  fm.write("Missing.h", [&] {
    called = true;
    return support::TemplateEnv();
  });
  EXPECT_FALSE(called);
  EXPECT_FALSE(diags.hasErrors());
  EXPECT_TRUE(outputs.sinks().empty());
  EXPECT_EQ(fm.outputsList("v"), "set(\nv\n    \"out/x/Missing.h\"\n)");
}

TEST_F(FileManagerFixture, Sharding) {
  gen::FileManager fm = make(false, "o");
  const std::vector<std::string> items = {"add", "mul", "sub", "div", "abs"};
  dest::Sharded spec{"S.cpp", "S.cpp", 2, {{"fixed", support::TemplateValue("F")}, {"items", support::TemplateValue(std::vector<std::string>{"base"})}}, {"items"}};
  fm.writeSharded(spec, items, [](const std::string& s) { return s; },
                  [](const std::string& s) { return dest::ShardEnv{{"items", {s}}}; });
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  std::string expected[2] = {"base", "base"};
  for (const std::string& item : items) expected[support::shardOf(item, 2)] += "\n  " + item;
  EXPECT_EQ(*outputs.find("o", "S_0.cpp"), "// _0 @generated by torchgen/gen.py from S.cpp\n  " + expected[0] + "\nF\n");
  EXPECT_EQ(*outputs.find("o", "S_1.cpp"), "// _1 @generated by torchgen/gen.py from S.cpp\n  " + expected[1] + "\nF\n");
  EXPECT_EQ(*outputs.find("o", "SEverything.cpp"),
            "// Everything @generated by torchgen/gen.py from S.cpp\n  base\n  add\n  mul\n  sub\n  div\n  abs\nF\n");
  // The Everything file is written but not listed.
  EXPECT_EQ(fm.filenames(), (std::vector<std::string>{"o/S_0.cpp", "o/S_1.cpp"}));
}

// With one shard, Everything and _0 get every item: one text when the template does not show the
// shard's id (rendered once), two when it does.
TEST_F(FileManagerFixture, OneShard) {
  gen::FileManager fm = make(false, "o");
  const std::vector<std::string> items = {"add", "mul"};
  auto key = [](const std::string& s) { return s; };
  auto env = [](const std::string& s) { return dest::ShardEnv{{"body", {s}}}; };
  fm.writeSharded(dest::Sharded{"U.h", "T.h", 1, {}, {"body"}}, items, key, env);
  fm.writeSharded(dest::Sharded{"S.cpp", "S.cpp", 1, {{"fixed", support::TemplateValue("F")}}, {"items"}}, items,
                  key, [](const std::string& s) { return dest::ShardEnv{{"items", {s}}}; });
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  const std::string text = "// @generated by torchgen/gen.py from T.h\nadd\nmul\n";
  EXPECT_EQ(*outputs.find("o", "UEverything.h"), text);
  EXPECT_EQ(*outputs.find("o", "U_0.h"), text);
  EXPECT_EQ(*outputs.find("o", "SEverything.cpp"), "// Everything @generated by torchgen/gen.py from S.cpp\n  add\n  mul\nF\n");
  EXPECT_EQ(*outputs.find("o", "S_0.cpp"), "// _0 @generated by torchgen/gen.py from S.cpp\n  add\n  mul\nF\n");
  EXPECT_EQ(fm.filenames(), (std::vector<std::string>{"o/S_0.cpp", "o/U_0.h"}));
}

TEST_F(FileManagerFixture, UndeclaredShardedKey) {
  gen::FileManager fm = make(false, "o");
  dest::Sharded spec{"S.cpp", "S.cpp", 1, {}, {"items"}};
  fm.writeSharded(spec, std::vector<std::string>{"a"}, [](const std::string& s) { return s; },
                  [](const std::string&) { return dest::ShardEnv{{"other", {"x"}}}; });
  EXPECT_TRUE(diags.hasErrors());
}

// ---------------------------------------------------------------------------------------------------
// Selective build

TEST(Selector, LegacyAllowListSelectsAllOverloads) {
  auto s = gen::SelectiveBuilder::fromLegacyAllowList({"aten::add", "aten::mul.Tensor"}, true, false);
  EXPECT_FALSE(s.includesAllOperators());
  EXPECT_TRUE(s.isOperatorSelected("aten::add"));
  EXPECT_TRUE(s.isOperatorSelected("aten::add.Tensor"));
  EXPECT_TRUE(s.isOperatorSelected("aten::mul.Tensor"));
  EXPECT_FALSE(s.isOperatorSelected("aten::mul.Scalar"));
  EXPECT_FALSE(s.isOperatorSelected("aten::sub"));
}

TEST(Selector, FromYaml) {
  support::Diagnostics diags;
  auto s = gen::SelectiveBuilder::fromYamlText(R"(
operators:
  aten::add:
    is_root_operator: false
    include_all_overloads: true
  aten::mul.Tensor:
    is_used_for_training: false
    include_all_overloads: false
  aten::sub:
    include_all_overloads: false
kernel_metadata:
  k: [Float]
)", "sel.yaml", diags);
  ASSERT_TRUE(s) << diags.str();
  EXPECT_TRUE(s->isOperatorSelected("aten::add.Tensor"));
  EXPECT_TRUE(s->isOperatorSelected("aten::mul.Tensor"));
  EXPECT_FALSE(s->operators().at("aten::mul.Tensor").isUsedForTraining);
  EXPECT_TRUE(s->isOperatorSelected("aten::sub"));
  EXPECT_FALSE(s->isOperatorSelected("aten::sub.Tensor"));
}

TEST(Selector, YamlErrorsHaveLocations) {
  support::Diagnostics diags;
  EXPECT_FALSE(gen::SelectiveBuilder::fromYamlText("operators:\n  aten::add:\n    is_root: true\n", "s.yaml", diags));
  EXPECT_EQ(diags.str(), "s.yaml:3:5: error: operator 'aten::add': unexpected key 'is_root'\n");
  support::Diagnostics d2;
  EXPECT_FALSE(gen::SelectiveBuilder::fromYamlText("include_all_operators: maybe\n", "s.yaml", d2));
  EXPECT_NE(d2.str().find("s.yaml:1:24: error: 'include_all_operators' must be a bool"), std::string::npos) << d2.str();
  support::Diagnostics d3;
  EXPECT_FALSE(gen::SelectiveBuilder::fromYamlText("what: 1\n", "s.yaml", d3));
  EXPECT_EQ(d3.str(), "s.yaml:1:1: error: unexpected top level key 'what'\n");
}

// ---------------------------------------------------------------------------------------------------
// A whole run into memory

TEST(GenRun, SmallLibraryIntoMemory) {
  OPGEN_REQUIRE_REFERENCE();  // for the ATen templates
  test::TempDir src("opgen-genrun");
  test::writeFile(src / "native/native_functions.yaml",
                  "- func: myops::foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo\n  tags: core\n"
                  "- func: bar(Tensor self) -> Tensor\n");
  test::writeFile(src / "native/tags.yaml", "- tag: core\n  desc: Core.\n- tag: pt2_compliant_tag\n  desc: PT2.\n");
  fs::create_directory_symlink(test::reference().atenTemplates(), src / "templates");
  auto options = gen::parseGenCommandLine({"-s", src.path().string(), "-d", "out", "--generate", "sources"});
  ASSERT_TRUE(options);
  support::Diagnostics diags;
  test::MemoryOutputDirs outputs(diags);
  gen::GenReport report;
  ASSERT_TRUE(gen::runGen(*options, outputs, diags, report)) << diags.str();
  const std::string* schema = outputs.find("out", "RegisterSchema.cpp");
  ASSERT_NE(schema, nullptr);
  EXPECT_NE(schema->find("  const std::vector<at::Tag> tags_0 = {at::Tag::pt2_compliant_tag};\n"
                         "  m.def(\"bar(Tensor self) -> Tensor\", tags_0);;\n"),
            std::string::npos) << *schema;
  EXPECT_NE(schema->find("\nTORCH_LIBRARY(myops, m) {\n  const std::vector<at::Tag> tags_0 = {at::Tag::core};\n"
                         "m.def(\"foo(Tensor self) -> Tensor\", tags_0);\n\n};\n"),
            std::string::npos) << *schema;
  EXPECT_NE(outputs.find("out/core", "ATenOpList.cpp"), nullptr);
  EXPECT_EQ(outputs.find("out/core", "enum_tag.h"), nullptr);  // a header: not with --generate sources
  EXPECT_EQ(outputs.directories(), (std::set<std::string>{"out/core", "out/ops", "torch/csrc/inductor/aoti_torch/generated"}));
  // Only source families run.
  for (const gen::FamilyInfo& f : gen::genFamilies()) {
    if (f.generate != "sources") {
      EXPECT_EQ(std::count(report.emittedFamilies.begin(), report.emittedFamilies.end(), f.name), 0) << f.name;
    }
  }
  EXPECT_EQ(std::count(report.emittedFamilies.begin(), report.emittedFamilies.end(), "RegisterSchema.cpp"), 1);
}

TEST(GenRun, FamilyTableNamesEachFamilyOnce) {
  std::set<std::string> names;
  for (const auto& f : gen::genFamilies()) {
    EXPECT_TRUE(names.insert(std::string(f.name)).second) << f.name;
    EXPECT_TRUE(f.generate == "sources" || f.generate == "headers" || f.generate == "declarations_yaml");
  }
}

}  // namespace
