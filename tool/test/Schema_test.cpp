// The schema grammar: exact round-trip of every func: of real native_functions.yaml files, the
// canonical structure torchgen gives a schema, and the errors for texts that are not schemas.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include "TestSupport.h"
#include "model/Schema.h"

namespace opgen::model {
namespace {

// Every func: of a native_functions.yaml parses and prints back exactly.
void expectRoundTrip(const std::filesystem::path& yamlPath, size_t expectedEntries) {
  YAML::Node doc = YAML::LoadFile(yamlPath.string());
  ASSERT_TRUE(doc.IsSequence());
  size_t n = 0, failures = 0;
  for (const auto& entry : doc) {
    std::string text = entry["func"].as<std::string>();
    std::string_view schema = text;
    if (auto ns = schema.find("::"); ns != std::string_view::npos && ns < schema.find('(')) schema = schema.substr(ns + 2);
    auto parsed = FunctionSchema::parse(schema);
    ++n;
    if (!parsed) {
      if (++failures <= 10) ADD_FAILURE() << text << ": " << parsed.error().message;
      continue;
    }
    if (parsed->str() != schema && ++failures <= 10) ADD_FAILURE() << text << " printed back as " << parsed->str();
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_EQ(n, expectedEntries);
}

TEST(SchemaRoundTrip, Torchgen2141NativeFunctions) {
  const auto& ref = test::reference();
  OPGEN_REQUIRE_REFERENCE();
  expectRoundTrip(ref.atenNativeFunctions(), 2585);
}

TEST(SchemaRoundTrip, PyTorch1131NativeFunctions) {
  const std::filesystem::path legacy = OPGEN_TORCH_LEGACY_YAML;
  if (!std::filesystem::exists(legacy))
    GTEST_SKIP() << "PyTorch 1.13.1's native_functions.yaml not found at " << legacy
                 << " (install Debian's python3-torch, or configure with -DOPGEN_TORCH_LEGACY_YAML=PATH)";
  expectRoundTrip(legacy, 2493);
}

TEST(Schema, CanonicalStructure) {
  auto s = FunctionSchema::parse(
      "where.self(Tensor condition, Tensor self, Tensor other, *, ScalarType? dtype=None, Layout? layout=None, "
      "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->arguments.preSelfPositional.size(), 1u);
  ASSERT_TRUE(s->arguments.selfArg);
  EXPECT_EQ(s->arguments.postSelfPositional.size(), 1u);
  ASSERT_TRUE(s->arguments.tensorOptions);
  EXPECT_EQ(s->arguments.postTensorOptionsKwargOnly.size(), 1u);
  EXPECT_EQ(s->kind(), SchemaKind::Functional);
  EXPECT_EQ(s->name.str(), "where.self");
  EXPECT_EQ(s->name.unambiguousName(), "where_self");
}

// Arguments::anyOf visits flatAll()'s arguments (flatNonOut()'s without the out part), in order, and
// stops where asked.
TEST(Schema, AnyOfVisitsTheFlatListInOrder) {
  for (const char* text :
       {"where.self(Tensor condition, Tensor self, Tensor other, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", "f() -> ()",
        "g(int a, *, int b, Tensor(a!) x, Tensor(b!) y) -> (Tensor(a!), Tensor(b!))"}) {
    auto s = FunctionSchema::parse(text);
    ASSERT_TRUE(s) << s.error().message;
    std::vector<const Argument*> visited;
    EXPECT_FALSE(s->arguments.anyOf([&](const Argument& a) {
      visited.push_back(&a);
      return false;
    }));
    EXPECT_EQ(visited, s->arguments.flatAll()) << text;
    std::vector<const Argument*> nonOut;
    s->arguments.anyOf(
        [&](const Argument& a) {
          nonOut.push_back(&a);
          return false;
        },
        {.out = false});
    EXPECT_EQ(nonOut, s->arguments.flatNonOut()) << text;
    if (visited.size() < 2) continue;
    size_t calls = 0;
    EXPECT_TRUE(s->arguments.anyOf([&](const Argument& a) {
      ++calls;
      return &a == visited[1];
    }));
    EXPECT_EQ(calls, 2u) << text;
  }
}

TEST(Schema, KindsAndNames) {
  struct Case {
    const char* text;
    SchemaKind kind;
    const char* cppName;
  };
  for (const Case& c : {
           Case{"add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", SchemaKind::Functional, "add"},
           Case{"add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", SchemaKind::Inplace, "add_"},
           Case{"add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", SchemaKind::Out, "add_out"},
           Case{"_foo(Tensor self, Tensor(a!) running) -> Tensor", SchemaKind::Mutable, "_foo"},
           Case{"_bar.out(Tensor self, *, Tensor(a!) out, Tensor(b!) _scratch_x) -> Tensor(a!)", SchemaKind::Scratch, "_bar_out"},
           Case{"__iadd__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", SchemaKind::Inplace, "__iadd__"},
           Case{"__lshift__.Scalar(Tensor self, Scalar other) -> Tensor", SchemaKind::Functional, "__lshift__"},
       }) {
    auto s = FunctionSchema::parse(c.text);
    ASSERT_TRUE(s) << c.text << ": " << s.error().message;
    EXPECT_EQ(s->kind(), c.kind) << c.text;
    EXPECT_EQ(cppName(*s), c.cppName) << c.text;
    EXPECT_EQ(s->str(), c.text);
  }
}

TEST(Schema, TypesRoundTrip) {
  for (const char* t : {"Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "int[2]", "SymInt[]", "int[]?", "float[]?",
                        "str", "Scalar?", "ScalarType?", "Layout", "Device?", "MemoryFormat?", "Generator?",
                        "Storage", "Stream", "QScheme", "Dimname[1]", "bool[3]", "__torch__.torch.classes.ns.Cls",
                        "DeviceIndex?", "SymBool", "GraphModule"}) {
    auto ty = Type::parse(t);
    ASSERT_TRUE(ty) << t << ": " << ty.error().message;
    EXPECT_EQ(ty->str(), t);
  }
  EXPECT_TRUE(Type::parse("int[]?")->listLike());
  EXPECT_TRUE(Type::parse("Tensor?[]")->isTensorLike());
  EXPECT_TRUE(Type::parse("SymInt[]?")->isSymIntLike());
  EXPECT_FALSE(Type::parse("Tentor"));
  EXPECT_FALSE(Type::parse("int[0]"));  // prints back as int[]
}

TEST(Schema, Annotations) {
  for (const char* a : {"a", "a!", "a -> *", "a! -> a|b", "a|b"}) {
    auto ann = Annotation::parse(a);
    ASSERT_TRUE(ann) << a << ": " << ann.error().message;
    EXPECT_EQ(ann->str(), a);
  }
  EXPECT_FALSE(Annotation::parse("A"));
  EXPECT_FALSE(Annotation::parse("a|b!"));       // a set larger than one is not mutable
  EXPECT_FALSE(Annotation::parse("a|b -> c|d"));  // both sides larger than one
  EXPECT_FALSE(Annotation::parse("a|b|c"));      // torchgen keeps only the last repetition: does not round-trip
}

TEST(Schema, Signature) {
  auto inplace = FunctionSchema::parse("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  auto out = FunctionSchema::parse("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  ASSERT_TRUE(inplace && out);
  EXPECT_EQ(inplace->signature().str(), "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(out->signature().str(), inplace->signature().str());
  auto mut = FunctionSchema::parse("_foo(Tensor self, Tensor(a!) running) -> Tensor");
  ASSERT_TRUE(mut);
  EXPECT_EQ(mut->signature({.keepReturnNames = true}).str(), "_foo(Tensor self, Tensor running) -> (Tensor, Tensor running_out)");
  auto copy = FunctionSchema::parse("view_copy(Tensor self, SymInt[] size) -> Tensor");
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->viewSignature().str(), "view(Tensor self, SymInt[] size) -> Tensor");
}

TEST(Schema, ErrorsPointIntoTheText) {
  struct Case {
    const char* text;
    const char* message;
    int offset;
  };
  for (const Case& c : {
           Case{"foo(Tensor self, Tentor other) -> Tensor", "unrecognized type 'Tentor'", 17},
           Case{"foo(Tensor self) -> Tentor", "unrecognized type 'Tentor'", 20},
           Case{"foo Tensor self -> Tensor", "invalid function schema: expected 'NAME(ARGUMENTS) -> RETURNS'", 0},
           Case{"foo(Tensor self, *, int a, *, int b) -> Tensor", "invalid syntax: kwarg-only specifier * can only occur once", 27},
           Case{"foo(Tensor self, *, Tensor(a!) out, int b) -> Tensor(a!)", "non-mutable argument 'b' cannot follow mutable out arguments", 36},
           Case{"foo_(Tensor self) -> Tensor", "inplace op foo_ must have a self argument with a mutable annotation", 0},
           Case{"foo_out(Tensor self) -> Tensor", "_out suffix is reserved and not permitted for operator names; did you mean to specify an out overload name instead?", 0},
           Case{"foo(int(a) x) -> Tensor", "unrecognized type 'int(a)'", 4},
       }) {
    auto s = FunctionSchema::parse(c.text);
    ASSERT_FALSE(s) << c.text;
    EXPECT_EQ(s.error().message, c.message) << c.text;
    EXPECT_EQ(s.error().offset, c.offset) << c.text;
  }
}

}  // namespace
}  // namespace opgen::model
