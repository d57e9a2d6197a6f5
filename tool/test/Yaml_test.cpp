// support/Yaml: the tree libyaml's events give must be the tree a second, independent parser
// (yaml-cpp) gives for the same text -- kinds, texts, plainness, positions -- on small cases, the
// test data and PyTorch's operator files; errors carry their position.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <sstream>

#include "TestSupport.h"
#include "support/Yaml.h"

namespace opgen::support {
namespace {

namespace fs = std::filesystem;

// yaml-cpp's tree as a YamlNode tree: the second opinion.
YamlNode fromYamlCpp(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  const int line = m.is_null() ? -1 : m.line, column = m.is_null() ? -1 : m.column;
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return YamlNode::scalar(node.Scalar(), node.Tag() == "?", line, column);
    case YAML::NodeType::Sequence: {
      YamlNode seq = YamlNode::sequence(line, column);
      for (const YAML::Node& item : node) seq.push(fromYamlCpp(item));
      return seq;
    }
    case YAML::NodeType::Map: {
      YamlNode map = YamlNode::map(line, column);
      for (const auto& kv : node) map.add(fromYamlCpp(kv.first), fromYamlCpp(kv.second));
      return map;
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: break;
  }
  return YamlNode::null(line, column);
}

std::optional<YamlNode> parseWithYamlCpp(std::string_view content) {
  try {
    return fromYamlCpp(YAML::Load(std::string(content)));
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

// Equal trees, except for the position of null nodes: an empty value ("a:") is where its key's
// line ends for libyaml (and PyYAML), at the next token for yaml-cpp.
bool sameTree(const YamlNode& a, const YamlNode& b) {
  if (a.kind() != b.kind()) return false;
  if (a.isNull()) return true;
  if (a.line() != b.line() || a.column() != b.column() || a.text() != b.text() || a.isPlain() != b.isPlain()) return false;
  if (a.isSequence()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!sameTree(a.items()[i], b.items()[i])) return false;
  }
  if (a.isMap()) {
    if (a.size() != b.size()) return false;
    auto x = a.entries().begin(), y = b.entries().begin();
    for (; x != a.entries().end(); ++x, ++y)
      if (!sameTree((*x).key, (*y).key) || !sameTree((*x).value, (*y).value)) return false;
  }
  return true;
}

std::optional<YamlNode> parseQuietly(std::string_view content) {
  Diagnostics diags;
  return parseYaml(content, "t.yaml", diags);
}

// The tree as text, for readable failures.
void dump(const YamlNode& n, std::ostream& out, int depth = 0) {
  out << std::string(depth * 2, ' ') << "@" << n.line() << ":" << n.column() << " ";
  switch (n.kind()) {
    case YamlNode::Kind::Undefined: out << "undefined\n"; return;
    case YamlNode::Kind::Null: out << "null\n"; return;
    case YamlNode::Kind::Scalar: out << (n.isPlain() ? "plain " : "quoted ") << "'" << n.text() << "'\n"; return;
    case YamlNode::Kind::Sequence:
      out << "list\n";
      for (const YamlNode& item : n.items()) dump(item, out, depth + 1);
      return;
    case YamlNode::Kind::Map:
      out << "map\n";
      for (const auto& [key, value] : n.entries()) {
        dump(key, out, depth + 1);
        dump(value, out, depth + 2);
      }
      return;
  }
}

std::string dump(const std::optional<YamlNode>& n) {
  if (!n) return "(not read)\n";
  std::ostringstream out;
  dump(*n, out);
  return out.str();
}

// Both parsers read `text`, to the same tree.
void expectSameTree(std::string_view text, const std::string& what) {
  const std::optional<YamlNode> ours = parseQuietly(text), theirs = parseWithYamlCpp(text);
  ASSERT_TRUE(ours.has_value()) << what << ": rejected";
  ASSERT_TRUE(theirs.has_value()) << what << ": yaml-cpp rejects it";
  EXPECT_TRUE(sameTree(*ours, *theirs)) << what << "\nours:\n" << dump(ours) << "yaml-cpp's:\n" << dump(theirs);
}

TEST(Yaml, AgreesWithYamlCpp) {
  const char* cases[] = {
      "",
      "# only a comment\n",
      "- func: foo(Tensor self) -> Tensor\n  variants: function, method\n",
      "- func: a\n  dispatch:\n    CPU, CUDA: a_kernel   # a comment\n    Meta: m\n\n- func: b\n",
      "- func: a\n  tags: [core, pointwise]\n  cpp_no_default_args: ['x', \"y\"]\n  empty: []\n  dispatch: { }\n",
      "- func: a\n  # a comment between keys\n  structured: True\n  precomputed:\n  - kernel_size -> int kH, int kW\n  - dim\n",
      "key: 'it''s'\nother: \"a \\\"b\\\" \\\\ c\\n\"\nnulls: [~, null, Null]\nvalue: NULL\n",
      "top:\n  nested:\n    deeper: 1\n  back: 2.5\nlast: yes\n",
      "- - not: here\n",
      "a: b#c # comment\nd: e:f\n",
      "- a: b\n      # a comment more indented than the value\n  c: d\n",
      "  indented: document\n  second: key\n",
      "- a\n-   b\n- c: 1\n  d:\n    - e\n    - f\n",
      "just a scalar\n",
      "a: |\n  block\n  text\nb: >\n  folded\n  text\n",
      "a: {b: c, d: [e, f]}\n",
      "a: one\n  two\n",
      "a:\nb: c\n",
      "'quoted': key\n",
      "---\na: b\n",
      "a: [b,\n  c]\n",
      "a: \"\\u00e9\"\n",
      "a: !!str 1\nb: ''\n",
  };
  for (const char* text : cases) expectSameTree(text, text);
}

TEST(Yaml, ResolvesAliases) {
  const std::optional<YamlNode> doc = parseQuietly("a: &x [1, 2]\nb: *x\n");
  ASSERT_TRUE(doc.has_value());
  ASSERT_EQ((*doc)["b"].size(), 2u);
  EXPECT_EQ((*doc)["b"].items()[1].text(), "2");
}

TEST(Yaml, ErrorsHaveTheirPosition) {
  struct Case {
    const char* text;
    const char* prefix;
  } cases[] = {
      {"a: b: c\n", "t.yaml:1:5: error: invalid YAML: "},
      {"a: b\n  c: d\n", "t.yaml:2:4: error: invalid YAML: "},
      {"- a\nb: c\n", "t.yaml:2:1: error: invalid YAML: "},
      {"a: *nowhere\n", "t.yaml:1:4: error: invalid YAML: found undefined alias 'nowhere'"},
      {"a: 1\n---\nb: 2\n", "t.yaml:2:1: error: invalid YAML: expected a single document"},
      {"a: [b, c\n", "t.yaml:2:1: error: invalid YAML: "},
  };
  for (const Case& c : cases) {
    Diagnostics diags;
    EXPECT_FALSE(parseYaml(c.text, "t.yaml", diags).has_value()) << c.text;
    ASSERT_EQ(diags.all().size(), 1u) << c.text;
    EXPECT_EQ(diags.all()[0].str().rfind(c.prefix, 0), 0u) << c.text << diags.all()[0].str();
  }
}

// Hostile texts end in one located error, with memory and time proportional to their size.
TEST(Yaml, BillionLaughsIsALocatedError) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'k'; ++c) {
    const char prev = static_cast<char>(c - 1);
    text += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  }
  Diagnostics diags;
  EXPECT_FALSE(parseYaml(text, "t.yaml", diags).has_value());
  ASSERT_EQ(diags.all().size(), 1u);
  // Levels b-d copy 12330 nodes; e's 8th copy of d (11111 nodes) passes the limit of 100000 + 507 bytes.
  EXPECT_EQ(diags.all()[0].str().rfind("t.yaml:5:36: error: invalid YAML: ", 0), 0u) << diags.all()[0].str();
  EXPECT_NE(diags.all()[0].str().find("aliases expand to more than"), std::string::npos) << diags.all()[0].str();
}

TEST(Yaml, AliasesWithinTheLimitAreCopied) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: [";
  for (int i = 0; i < 1000; ++i) text += "*a, ";
  text += "*a]\n";
  const std::optional<YamlNode> doc = parseQuietly(text);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ((*doc)["b"].size(), 1001u);
}

// Plain scalars resolve as PyYAML's SafeLoader resolves them (each case checked with PyYAML 6):
// in particular a sign followed by anything but a digit or a dot is a string (a formula such as
// "-grad * self"), and so is text with a character no number has ("-0.5 * grad"), which scalarKind
// decides without its regular expressions.
TEST(Yaml, PlainScalarsResolveLikePyYaml) {
  const std::pair<const char*, ScalarKind> cases[] = {
      {"-grad * self", ScalarKind::String}, {"-x", ScalarKind::String},   {"+.", ScalarKind::String},
      {"-.5", ScalarKind::String},          {"-0.5 * grad", ScalarKind::String}, {"1 2", ScalarKind::String},
      {"-.5", ScalarKind::String},          {"-.nan", ScalarKind::String}, {"-1", ScalarKind::Int},
      {"+12", ScalarKind::Int},             {"-1_0", ScalarKind::Int},     {"-0x1F", ScalarKind::Int},
      {"1:30", ScalarKind::Int},            {"+.inf", ScalarKind::Float},  {".nan", ScalarKind::Float},
      {".5e+3", ScalarKind::Float},         {"1.", ScalarKind::Float},     {"~", ScalarKind::Null},
      {"True", ScalarKind::Bool},           {"off", ScalarKind::Bool},     {"function", ScalarKind::String}};
  for (const auto& [text, kind] : cases)
    EXPECT_EQ(scalarKind(YamlNode::scalar(text, /*plain=*/true, 0, 0)), kind) << text;
  EXPECT_EQ(scalarKind(YamlNode::scalar("-1", /*plain=*/false, 0, 0)), ScalarKind::String);
}

TEST(Yaml, DeepNestingIsALocatedError) {
  struct Case {
    std::string text;
    const char* prefix;
  } cases[] = {
      {std::string(500000, '[') + "x" + std::string(500000, ']') + "\n", "t.yaml:1:257: error: invalid YAML: nested deeper than 256 levels"},
      {[] {
         std::string t;
         for (int i = 0; i < 500000; ++i) t += "- ";
         return t + "x\n";
       }(),
       "t.yaml:1:513: error: invalid YAML: nested deeper than 256 levels"},
      {[] {
         std::string t;
         for (int i = 0; i < 300; ++i) t += std::string(i, ' ') + "k:\n";
         return t + std::string(300, ' ') + "x\n";
       }(),
       "t.yaml:257:"},
  };
  for (const Case& c : cases) {
    Diagnostics diags;
    EXPECT_FALSE(parseYaml(c.text, "t.yaml", diags).has_value());
    ASSERT_EQ(diags.all().size(), 1u);
    EXPECT_EQ(diags.all()[0].str().rfind(c.prefix, 0), 0u) << diags.all()[0].str();
  }
  // The limit itself is allowed.
  const std::string deepest = std::string(kMaxYamlDepth, '[') + std::string(kMaxYamlDepth, ']');
  EXPECT_TRUE(parseQuietly(deepest).has_value());
}

// A list long enough to be parsed in two pieces (parseYaml splits large documents at an item).
std::string longList(int items) {
  std::string text = "# a long list\n";
  for (int i = 0; i < items; ++i)
    text += "- func: op_" + std::to_string(i) + "(Tensor self, int dim=0) -> Tensor\n  variants: function, method\n";
  return text;
}

TEST(Yaml, LargeDocumentsReadInPiecesGiveTheSameTree) {
  const std::string text = longList(6000);
  ASSERT_GT(text.size(), 256u * 1024);
  expectSameTree(text, "a long list");
  // An alias of an anchor in the other half, and an error in the second half: read as a whole.
  std::string aliased = "- &first {func: a}\n" + longList(6000) + "- *first\n";
  const std::optional<YamlNode> doc = parseQuietly(aliased);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->items().back()["func"].text(), "a");
  Diagnostics diags;
  EXPECT_FALSE(parseYaml(longList(6000) + "- func: x\n   bad: indentation\n", "t.yaml", diags).has_value());
  ASSERT_EQ(diags.all().size(), 1u);
  EXPECT_EQ(diags.all()[0].loc.line, 2 + 6000 * 2 + 1) << diags.str();
}

TEST(Yaml, AgreesWithYamlCppOnTheTestData) {
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(OPGEN_TEST_DATA))) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string text = opgen::test::readFile(entry.path());
    const std::optional<YamlNode> ours = parseQuietly(text), theirs = parseWithYamlCpp(text);
    ++files;
    ASSERT_EQ(ours.has_value(), theirs.has_value()) << entry.path() << ": only one parser accepts it";
    if (ours) {
      EXPECT_TRUE(sameTree(*ours, *theirs)) << entry.path() << "\nours:\n" << dump(ours) << "yaml-cpp's:\n" << dump(theirs);
    }
  }
  EXPECT_GT(files, 5);
}

TEST(Yaml, AgreesWithYamlCppOnPyTorchsOperatorFiles) {
  const auto& ref = opgen::test::reference();
  OPGEN_REQUIRE_REFERENCE();
  expectSameTree(opgen::test::readFile(ref.atenNativeFunctions()), ref.atenNativeFunctions().string());
  const fs::path tags = ref.atenNativeFunctions().parent_path() / "tags.yaml";
  expectSameTree(opgen::test::readFile(tags), tags.string());
}

}  // namespace
}  // namespace opgen::support
