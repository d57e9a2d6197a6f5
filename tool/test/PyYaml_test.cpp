// support/PyYaml.h: the YAML that torchgen's format_yaml prints (Declarations.yaml). Unit tests of the
// Python conversions and the scalar styles, and a conformance test against torchgen's format_yaml
// itself (PyYAML's CSafeDumper, run through the reference) on tricky strings and defaults.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "TestSupport.h"
#include "support/PyYaml.h"

namespace {

using opgen::support::pyyaml::Emitter;
using opgen::support::pyyaml::pythonFloat;
using opgen::support::pyyaml::pythonFloatRepr;
using opgen::support::pyyaml::pythonInt;
using opgen::support::pyyaml::resolvesToStr;
using opgen::support::pyyaml::Scalar;

TEST(PyYaml, PythonInt) {
  EXPECT_EQ(pythonInt("42"), "42");
  EXPECT_EQ(pythonInt("-1"), "-1");
  EXPECT_EQ(pythonInt("+5"), "5");
  EXPECT_EQ(pythonInt("007"), "7");
  EXPECT_EQ(pythonInt("-0"), "0");
  EXPECT_EQ(pythonInt(" 1_000 "), "1000");
  EXPECT_EQ(pythonInt("123456789012345678901234567890"), "123456789012345678901234567890");
  for (const char* bad : {"", "-", "1.0", "1__0", "_1", "1_", "0x10", "1e5", "one"}) EXPECT_EQ(pythonInt(bad), std::nullopt) << bad;
}

TEST(PyYaml, PythonFloat) {
  EXPECT_EQ(pythonFloat("1e-05"), 1e-05);
  EXPECT_EQ(pythonFloat(".5"), 0.5);
  EXPECT_EQ(pythonFloat("5."), 5.0);
  EXPECT_EQ(pythonFloat("1_0.5"), 10.5);
  EXPECT_EQ(pythonFloat("-inf"), -HUGE_VAL);
  EXPECT_EQ(pythonFloat("Infinity"), HUGE_VAL);
  EXPECT_EQ(pythonFloat("1e400"), HUGE_VAL);
  EXPECT_TRUE(std::isnan(*pythonFloat("nan")));
  for (const char* bad : {"", ".", "e5", "1e", "1._5", "0x1p3", "1.0f", "{}"}) EXPECT_EQ(pythonFloat(bad), std::nullopt) << bad;
}

TEST(PyYaml, PythonFloatRepr) {
  EXPECT_EQ(pythonFloatRepr(1e-05), "1e-05");
  EXPECT_EQ(pythonFloatRepr(0.0001), "0.0001");
  EXPECT_EQ(pythonFloatRepr(10.0), "10.0");
  EXPECT_EQ(pythonFloatRepr(1e16), "1e+16");
  EXPECT_EQ(pythonFloatRepr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(pythonFloatRepr(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(pythonFloatRepr(-0.0), "-0.0");
  EXPECT_EQ(pythonFloatRepr(1.5e300), "1.5e+300");
  EXPECT_EQ(Scalar::real(1e-05).text(), "1.0e-05");
  EXPECT_EQ(Scalar::real(2.5e-08).text(), "2.5e-08");
  EXPECT_EQ(Scalar::real(-HUGE_VAL).text(), "-.inf");
  EXPECT_EQ(Scalar::real(std::nan("")).text(), ".nan");
}

TEST(PyYaml, Resolver) {
  for (const char* s : {"", "~", "null", "NULL", "true", "Off", "yes", "1", "-1", "0x1F", "07",
                        "1_000", "1:30", "1.5", ".5", "1.0e+5", ".inf", "-.Inf", ".NaN", "2001-12-14",
                        "2001-12-14 21:59:43.10 -5", "<<", "="})
    EXPECT_FALSE(resolvesToStr(s)) << s;
  for (const char* s : {"a", "tRue", "0x", "1e5", "1.0e5", "1:60", "nan", "inf", "::std::nullopt", "{}", "2001-12-14X"})
    EXPECT_TRUE(resolvesToStr(s)) << s;
}

TEST(PyYaml, WordsPrintAsStr) {
  auto both = [](auto emit) {
    Emitter y;
    y.beginSequence();
    y.beginMapping();
    emit(y);
    y.endMapping();
    y.endSequence();
    return y.finish();
  };
  EXPECT_EQ(both([](Emitter& y) {
              y.word("is_nullable");
              y.word("Tensor");
            }),
            both([](Emitter& y) {
              y.str("is_nullable");
              y.str("Tensor");
            }));
  EXPECT_TRUE(resolvesToStr(opgen::support::pyyaml::Word("schema_order_cpp_signature").text()));
  // Word("true"), Word("Null"), Word("at::Tensor") and Word("1st") do not compile.
}

std::string emitMapping(const std::vector<std::pair<std::string, Scalar>>& entries) {
  Emitter y;
  y.beginSequence();
  y.beginMapping();
  for (const auto& [k, v] : entries) {
    y.str(k);
    y.scalar(v);
  }
  y.endMapping();
  y.endSequence();
  return y.finish();
}

TEST(PyYaml, ScalarStyles) {
  EXPECT_EQ(emitMapping({{"type", Scalar::str("const at::Tensor &")}}), "- type: const at::Tensor &\n");
  EXPECT_EQ(emitMapping({{"default", Scalar::str("::std::nullopt")}}), "- default: ::std::nullopt\n");
  EXPECT_EQ(emitMapping({{"default", Scalar::str("{}")}}), "- default: '{}'\n");
  EXPECT_EQ(emitMapping({{"default", Scalar::str("\"\\\"'\\\\\"")}}), "- default: '\"\\\"''\\\\\"'\n");
  EXPECT_EQ(emitMapping({{"overload_name", Scalar::str("")}}), "- overload_name: ''\n");
  EXPECT_EQ(emitMapping({{"s", Scalar::str("true")}, {"b", Scalar::boolean(true)}}), "- s: 'true'\n  b: true\n");
  EXPECT_EQ(emitMapping({{"s", Scalar::str("a: b")}}), "- s: 'a: b'\n");
  EXPECT_EQ(emitMapping({{"s", Scalar::str("tab\there")}}), "- s: \"tab\\there\"\n");
  EXPECT_EQ(emitMapping({{"s", Scalar::str("caf\xC3\xA9")}}), "- s: \"caf\\xE9\"\n");
  EXPECT_EQ(emitMapping({{"s", Scalar::str("a\nb")}}), "- s: 'a\n\n    b'\n");
  EXPECT_EQ(emitMapping({{"a", Scalar::none()}, {"n", Scalar::integer(-3)}, {"f", Scalar::real(0.5)}}),
            "- a: null\n  n: -3\n  f: 0.5\n");
}

TEST(PyYaml, Collections) {
  Emitter y;
  y.beginSequence();
  y.beginMapping();
  y.str("arguments");
  y.emptySequence();
  y.str("method_of");
  y.beginSequence();
  y.str("Type");
  y.str("namespace");
  y.endSequence();
  y.str("returns");
  y.beginSequence();
  y.beginMapping();
  y.str("name");
  y.str("result");
  y.str("type");
  y.str("at::Tensor");
  y.endMapping();
  y.endSequence();
  y.endMapping();
  y.endSequence();
  EXPECT_EQ(y.finish(),
            "- arguments: []\n"
            "  method_of:\n"
            "  - Type\n"
            "  - namespace\n"
            "  returns:\n"
            "  - name: result\n"
            "    type: at::Tensor\n");
  Emitter empty;
  empty.emptySequence();
  EXPECT_EQ(empty.finish(), "[]\n");
}

TEST(PyYaml, RepeatedItems) {
  auto entry = [](Emitter& y, const char* name) {
    y.beginMapping();
    y.str("name");
    y.str(name);
    y.str("is_nullable");
    y.boolean(false);
    y.endMapping();
  };
  // Two lists of entries under one mapping, the second repeating the first's items; then the same
  // entry one level deeper, where the recorded text does not fit.
  auto document = [&](bool repeat) {
    Emitter y;
    y.beginSequence();
    y.beginMapping();
    y.str("arguments");
    y.beginSequence();
    std::vector<Emitter::Item> items;
    for (const char* name : {"self", "other"}) {
      const Emitter::ItemStart start = y.itemStart();
      entry(y, name);
      items.push_back(y.item(start));
    }
    y.endSequence();
    y.str("schema_order_arguments");
    y.beginSequence();
    if (!repeat || !y.repeatItem(items[1])) entry(y, "other");
    if (!repeat || !y.repeatItem(items[0])) entry(y, "self");
    y.endSequence();
    y.str("nested");
    y.beginSequence();
    y.beginSequence();
    EXPECT_FALSE(repeat && y.repeatItem(items[0]));  // another indent
    entry(y, "self");
    y.endSequence();
    y.endSequence();
    y.endMapping();
    y.endSequence();
    return y.finish();
  };
  EXPECT_EQ(document(true), document(false));
  EXPECT_EQ(document(true),
            "- arguments:\n"
            "  - name: self\n"
            "    is_nullable: false\n"
            "  - name: other\n"
            "    is_nullable: false\n"
            "  schema_order_arguments:\n"
            "  - name: other\n"
            "    is_nullable: false\n"
            "  - name: self\n"
            "    is_nullable: false\n"
            "  nested:\n"
            "  - - name: self\n"
            "      is_nullable: false\n");
}

// ---------------------------------------------------------------------------------------------------
// Against torchgen's format_yaml

std::string hexLines(const std::vector<std::string>& items) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const std::string& s : items) {
    for (unsigned char c : s) {
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    out += '\n';
  }
  return out;
}

std::string referenceYaml(const std::string& mode, const std::vector<std::string>& items) {
  namespace fs = std::filesystem;
  opgen::test::ProcessOptions options;
  options.input = hexLines(items);
  auto p = opgen::test::reference().python({(fs::path(OPGEN_TEST_SCRIPTS) / "format_yaml.py").string(), mode}, options);
  EXPECT_TRUE(p.ok()) << p.describe();
  return p.out;
}

Scalar pythonifyDefault(const std::string& s) {  // torchgen's pythonify_default, as DeclarationsYaml.cpp does
  if (s == "true") return Scalar::boolean(true);
  if (s == "false") return Scalar::boolean(false);
  if (auto n = pythonInt(s)) return Scalar::integerText(*n);
  if (auto d = pythonFloat(s)) return Scalar::real(*d);
  return Scalar::str(s);
}

// The first item whose document differs, for the failure message.
template <class Render>
std::string firstDifference(const std::string& mode, const std::vector<std::string>& items, Render render) {
  for (const std::string& s : items) {
    std::string want = referenceYaml(mode, {s}), got = render(std::vector<std::string>{s});
    if (want != got) return "for " + ::testing::PrintToString(s) + ":\n torchgen: " + want + "\n opgen:    " + got;
  }
  return "(no single item differs)";
}

std::vector<std::string> trickyStrings() {
  std::vector<std::string> items = {
      "", " ", "a b", " a", "a ", "a\nb", "a\n", "\na", "a \nb", "a\n b", "'", "\"", "it's", "#x", "a #b", "a#b",
      "- a", "-a", "-", "---", "--- a", "...", ":", ":a", ": a", "a:", "a: b", "::std::nullopt", "?", "? a", "a,b",
      "[a]", "{}", "{-2,-1}", "&a", "*a", "!a", "|", ">", "%", "@", "`", "true", "True", "tRue", "yes", "on", "Off",
      "null", "Null", "~", "1", "-1", "01", "0x1F", "0b101", "1_000", "1:30", "1:60", "1.5", ".5", "1e5", "1.0e+5",
      ".inf", ".NaN", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "<<", "=", "a\tb", "a\rb", "caf\xC3\xA9",
      "\xC2\xA0", "\xC2\x85", "\xE2\x80\xA8x", "\xEF\xBB\xBF" "a", "\xF0\x9F\x98\x80", "a\\b", "\"\\\"'\\\\\"",
      std::string("a\0b", 3), "\x07\x08\x1b\x7f", "a\n\nb", "  ", "\n", std::string(130, 'k'), std::string(128, 'y'),
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "Tensor(a!) self"};
  // Indicators and escapes at each place of strings around 16 and 32 bytes (the plain test's chunks).
  for (size_t length : {14, 15, 16, 17, 18, 31, 32, 33, 34}) {
    for (const std::string& mark : {std::string(": "), std::string(" #"), std::string(":"), std::string("\t"), std::string("\xC3\xA9")}) {
      for (size_t at = 1; at + mark.size() <= length; ++at) {
        std::string s(length, 'a');
        s.replace(at, mark.size(), mark);
        items.push_back(s);
      }
    }
  }
  std::mt19937 rng(1);
  const std::string alphabet = "ab :#-?,[]{}'\"\\\n\t!&*|>%@`.~01e+_";
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % 7);
    for (int k = 0; k < n; ++k) s += alphabet[rng() % alphabet.size()];
    items.push_back(s);
  }
  std::erase_if(items, [](const std::string& s) { return s == "value" || s == "list" || s == "nested" || s == "e" || s == "x"; });
  return items;
}

std::string renderStrings(const std::vector<std::string>& items) {
  Emitter y;
  y.beginSequence();
  for (const std::string& s : items) {
    y.beginMapping();
    y.str("value");
    y.str(s);
    y.str("list");
    y.beginSequence();
    y.str(s);
    y.str("x");
    y.endSequence();
    y.str(s);
    y.str("v");
    y.str("nested");
    y.beginSequence();
    y.beginMapping();
    y.str("x");
    y.str(s);
    y.str(s);
    y.emptySequence();
    y.endMapping();
    y.endSequence();
    y.str("e");
    y.emptySequence();
    y.endMapping();
  }
  y.endSequence();
  return y.finish();
}

TEST(PyYamlConformance, StringsMatchFormatYaml) {
  OPGEN_REQUIRE_REFERENCE();
  const std::vector<std::string> items = trickyStrings();
  const std::string want = referenceYaml("str", items);
  if (want != renderStrings(items)) ADD_FAILURE() << firstDifference("str", items, renderStrings);
}

std::string renderDefaults(const std::vector<std::string>& items) {
  Emitter y;
  y.beginSequence();
  for (const std::string& s : items) {
    y.beginMapping();
    y.str("d");
    y.scalar(pythonifyDefault(s));
    y.endMapping();
  }
  y.endSequence();
  return y.finish();
}

TEST(PyYamlConformance, DefaultsMatchPythonifyDefault) {
  OPGEN_REQUIRE_REFERENCE();
  std::vector<std::string> items = {
      "true", "false", "1", "-1", "+5", "007", "1_000", "1__0", "_1", " 12 ", "1.0", "1e-05", "0.3333333333333333",
      "1e16", "1e15", "123456789012345678", "1.5e300", "1e400", "-1e400", "1e-400", "inf", "-inf", "Infinity", "nan",
      "-nan", ".5", "5.", "1.e5", "1e", "e5", "0x10", "0.0001", "0.00001", "1_0.5", "1._5", "-0.0", "-0",
      "{}", "[]", "::std::nullopt", "\"mean\"", "at::kLong", "1e22", "1e21", "5e-324", "1.7976931348623157e308", ""};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const double x = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 200) - 150);
    std::ostringstream a, b;
    a.precision(17);
    a << x;
    b << x;
    items.push_back(a.str());
    items.push_back(b.str());
  }
  const std::string want = referenceYaml("default", items);
  if (want != renderDefaults(items)) ADD_FAILURE() << firstDifference("default", items, renderDefaults);
}

}  // namespace
