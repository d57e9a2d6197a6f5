// CodeTemplate: torchgen's template semantics (torchgen/code_template.py). The expected strings were
// computed with the reference implementation; CodeTemplateDifferential re-checks against it live.
#include "support/CodeTemplate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "TestSupport.h"
#include "support/OutputSink.h"

namespace opgen::support {
namespace {

using List = std::vector<std::string>;

std::string render(std::string_view text, const TemplateEnv& env) {
  Diagnostics diags;
  std::optional<std::string> out = CodeTemplate(text, "t.in").substitute(env, diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  return out.value_or("<error>");
}

TEST(CodeTemplate, TorchgenMainExample) {
  const char* text =
      "    int foo($args) {\n"
      "\n"
      "        $bar\n"
      "            $bar\n"
      "        $a+$b\n"
      "    }\n"
      "    int commatest(int a${,stuff})\n"
      "    int notest(int a${,empty,})\n"
      "    ";
  TemplateEnv env;
  env.set("args", {"hi", "8"}).set("bar", {"what", "7"}).set("a", "3").set("b", "4");
  env.set("stuff", {"things...", "others"}).set("empty", List{});
  EXPECT_EQ(render(text, env),
            "    int foo(hi, 8) {\n"
            "\n"
            "        what\n"
            "        7\n"
            "            what\n"
            "            7\n"
            "        3+4\n"
            "    }\n"
            "    int commatest(int a, things..., others)\n"
            "    int notest(int a)\n"
            "    ");
}

TEST(CodeTemplate, InlineStringAndBracedName) {
  TemplateEnv env;
  env.set("a", "1").set("name", "add");
  EXPECT_EQ(render("x = $a; ${name}_out", env), "x = 1; add_out");
  EXPECT_EQ(render("$a", TemplateEnv().set("a", "")), "");
}

TEST(CodeTemplate, InlineListJoinsWithCommas) {
  EXPECT_EQ(render("x $a;\n", TemplateEnv().set("a", {"1", "2"})), "x 1, 2;\n");
  EXPECT_EQ(render("x $a;\n", TemplateEnv().set("a", {"only"})), "x only;\n");
}

TEST(CodeTemplate, CommaFormsWithNonEmptyList) {
  EXPECT_EQ(render("f(a${,xs}) g(${xs,}b) h(${,xs,}) i(${xs})", TemplateEnv().set("xs", {"p", "q"})),
            "f(a, p, q) g(p, q, b) h(, p, q, ) i(p, q)");
}

TEST(CodeTemplate, CommaFormsWithEmptyListAddNothing) {
  EXPECT_EQ(render("f(a${,xs}) g(${xs,}b) h(${,xs,}) i(${xs})", TemplateEnv().set("xs", {})),
            "f(a) g(b) h() i()");
}

TEST(CodeTemplate, CommaFormsIgnoredForStrings) {
  EXPECT_EQ(render("f(a${,s}) g(${s,}b) h(${,s,})", TemplateEnv().set("s", "x")), "f(ax) g(xb) h(x)");
  EXPECT_EQ(render("f(a${,s})", TemplateEnv().set("s", "")), "f(a)");
}

TEST(CodeTemplate, BlockPutsEachLineOnItsOwnIndentedLine) {
  TemplateEnv env;
  env.set("body", {"a;", "b;\nc;", "", "   ", "d;   ", "\n\ne;\n\n"});
  // "" has no lines; whitespace-only lines are not indented and end up empty.
  EXPECT_EQ(render("{\n  $body\n}\n", env), "{\n  a;\n  b;\n  c;\n\n  d;\n\n\n  e;\n}\n");
}

TEST(CodeTemplate, BlockStringIsOneElementList) {
  EXPECT_EQ(render("{\n    $body\n}\n", TemplateEnv().set("body", "x;\n\n  y;  \n\n")),
            "{\n    x;\n\n      y;\n}\n");
}

TEST(CodeTemplate, BlockEmptyListLeavesEmptyLine) {
  EXPECT_EQ(render("a\n  $x\nb\n", TemplateEnv().set("x", {})), "a\n\nb\n");
  EXPECT_EQ(render("a\n  $x\nb\n", TemplateEnv().set("x", "")), "a\n\nb\n");
  EXPECT_EQ(render("a\n  ${,x,}\nb\n", TemplateEnv().set("x", {"1", "2"})), "a\n  1\n  2\nb\n");
}

TEST(CodeTemplate, BlockAtColumnZero) {
  EXPECT_EQ(render("$x\nend", TemplateEnv().set("x", {"a", "b"})), "a\nb\nend");
  EXPECT_EQ(render("start\n${x}\nend", TemplateEnv().set("x", {"a", "b"})), "start\na\nb\nend");
}

TEST(CodeTemplate, BlockIndentedWithTabs) {
  EXPECT_EQ(render("\t\t$x\n", TemplateEnv().set("x", {"a", "\tb", "c\t"})), "\t\ta\n\t\t\tb\n\t\tc\n");
  EXPECT_EQ(render(" \t$x\n", TemplateEnv().set("x", {"a", "b"})), " \ta\n \tb\n");
}

TEST(CodeTemplate, OnlyLeadingPlaceholderIsBlock) {
  TemplateEnv env;
  env.set("a", {"1", "2"}).set("b", {"3", "4"});
  EXPECT_EQ(render("  $a $b\n", env), "  1\n  2 3, 4\n");
  EXPECT_EQ(render("$a$b\n", env), "1\n23, 4\n");
}

TEST(CodeTemplate, MultiLineStringInlineIsInsertedAsIs) {
  EXPECT_EQ(render("  int x = $v;\nint y = $v;\n", TemplateEnv().set("v", "a\nb\n")),
            "  int x = a\nb\n;\nint y = a\nb\n;\n");
}

TEST(CodeTemplate, DollarWithoutIdentifierIsLiteral) {
  EXPECT_EQ(render("$ $1 ${ ${1} ${,} ${x ${x,,} ${ x} $$x $", TemplateEnv().set("x", "X")),
            "$ $1 ${ ${1} ${,} ${x ${x,,} ${ x} $X $");
  EXPECT_EQ(render("cost: 5$", TemplateEnv()), "cost: 5$");
}

TEST(CodeTemplate, IdentifierIsLongestRun) {
  TemplateEnv env;
  env.set("a_b1c", "1").set("a", "2").set("_", "u");
  EXPECT_EQ(render("$a_b1c $a-b ${a}bc $_.", env), "1 2-b 2bc u.");
}

TEST(CodeTemplate, CrlfTemplateKeepsItsLineEnds) {
  // "\r\n" ends a line, so the placeholder after it is a block; the "\r\n" is kept.
  EXPECT_EQ(render("a\r\n  $x\r\nb", TemplateEnv().set("x", {"l1", "l2"})), "a\r\n  l1\n  l2\r\nb");
  // A lone "\r" does not start a line for the placeholder rule.
  EXPECT_EQ(render("a\r  $x", TemplateEnv().set("x", {"l1", "l2"})), "a\r  l1, l2");
}

TEST(CodeTemplate, BlockValueSplitsLikePythonSplitlines) {
  EXPECT_EQ(render("  $x\n", TemplateEnv().set("x", "l1\r\nl2\rl3\r\n")), "  l1\n  l2\n  l3\n");
  EXPECT_EQ(render("  $x\n", TemplateEnv().set("x", "a\vb\x1c" "c\u2028" "d\u0085" "e")),
            "  a\n  b\n  c\n  d\n  e\n");
}

TEST(CodeTemplate, UnicodeWhitespaceCountsAsPythonDoes) {
  // U+3000 is whitespace: a block indentation.
  EXPECT_EQ(render("\u3000$x\n", TemplateEnv().set("x", {"a", "b"})), "\u3000a\n\u3000b\n");
  // U+00A0 is stripped from line ends.
  EXPECT_EQ(render("  $x\n", TemplateEnv().set("x", {"a\u00a0", "\u00a0"})), "  a\n");
  // An indentation holding a form feed splits again there (as Python's second splitlines does).
  EXPECT_EQ(render(" \f $x\n", TemplateEnv().set("x", {"a", "b"})), "\n a\n\n b\n");
}

// Block items are classified many bytes at a time: a line break or a trailing blank must be found
// wherever it sits (first, last, across a chunk boundary), in items short and long.
TEST(CodeTemplate, BlockItemFindsBreaksAndTrailingBlanksAnywhere) {
  for (size_t size = 2; size <= 40; ++size) {
    for (size_t at = 0; at + 1 < size; ++at) {
      std::string item(size, 'a');
      std::string broken = item, expected = item;
      broken[at] = '\f';  // a line break for Python, not a '\n'
      expected[at] = '\n';
      const std::string where = "size " + std::to_string(size) + " at " + std::to_string(at);
      EXPECT_EQ(render("$x", TemplateEnv().set("x", List{broken})), expected) << where;
      if (at > 0) {
        EXPECT_EQ(render("  $x", TemplateEnv().set("x", List{broken})), "  " + expected.insert(at + 1, "  ")) << where;
      }
      if (at + 2 >= size) continue;
      std::string spaced = item;  // "a..a \na..a": the blank is stripped
      spaced[at] = ' ';
      spaced[at + 1] = '\n';
      std::string stripped = spaced;
      stripped.erase(at, 1);
      EXPECT_EQ(render("$x", TemplateEnv().set("x", List{spaced})), stripped) << where;
    }
  }
}

// A borrowed list (views of strings kept elsewhere) renders as the owned list of the same strings,
// inline and as a block, at any indentation, whatever its items hold.
TEST(CodeTemplate, BorrowedListRendersAsOwnedList) {
  const List items = {"a", "two\nlines", "", "trailing  \n", "tab\there", "form\ffeed", "x  ", "last\n"};
  const std::vector<std::string> templates = {"$xs", "  $xs\n", "\t$xs", "f(${xs})", "f(${,xs})", "f(${xs,}y)",
                                              "a\n  $xs\nb\n", "\f $xs"};
  for (size_t n = 0; n <= items.size(); ++n) {
    const List owned(items.begin(), items.begin() + n);
    const std::vector<std::string_view> views(owned.begin(), owned.end());
    for (const std::string& t : templates) {
      const std::string expected = render(t, TemplateEnv().set("xs", owned));
      EXPECT_EQ(render(t, TemplateEnv().set("xs", TemplateValue::borrowedList(views))), expected)
          << "template '" << t << "' with " << n << " items";
    }
  }
}

TEST(CodeTemplate, MissingVariableIsErrorAtDollar) {
  Diagnostics diags;
  CodeTemplate t("line one\n  foo($x, ${y});\n$y\n", "templates/Foo.h");
  EXPECT_EQ(t.substitute(TemplateEnv().set("x", "1"), diags), std::nullopt);
  ASSERT_EQ(diags.errorCount(), 1);  // once per name
  EXPECT_EQ(diags.all()[0].str(), "templates/Foo.h:2:11: error: template variable 'y' is not defined");
}

TEST(CodeTemplate, EveryMissingNameIsReportedInOrder) {
  Diagnostics diags;
  CodeTemplate t("\t$b\n$a ${,c,}", "T.cpp");
  EXPECT_EQ(t.substitute(TemplateEnv(), diags), std::nullopt);
  EXPECT_EQ(diags.str(),
            "T.cpp:1:2: error: template variable 'b' is not defined\n"
            "T.cpp:2:1: error: template variable 'a' is not defined\n"
            "T.cpp:2:4: error: template variable 'c' is not defined\n");
}

TEST(CodeTemplate, ParsedOnceRenderedManyTimes) {
  CodeTemplate t("// $name\n  $body\n", "x");
  Diagnostics diags;
  EXPECT_EQ(t.substitute(TemplateEnv().set("name", "a").set("body", {"1"}), diags), "// a\n  1\n");
  EXPECT_EQ(t.substitute(TemplateEnv().set("name", "b").set("body", {"2", "3"}), diags), "// b\n  2\n  3\n");
  EXPECT_FALSE(diags.hasErrors());
  EXPECT_EQ(t.variables(), (List{"name", "body"}));
}

TEST(CodeTemplate, CopiedTemplateRendersTheSame) {
  std::optional<CodeTemplate> copy;
  {
    CodeTemplate t("short $x", "x");
    copy = t;
  }
  Diagnostics diags;
  EXPECT_EQ(copy->substitute(TemplateEnv().set("x", "y"), diags), "short y");
}

TEST(CodeTemplate, EnvSetReplacesAndFinds) {
  TemplateEnv env;
  env.set("k", "v").set("k", {"a", "b"});
  ASSERT_NE(env.find("k"), nullptr);
  EXPECT_TRUE(env.find("k")->isList());
  EXPECT_EQ(env.find("k")->items(), (List{"a", "b"}));
  EXPECT_EQ(env.find("missing"), nullptr);
  EXPECT_FALSE(env.set("s", "x").find("s")->isList());
  EXPECT_TRUE(env.set("e", {}).find("e")->isList());
}

class CodeTemplateFile : public ::testing::Test {
 protected:
  std::string writeFile(const std::string& name, const std::string& content) {
    test::writeFile(tmp_ / name, content);
    return (tmp_ / name).string();
  }
  test::TempDir tmp_{"opgen-codetemplate"};
};

TEST_F(CodeTemplateFile, ReadsLikePythonTextMode) {
  // open() in text mode turns "\r\n" and "\r" into "\n" before torchgen sees the template.
  std::string path = writeFile("t.h", "a\r\n  $x\rb\r\n");
  Diagnostics diags;
  std::optional<CodeTemplate> t = CodeTemplate::fromFile(path, diags);
  ASSERT_TRUE(t) << diags.str();
  EXPECT_EQ(t->filename(), path);
  EXPECT_EQ(t->substitute(TemplateEnv().set("x", {"1", "2"}), diags), "a\n  1\n  2\nb\n");
}

TEST_F(CodeTemplateFile, ErrorNamesTheFile) {
  std::string path = writeFile("t.h", "\n\n   ${missing}");
  Diagnostics diags;
  std::optional<CodeTemplate> t = CodeTemplate::fromFile(path, diags);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->substitute(TemplateEnv(), diags), std::nullopt);
  EXPECT_EQ(diags.str(), path + ":3:4: error: template variable 'missing' is not defined\n");
}

TEST_F(CodeTemplateFile, UnreadableFileIsError) {
  std::string path = (tmp_ / "absent.h").string();
  Diagnostics diags;
  EXPECT_FALSE(CodeTemplate::fromFile(path, diags));
  EXPECT_EQ(diags.str(), path + ": error: cannot read template: No such file or directory\n");
}

TEST_F(CodeTemplateFile, RecordsInputForDepfile) {
  std::string path = writeFile("t.h", "$x");
  Diagnostics diags;
  InputFiles inputs(diags);
  ASSERT_TRUE(CodeTemplate::fromFile(path, inputs));
  EXPECT_EQ(inputs.paths(), List{path});
}

// --- Differential: the same cases through torchgen's own CodeTemplate -------------------------

struct DiffCase {
  std::string text;
  std::vector<std::pair<std::string, TemplateValue>> vars;
};

TemplateValue S(std::string s) { return TemplateValue(std::move(s)); }
TemplateValue L(List items) { return TemplateValue(std::move(items)); }

std::vector<DiffCase> differentialCases() {
  return {
      {"    int foo($args) {\n\n        $bar\n            $bar\n        $a+$b\n    }\n"
       "    int commatest(int a${,stuff})\n    int notest(int a${,empty,})\n    ",
       {{"args", L({"hi", "8"})}, {"bar", L({"what", "7"})}, {"a", S("3")}, {"b", S("4")},
        {"stuff", L({"things...", "others"})}, {"empty", L({})}}},
      {"f(a${,xs}) g(${xs,}b) h(${,xs,}) i(${xs})", {{"xs", L({"p", "q"})}}},
      {"f(a${,xs}) g(${xs,}b) h(${,xs,}) i(${xs})", {{"xs", L({})}}},
      {"f(a${,s}) g(${s,}b) h(${,s,})", {{"s", S("x")}}},
      {"{\n  $body\n}\n", {{"body", L({"a;", "b;\nc;", "", "   ", "d;   ", "\n\ne;\n\n"})}}},
      {"{\n    $body\n}\n", {{"body", S("x;\n\n  y;  \n\n")}}},
      {"a\n  $x\nb\n", {{"x", L({})}}},
      {"$x\nend", {{"x", L({"a", "b"})}}},
      {"\t\t$x\n", {{"x", L({"a", "\tb", "c\t"})}}},
      {"  $a $b\n$a$b\n", {{"a", L({"1", "2"})}, {"b", L({"3", "4"})}}},
      {"  int x = $v;\nint y = $v;\n", {{"v", S("a\nb\n")}}},
      {"$ $1 ${ ${1} ${,} ${x ${x,,} ${ x} $$x $", {{"x", S("X")}}},
      {"$a_b1c $a-b ${a}bc $_.", {{"a_b1c", S("1")}, {"a", S("2")}, {"_", S("u")}}},
      {"a\r\n  $x\r\nb\r  $x", {{"x", L({"l1", "l2"})}}},
      {"  $x\n", {{"x", S("l1\r\nl2\rl3\r\n")}}},
      {"\u3000$x\n\u00e9 $x\n", {{"x", L({"a", "b"})}}},
      {"  $x\n", {{"x", L({"a\u00a0", "\u00a0", "b \u2003"})}}},
      {" \f $x\n\u0085$x\n\x1f\x1c$x", {{"x", L({"a", "b"})}}},
      {"  $x\n", {{"x", S("a\vb\x1c" "c\u2028" "d\u0085" "e\f")}}},
      {"  $x  \n  $y", {{"x", S("  lead\n\ttab\n")}, {"y", L({" a ", "b  \n  "})}}},
      {"x\n\t \t${,xs,}\ty\n", {{"xs", L({"1", "2"})}}},
      {"$x $y", {{"x", S("1")}}},  // torchgen: KeyError
  };
}

// Reads [{"text" or "file": ..., "env": {...}}] and writes torchgen's results (null for KeyError).
constexpr std::string_view kReferenceScript = R"py(
import json, sys
from torchgen.code_template import CodeTemplate
with open(sys.argv[1], encoding="utf-8") as f:
    cases = json.load(f)
results = []
for case in cases:
    t = CodeTemplate.from_file(case["file"]) if "file" in case else CodeTemplate(case["text"])
    try:
        results.append(t.substitute(case["env"]))
    except KeyError:
        results.append(None)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(results, f)
)py";

nlohmann::json toJson(const TemplateEnv& env, const std::vector<std::string>& names) {
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& name : names) {
    if (const TemplateValue* value = env.find(name)) {
      out[name] = value->isList() ? nlohmann::json(value->items()) : nlohmann::json(value->text());
    }
  }
  return out;
}

// torchgen's output for each case, via the reference runner.
nlohmann::json torchgenResults(const test::Reference& ref, const nlohmann::json& cases) {
  test::TempDir tmp("opgen-codetemplate");
  test::writeFile(tmp / "script.py", std::string(kReferenceScript));
  test::writeFile(tmp / "in.json", cases.dump());
  const test::ProcessResult run =
      ref.python({(tmp / "script.py").string(), (tmp / "in.json").string(), (tmp / "out.json").string()});
  EXPECT_TRUE(run.ok()) << run.describe();
  return run.ok() ? nlohmann::json::parse(test::readFile(tmp / "out.json")) : nlohmann::json::array();
}

void expectSameResult(const std::optional<std::string>& actual, const Diagnostics& diags,
                      const nlohmann::json& expected, const std::string& what) {
  if (expected.is_null()) {
    EXPECT_EQ(actual, std::nullopt) << what << ": torchgen raised KeyError";
    EXPECT_TRUE(diags.hasErrors()) << what;
  } else {
    EXPECT_EQ(actual, expected.get<std::string>()) << what;
  }
}

TEST(CodeTemplateDifferential, TrickyCasesMatchTorchgen) {
  const test::Reference& ref = test::reference();
  OPGEN_REQUIRE_REFERENCE();

  const std::vector<DiffCase> cases = differentialCases();
  std::vector<TemplateEnv> envs;
  nlohmann::json input = nlohmann::json::array();
  for (const DiffCase& c : cases) {
    TemplateEnv& env = envs.emplace_back();
    std::vector<std::string> names;
    for (const auto& [name, value] : c.vars) {
      env.set(name, value);
      names.push_back(name);
    }
    input.push_back({{"text", c.text}, {"env", toJson(env, names)}});
  }
  const nlohmann::json expected = torchgenResults(ref, input);
  ASSERT_EQ(expected.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    Diagnostics diags;
    std::optional<std::string> actual = CodeTemplate(cases[i].text, "case").substitute(envs[i], diags);
    expectSameResult(actual, diags, expected[i], "case " + std::to_string(i) + " " + nlohmann::json(cases[i].text).dump());
  }
}

// Every template torchgen ships (ATen and autograd), each variable given a value that exercises
// the block and comma rules: lists with multi-line, blank and trailing-space items, empty lists,
// multi-line strings.
TEST(CodeTemplateDifferential, ShippedTemplatesMatchTorchgen) {
  const test::Reference& ref = test::reference();
  OPGEN_REQUIRE_REFERENCE();

  std::vector<std::string> files;
  for (const auto& dir : {ref.atenTemplates(), ref.root / "torchgen/packaged/autograd/templates"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 40u);

  const std::vector<TemplateValue> samples = {
      TemplateValue(List{"first();", "  nested\n    deeper();  ", "", "\n", "last(); // end  \n\n", " \t "}),
      TemplateValue("one\n  two  \n"),
      TemplateValue(List{}),
      TemplateValue(List{"a", "b"}),
      TemplateValue("plain"),
  };
  std::vector<CodeTemplate> templates;
  std::vector<TemplateEnv> envs;
  nlohmann::json input = nlohmann::json::array();
  for (const std::string& file : files) {
    Diagnostics diags;
    std::optional<CodeTemplate> t = CodeTemplate::fromFile(file, diags);
    ASSERT_TRUE(t) << diags.str();
    const std::vector<std::string> names = t->variables();
    TemplateEnv& env = envs.emplace_back();
    for (size_t i = 0; i < names.size(); ++i) env.set(names[i], samples[i % samples.size()]);
    input.push_back({{"file", file}, {"env", toJson(env, names)}});
    templates.push_back(std::move(*t));
  }
  const nlohmann::json expected = torchgenResults(ref, input);
  ASSERT_EQ(expected.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    Diagnostics diags;
    expectSameResult(templates[i].substitute(envs[i], diags), diags, expected[i], files[i]);
  }
}

}  // namespace
}  // namespace opgen::support
