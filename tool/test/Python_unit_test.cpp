// Unit tests of api/Python.h: the PythonArgParser signature strings, Python's printing of defaults,
// and the parser's unpacking methods, on hand-written schemas (the conformance tests compare whole
// files with torchgen's).
#include <gtest/gtest.h>

#include <string>

#include "api/Python.h"

namespace {

using namespace opgen::api::python;
using opgen::model::FunctionSchema;

FunctionSchema schema(const std::string& text) {
  auto s = FunctionSchema::parse(text);
  if (!s) throw std::runtime_error(text + ": " + s.error().message);
  return *s;
}

std::string sig(const std::string& text, bool method = false, std::optional<std::string> category = std::nullopt) {
  FunctionSchema f = schema(text);
  auto s = signatureFromSchema(f, category, method);
  if (!s) return "error: " + s.error().message;
  return s->str();
}

TEST(PythonSignature, FunctionsAndMethods) {
  EXPECT_EQ(sig("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"),
            "add(Tensor input, Tensor other, *, Scalar alpha=1)");
  EXPECT_EQ(sig("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", true),
            "add(Tensor other, *, Scalar alpha=1)");
  EXPECT_EQ(sig("abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"), "abs(Tensor input, *, Tensor out=None)");
  EXPECT_EQ(sig("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> "
                "(Tensor(a!) values, Tensor(b!) indices)"),
            "max(Tensor input, int64_t dim, bool keepdim=False, *, TensorList[2] out=None)");
  EXPECT_EQ(sig("numel(Tensor self) -> int", true), "numel()");
}

TEST(PythonSignature, TypesAndDefaults) {
  EXPECT_EQ(sig("f(Tensor self, int[2] stride=1, int[] pad=[0,0], SymInt[] size=[], float eps=1e-5, float big=1e20, "
                "float r=2, str mode=\"x\", Tensor? w=None, Tensor?[] idx=[], float[]? s=None, MemoryFormat? m=None) -> Tensor"),
            "f(Tensor input, IntArrayRef[2] stride=1, IntArrayRef pad={0,0}, SymIntArrayRef size=None, double eps=1e-05, "
            "double big=1e+20, double r=2, c10::string_view mode=\"x\", Tensor? w=None, "
            "c10::List<::std::optional<Tensor>> idx=None, ArrayRef<double>? s=None, MemoryFormat? m=None)");
}

TEST(PythonSignature, TensorOptions) {
  EXPECT_EQ(sig("zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? "
                "pin_memory=None) -> Tensor"),
            "zeros(SymIntArrayRef size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
            "bool? pin_memory=False, bool? requires_grad=False)");
  EXPECT_EQ(sig("empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"),
            "empty_like(Tensor input, *, MemoryFormat? memory_format=None, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)");
  EXPECT_EQ(sig("make(int n) -> Tensor", false, "dummy"), "make(int64_t n)");
  EXPECT_EQ(sig("f(Tensor self, bool requires_grad) -> Tensor"),
            "error: argument named requires_grad is reserved, should not explicitly add it in the schema");
}

TEST(PythonSignature, PythonDefaults) {
  EXPECT_EQ(pythonifyDefault("true"), "True");
  EXPECT_EQ(pythonifyDefault("007"), "7");
  EXPECT_EQ(pythonifyDefault("-0"), "0");
  EXPECT_EQ(pythonifyDefault("1_000"), "1000");
  EXPECT_EQ(pythonifyDefault("1.0"), "1.0");
  EXPECT_EQ(pythonifyDefault("1e-4"), "0.0001");
  EXPECT_EQ(pythonifyDefault("1e-5"), "1e-05");
  EXPECT_EQ(pythonifyDefault("1e16"), "1e+16");
  EXPECT_EQ(pythonifyDefault("1e15"), "1000000000000000.0");
  EXPECT_EQ(pythonifyDefault("-inf"), "-inf");
  EXPECT_EQ(pythonifyDefault(".5"), "0.5");
  EXPECT_EQ(pythonifyDefault("1.5e300"), "1.5e+300");
  EXPECT_EQ(pythonifyDefault("at::kLong"), "at::kLong");
  EXPECT_EQ(pythonifyDefault("{0,0}"), "{0,0}");
}

TEST(PythonSignature, UnpackMethods) {
  auto unpack = [](const std::string& type, std::optional<std::string> def = std::nullopt,
                   std::optional<std::string> init = std::nullopt) {
    auto t = opgen::model::Type::parse(type);
    auto m = argParserUnpackMethod(*t, def, init);
    return m ? *m : "error: " + m.error().message;
  };
  EXPECT_EQ(unpack("Tensor"), "tensor");
  EXPECT_EQ(unpack("int?"), "toInt64Optional");
  EXPECT_EQ(unpack("int?", "2"), "toInt64");
  EXPECT_EQ(unpack("ScalarType?", "None", "at::kLong"), "scalartypeWithDefault");
  EXPECT_EQ(unpack("Tensor[3]"), "tensorlist_n<3>");
  EXPECT_EQ(unpack("SymInt[]"), "symintlist");
  EXPECT_EQ(unpack("int", std::nullopt, "0"), "error: type 'int' does not supported unpacking with default");
  EXPECT_EQ(unpack("bool[3]"), "error: type 'bool[3]' is not supported by PythonArgParser");
}

}  // namespace
