// `opgen library` (what the CMake functions run), through the binary: the output list, what the
// files declare, write-if-changed, the libtorch 1.x spellings, and errors that change nothing.
#include <gtest/gtest.h>

#include <algorithm>

#include "TestSupport.h"
#include "gen/Library.h"

namespace {

using namespace opgen::test;

constexpr const char* kOps = R"(- func: demo::scale(Tensor self, float factor=2.0, *, int? limit=None) -> Tensor
  dispatch:
    CPU: scale_cpu
    Meta: other::scale_meta

- func: demo::twice(Tensor self) -> Tensor
)";

struct LibraryRun {
  ProcessResult result;
  fs::path out;
};

LibraryRun library(const TempDir& dir, const std::string& yaml, std::vector<std::string> extra = {}) {
  writeFile(dir.path() / "ops.yaml", yaml);
  std::vector<std::string> argv = {opgenBinary().string(), "library", (dir.path() / "ops.yaml").string(), "-o",
                                   (dir.path() / "out").string(), "--backend", "CPU", "--backend", "Meta"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return {runProcess(argv), dir.path() / "out"};
}

TEST(Library, DescribesItselfWithoutReadingTheYamlWhenTheNamespaceIsGiven) {
  TempDir dir;
  LibraryRun run = library(dir, "not: [valid", {"--namespace", "demo", "--shards", "2", "--describe"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_EQ(run.result.out, R"({
 "namespace": "demo",
 "link_anchor": "opgen_link_demo",
 "compile_definitions": [],
 "headers": [
  "include/demo/Functions.h",
  "include/demo/NativeFunctions.h",
  "include/demo/Operators.h"
 ],
 "sources": [
  "src/Operators.cpp",
  "src/RegisterSchema.cpp",
  "src/RegisterCompositeImplicitAutograd_0.cpp",
  "src/RegisterCompositeImplicitAutograd_1.cpp",
  "src/RegisterCompositeExplicitAutograd_0.cpp",
  "src/RegisterCompositeExplicitAutograd_1.cpp",
  "src/RegisterMeta_0.cpp",
  "src/RegisterMeta_1.cpp",
  "src/RegisterCPU_0.cpp",
  "src/RegisterCPU_1.cpp",
  "src/AutogenKernels.cpp"
 ],
 "python": []
}
)");
}

TEST(Library, DeclaresKernelsInTheLibraryNamespaceAndRegistersThem) {
  TempDir dir;
  LibraryRun run = library(dir, kOps);
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string native = readFile(run.out / "include/demo/NativeFunctions.h");
  EXPECT_NE(native.find("namespace demo::native {\nTORCH_API at::Tensor scale_cpu(const at::Tensor & self, double factor=2.0, "
                        "::std::optional<int64_t> limit=::std::nullopt);"),
            std::string::npos)
      << native;
  // torchgen's rule: a kernel written other::k is other::native::k; no dispatch: CompositeImplicitAutograd.
  EXPECT_NE(native.find("namespace other::native {\nTORCH_API at::Tensor scale_meta("), std::string::npos) << native;
  EXPECT_NE(native.find("TORCH_API at::Tensor twice(const at::Tensor & self);"), std::string::npos) << native;
  const std::string functions = readFile(run.out / "include/demo/Functions.h");
  EXPECT_NE(functions.find("inline at::Tensor scale(const at::Tensor & self, double factor=2.0, "
                           "::std::optional<int64_t> limit=::std::nullopt) {\n  return demo::_ops::scale::call(self, factor, limit);"),
            std::string::npos)
      << functions;
  EXPECT_NE(readFile(run.out / "src/RegisterSchema.cpp").find("m.def(\"scale(Tensor self, float factor=2.0, *, int? limit=None) -> Tensor\");"),
            std::string::npos);
  EXPECT_NE(readFile(run.out / "src/RegisterMeta.cpp").find("TORCH_LIBRARY_IMPL(demo, Meta, m)"), std::string::npos);
  EXPECT_NE(readFile(run.out / "src/RegisterCompositeImplicitAutograd.cpp").find("demo::native::twice(self)"),
            std::string::npos);
}

TEST(Library, PerOperatorHeadersSplitTheHeadersByOperatorAndRemoveStaleOnes) {
  TempDir dir;
  const std::string ops = std::string(kOps) + R"(
- func: demo::twice_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: twice_cpu_
)";
  LibraryRun describe = library(dir, ops, {"--per-operator-headers", "--namespace", "demo", "--describe"});
  ASSERT_TRUE(describe.result.ok()) << describe.result.describe();
  // One set per root name (twice and twice_ together), in the YAML's order, after the three aggregates.
  EXPECT_NE(describe.result.out.find(R"("include/demo/Operators.h",
  "include/demo/ops/scale_ops.h",
  "include/demo/ops/scale.h",
  "include/demo/ops/scale_native.h",
  "include/demo/ops/twice_ops.h",
  "include/demo/ops/twice.h",
  "include/demo/ops/twice_native.h"
 ],)"),
            std::string::npos)
      << describe.result.out;
  LibraryRun run = library(dir, ops, {"--per-operator-headers"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const fs::path include = run.out / "include/demo";
  const std::string native = readFile(include / "ops/twice_native.h");
  EXPECT_NE(native.find("TORCH_API at::Tensor twice(const at::Tensor & self);"), std::string::npos) << native;
  EXPECT_NE(native.find("TORCH_API at::Tensor & twice_cpu_(at::Tensor & self);"), std::string::npos) << native;
  EXPECT_EQ(native.find("scale"), std::string::npos) << native;
  EXPECT_NE(readFile(include / "ops/twice.h").find("#include <demo/ops/twice_ops.h>"), std::string::npos);
  EXPECT_NE(readFile(include / "ops/scale_ops.h").find("struct scale {"), std::string::npos);
  EXPECT_NE(readFile(include / "NativeFunctions.h").find("#include <demo/ops/scale_native.h>\n#include <demo/ops/twice_native.h>\n"),
            std::string::npos);
  EXPECT_NE(readFile(include / "Functions.h").find("#include <demo/ops/twice.h>"), std::string::npos);

  // twice's entries gone: its headers are removed; a file opgen did not generate stays.
  writeFile(include / "ops/mine.h", "// not generated\n");
  const std::string scaleOnly = std::string(kOps).substr(0, std::string(kOps).find("- func: demo::twice"));
  ASSERT_TRUE(library(dir, scaleOnly, {"--per-operator-headers"}).result.ok());
  EXPECT_FALSE(fs::exists(include / "ops/twice.h"));
  EXPECT_FALSE(fs::exists(include / "ops/twice_native.h"));
  EXPECT_TRUE(fs::exists(include / "ops/scale_native.h"));
  EXPECT_TRUE(fs::exists(include / "ops/mine.h"));
  EXPECT_EQ(readFile(include / "Functions.h").find("twice"), std::string::npos);
  // An operator named like another's header is an error at its entry, with nothing written.
  LibraryRun clash = library(dir, "- func: demo::foo(Tensor self) -> Tensor\n\n- func: demo::foo_native(Tensor self) -> Tensor\n",
                             {"--per-operator-headers"});
  EXPECT_FALSE(clash.result.ok());
  EXPECT_EQ(clash.result.err, (dir.path() / "ops.yaml").string() +
                                  ":3:3: error: in 'foo_native': with per-operator headers, ops/foo_native.h would be the "
                                  "header of both 'foo' and 'foo_native'; rename one of them, or turn per-operator "
                                  "headers off\n");
  EXPECT_TRUE(fs::exists(include / "ops/scale_native.h"));
  // Without per-operator headers, the aggregates declare everything and no per-operator header is left.
  ASSERT_TRUE(library(dir, kOps).result.ok());
  EXPECT_FALSE(fs::exists(include / "ops/scale_native.h"));
  EXPECT_NE(readFile(include / "NativeFunctions.h").find("scale_cpu("), std::string::npos);
}

TEST(Library, SecondRunKeepsFilesAndLibtorch1SpellsOptionalsItsWay) {
  TempDir dir;
  ASSERT_TRUE(library(dir, kOps).result.ok());
  const fs::path header = dir.path() / "out/include/demo/Functions.h";
  const auto before = fs::last_write_time(header);
  ASSERT_TRUE(library(dir, kOps).result.ok());
  EXPECT_EQ(fs::last_write_time(header), before);
  LibraryRun old = library(dir, kOps, {"--torch-version", "1.13.1"});
  ASSERT_TRUE(old.result.ok()) << old.result.describe();
  const std::string text = readFile(header);
  EXPECT_EQ(text.find("::std::optional"), std::string::npos);
  EXPECT_NE(text.find("c10::optional<int64_t> limit=c10::nullopt"), std::string::npos) << text;
}

TEST(Library, ErrorsPointAtTheEntryAndChangeNothing) {
  TempDir dir;
  ASSERT_TRUE(library(dir, kOps).result.ok());
  const std::string before = readFile(dir.path() / "out/include/demo/Functions.h");
  LibraryRun run = library(dir, std::string(kOps) + "\n- func: elsewhere::op(Tensor self) -> Tensor\n");
  EXPECT_EQ(run.result.exitCode, 1);
  EXPECT_NE(run.result.err.find("ops.yaml:8:9: error: operator 'elsewhere::op' is not in the library's namespace 'demo'"),
            std::string::npos)
      << run.result.err;
  LibraryRun bad = library(dir, "- func: demo::scale(Tensr self) -> Tensor\n  dispatch:\n    CPU: k\n");
  EXPECT_EQ(bad.result.exitCode, 1);
  EXPECT_NE(bad.result.err.find("ops.yaml:1:21: error:"), std::string::npos) << bad.result.err;
  EXPECT_EQ(readFile(dir.path() / "out/include/demo/Functions.h"), before);
  LibraryRun usage = library(dir, kOps, {"--backend", "GPU"});
  EXPECT_EQ(usage.result.exitCode, 2);
  EXPECT_NE(usage.result.err.find("unknown dispatch key 'GPU'"), std::string::npos) << usage.result.err;
}

// Entries torchgen's rules accept but whose library would not register (PyTorch's schema parser
// refuses them when the library loads) or not compile: each one error at the part at fault.
TEST(Library, RefusesWhatWouldNotRegisterOrCompile) {
  struct Case {
    std::string func;  // the text after "- func: "
    std::string error;  // expected in stderr, after "ops.yaml:1:"
    std::vector<std::string> extra = {};
  } cases[] = {
      {"demo::f(Tensor self, int dim=abc) -> Tensor", "38: error: in 'f': default of 'dim': 'abc' is not an int"},
      {"demo::f(Tensor self, int dim=\"x\") -> Tensor", "38: error: in 'f': default of 'dim': '\"x\"' is not an int"},
      {"demo::f(Tensor self, Tensor other=1) -> Tensor", "43: error: in 'f': default of 'other': a Tensor argument has no default (None is the default of Tensor?)"},
      {"demo::f(Tensor self, Scalar s=-9223372036854775808) -> Tensor", "39: error: in 'f': default of 's': '-9223372036854775808' (the least int64) has no C++ literal"},
      {"demo::f(Tensor self, int[] s=[0,-9223372036854775808]) -> Tensor", "default of 's': item '-9223372036854775808' (the least int64) has no C++ literal"},
      {"demo::f(Tensor self, Tensor t=None) -> Tensor", "39: error: in 'f': default of 't': None is the default of optional types only (Tensor? for this one)"},
      {"demo::f(Tensor self, int[] dims=[True]) -> Tensor", "41: error: in 'f': default of 'dims': item 'True' is not an int"},
      {"demo::f(Tensor self, int dim=99999999999999999999) -> Tensor", "38: error: in 'f': default of 'dim': '99999999999999999999' does not fit in int64"},
      {"demo::f(Tensor self, Scalar s=9223372036854775808) -> Tensor", "39: error: in 'f': default of 's': '9223372036854775808' does not fit in int64"},
      {"demo::f(Tensor self, int[] s=1) -> Tensor", "the default of an unsized list is a list"},
      {"demo::f(Tensor self, bool b=true) -> Tensor", "a bool default is True or False, not 'true'"},
      {"demo::f(Tensor self, float x=inf) -> Tensor", "'inf' is not a number"},
      {"demo::f(Tensor self, float x=1e400) -> Tensor", "'1e400' is beyond the range of a double"},
      {"demo::f(Tensor self, str s=abc) -> Tensor", "a str default is a quoted string"},
      {"demo::f(Tensor self, Device d=\"cpu\") -> Tensor", "a Device argument has no default but None"},
      {"demo::f(Tensor self, int d=None) -> Tensor", "None is the default of optional types only (int? for this one)"},
      {"demo::f(Tensor self, ScalarType s=float) -> Tensor", "ScalarType defaults opgen can translate to C++ are long and None"},
      {"demo::f(Tensor self, Scalar s=\"a\") -> Tensor", "a Scalar default is a number, True or False"},
      {"demo::f(Tensor self, bool[2] b=True) -> Tensor", "a bool[2] argument has no default but None"},
      {"demo::f(Tensor self, int x=0, int y) -> Tensor", "43: error: in 'f': positional argument 'y' has no default"},
      {"demo::f(Tensor self, int class) -> Tensor", "argument name 'class' is a reserved Python keyword"},
      {"demo::f(Tensor self, int delete) -> Tensor", "34: error: in 'f': argument name 'delete' is a C++ keyword"},
      {"demo::f(Tensor self, int x, int x) -> Tensor", "41: error: in 'f': argument 'x' is declared twice"},
      {"demo::f(Tensor self) -> (Tensor a, Tensor lambda)", "51: error: in 'f': return name 'lambda' is a Python keyword", {"--python-module"}},
      {"demo::f.class_(Tensor self) -> (Tensor a, Tensor def)", "58: error: in 'f.class_': return name 'def' is a keyword of PyTorch's schema parser"},
      {"demo::delete(Tensor self) -> Tensor", "15: error: in 'delete': operator name 'delete' is a C++ keyword"},
      {"demo::f.class(Tensor self) -> Tensor", "17: error: in 'f.class': overload name 'class' is a keyword"},
      {"demo::f.default(Tensor self) -> Tensor", "17: error: in 'f.default': overload name 'default' is reserved"},
      {"demo::f.__init__(Tensor self) -> Tensor", "17: error: in 'f.__init__': overload name '__init__' is reserved"},
      {"demo::f.__x(Tensor self) -> Tensor", "overload name '__x' is reserved: PyTorch's schema parser refuses"},
      {"demo::f(Tensor self) -> (Tensor a, Tensor a)", "51: error: in 'f': return 'a' is named twice"},
      {"demo::f(Tensor self, DeviceIndex d) -> Tensor", "30: error: in 'f': argument 'd': PyTorch 1.x has no type DeviceIndex", {"--torch-version", "1.13"}},
      {"demo::f(Tensor self, SymBool b) -> Tensor", "PyTorch 1.x has no type SymBool", {"--torch-version", "1.13"}},
      {"demo::f(Tensor self, Dimname d) -> Tensor", "argument 'd': this PyTorch has no type Dimname"},
      // What the generated C++ could not pass: at the argument's type, naming it and the convention.
      {"demo::f(Tensor self, Tensor(b!)? x) -> Tensor",
       "30: error: in 'f': argument 'x': type 'Tensor(b!)?' is not supported: the kernel's parameter "
       "'::std::optional<at::Tensor> &' cannot be made from the dispatcher's 'at::Tensor &' (torchgen has no "
       "conversion for it); with `use_const_ref_for_mutable_tensors: True` every convention takes it as a const "
       "reference to an optional"},
      {"demo::f(Tensor self, Tensor(b!)? x) -> Tensor", "the kernel's parameter 'c10::optional<at::Tensor> &'",
       {"--torch-version", "1.13"}},
      {"demo::f(Tensor self, *, Tensor?[]? x) -> Tensor",
       "33: error: in 'f': argument 'x': type 'Tensor?[]?' is not supported: its type in the C++ API (demo::f) "
       "would be '::std::optional<const c10::List<::std::optional<at::Tensor>> &>', which does not compile"},
      {"demo::f(Tensor self, bool[] mask) -> Tensor",
       "30: error: in 'f': argument 'mask': type 'bool[]' is not supported: bool[] needs a size (bool[N])"},
      {"demo::f(Tensor self) -> Tensor[]?", "33: error: in 'f': return: unrecognized return type Tensor[]?"},
      {"demo::f(Tensor self) -> Scalar[]", "33: error: in 'f': return: type 'Scalar[]' is not supported: PyTorch cannot register a kernel returning a list of Scalars"},
      {"demo::f(Tensor self, *, bool keepdim=False, ScalarType t) -> Tensor", "53: error: in 'f': argument 't': it has no default but follows 'keepdim', which has one: in the C++ API (demo::f) the parameters with a default must come last"},
      {"demo::f(Tensor self, int[][] x) -> Tensor", "30: error: in 'f': argument 'x': type 'int[][]' is not supported: a list of lists has no C++ type that PyTorch's dispatcher can pass"},
      {"demo::f_.int(str[] s, Tensor(a!) self, Tensor other) -> Tensor(a!)", "31: error: in 'f_.int': argument 'self': it must be the operator's first argument: PyTorch's dispatcher returns the first argument of an operator returning Tensor(a!), or its last when the first is not a mutable tensor (here 'other'; the generated code does not compile)"},
      {"f(Tensor self) -> Tensor", "9: error: in 'f': an operator library's operators are declared with their namespace: 'NS::f(...)'"},
      {"aten::f(Tensor self) -> Tensor", "9: error: namespace 'aten' is PyTorch's own"},
      {"class::f(Tensor self) -> Tensor", "9: error: namespace 'class' is a keyword"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const std::string yaml = "- func: " + c.func + "\n";
    writeFile(dir.path() / "ops.yaml", yaml);
    std::vector<std::string> argv = {opgenBinary().string(), "library", (dir.path() / "ops.yaml").string(), "-o",
                                     (dir.path() / "out").string()};
    argv.insert(argv.end(), c.extra.begin(), c.extra.end());
    const ProcessResult r = runProcess(argv);
    EXPECT_EQ(r.exitCode, 1) << c.func;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.func << "\n" << r.err;
    if (c.error.find(": error: ") != std::string::npos) {
      EXPECT_NE(r.err.find("ops.yaml:1:" + c.error), std::string::npos) << c.func << "\n" << r.err;
    }
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.func << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "out")) << c.func;
  }
}

// A structured operator's meta and impl functions take arguments in their own C++ types, which
// torchgen cannot make from some (it stops with "Failed to synthesize the expression ..."): one error,
// at the argument of the `structured: True` entry, for the whole group.
TEST(Library, RefusesWhatAStructuredKernelCannotTake) {
  struct Case {
    std::string type;
    std::string error;  // after "ARGUMENT: type 'TYPE' is not supported in a structured operator: "
    std::vector<std::string> extra = {};
  } cases[] = {
      {"SymInt[]?", "the meta function's parameter '::std::optional<at::ArrayRef<int64_t>>' cannot be made from the "
                    "wrapper's 'at::OptionalIntArrayRef' (torchgen has no conversion for it); declare the operator "
                    "without `structured: True`"},
      {"Scalar[]", "its type in the meta function would be 'at::ArrayRef<const at::Scalar &>', which does not compile"},
      {"Scalar[]?", "its type in the meta function would be '::std::optional<at::ArrayRef<const at::Scalar &>>'"},
      {"Tensor[]?", "its type in the C++ API (demo::f_out) would be '::std::optional<const at::ITensorListRef &>'"},
      {"Dimname[]", "the meta function's parameter 'at::ArrayRef<at::Dimname>' cannot be made from the wrapper's "
                    "'at::DimnameList'", {"--torch-version", "1"}},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const std::string yaml = "- func: demo::f.out(Tensor self, " + c.type +
                             " x, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: f_out\n"
                             "- func: demo::f(Tensor self, " + c.type + " x) -> Tensor\n  structured_delegate: f.out\n"
                             "- func: demo::f_(Tensor(a!) self, " + c.type + " x) -> Tensor(a!)\n"
                             "  structured_delegate: f.out\n";
    LibraryRun run = library(dir, yaml, c.extra);
    EXPECT_EQ(run.result.exitCode, 1) << c.type;
    const std::string expected = "ops.yaml:1:34: error: in 'f.out': argument 'x': type '" + c.type +
                                 "' is not supported in a structured operator: " + c.error;
    EXPECT_NE(run.result.err.find(expected), std::string::npos) << expected << "\n" << run.result.err;
    EXPECT_EQ(std::count(run.result.err.begin(), run.result.err.end(), '\n'), 1) << run.result.err;
    EXPECT_FALSE(fs::exists(run.out)) << c.type;
  }
  // Unstructured, the same operators generate (and compile: tool/test/differential).
  TempDir dir;
  LibraryRun run = library(dir, R"(- func: demo::f.out(Tensor self, SymInt[]? x, Scalar[] y, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: f_out
- func: demo::f(Tensor self, SymInt[]? x, Scalar[] y) -> Tensor
  dispatch:
    CPU: f_cpu
)");
  EXPECT_TRUE(run.result.ok()) << run.result.describe();
}

// An overload that delegates to a structured out= function but is not in its group (its arguments
// are named otherwise) would get no kernel at all: an error at its entry, not a "Could not run" at
// its first call (found by a library written from the README alone).
TEST(Library, AStructuredDelegateOutsideItsGroupIsAnError) {
  TempDir dir;
  LibraryRun run = library(dir, R"(- func: demo::axpy.out(Tensor x, Tensor y, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: axpy_out
- func: demo::axpy(Tensor x, Tensor y) -> Tensor
  structured_delegate: axpy.out
- func: demo::axpy_(Tensor(a!) self, Tensor y) -> Tensor(a!)
  structured_delegate: axpy.out
)");
  EXPECT_EQ(run.result.exitCode, 1);
  EXPECT_NE(run.result.err.find("ops.yaml:7:3: error: in 'axpy_': structured_delegate: axpy.out, but it is not in "
                                "the group of axpy.out"),
            std::string::npos)
      << run.result.err;
  EXPECT_EQ(std::count(run.result.err.begin(), run.result.err.end(), '\n'), 1) << run.result.err;
  EXPECT_FALSE(fs::exists(run.out));
}

// A mutable optional tensor is refused (see above) unless every convention takes it by const
// reference; then it generates (and compiles with PyTorch 1.13.1 and 2.14.1: checked by hand).
TEST(Library, AcceptsAMutableOptionalTensorByConstReference) {
  TempDir dir;
  LibraryRun run = library(dir, R"(- func: demo::f(Tensor self, Tensor(b!)? x) -> Tensor
  use_const_ref_for_mutable_tensors: True
  dispatch:
    CPU: f_cpu
)");
  EXPECT_TRUE(run.result.ok()) << run.result.describe();
}

// What a library does not support is an error at its line, never ignored.
TEST(Library, RefusesKeysItWouldIgnore) {
  TempDir dir;
  LibraryRun run = library(dir, R"(- func: demo::f(Tensor self) -> Tensor
  variants: function, method
- func: demo::h(Tensor self) -> Tensor
  ufunc_inner_loop:
    Generic: h_kernel (AllAndComplex, BFloat16, Half, ComplexHalf)
- func: demo::i(Tensor self) -> Tensor
  python_module: nn
)");
  EXPECT_EQ(run.result.exitCode, 1);
  for (const char* expected : {"ops.yaml:2:23: error: in 'f': 'method' variants are not supported here",
                               "ops.yaml:4:3: error: in 'h': 'ufunc_inner_loop' is not supported here",
                               "ops.yaml:7:3: error: in 'i': 'python_module' is not supported here"})
    EXPECT_NE(run.result.err.find(expected), std::string::npos) << expected << "\n" << run.result.err;
  EXPECT_FALSE(fs::exists(run.out));
}

constexpr const char* kAutogenOps = R"(- func: demo::scale_(Tensor(a!) self, float f, *, int? limit=None) -> Tensor(a!)
  dispatch:
    CPU: scale_cpu_
  autogen: scale, scale.out

- func: demo::split(Tensor self) -> (Tensor, Tensor)
  dispatch:
    CPU: split_cpu
  autogen: split.out
)";

// autogen: declares variants whose kernels opgen writes (torchgen's CompositeViewCopyKernels.cpp), in
// the library's namespace: declared, defined, registered and callable like the others.
TEST(Library, AutogenVariantsHaveGeneratedKernelsInTheLibrarysNamespace) {
  TempDir dir;
  LibraryRun run = library(dir, kAutogenOps);
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string native = readFile(run.out / "include/demo/NativeFunctions.h");
  for (const char* decl : {"TORCH_API at::Tensor scale(const at::Tensor & self, double f, ::std::optional<int64_t> limit=::std::nullopt);",
                           "TORCH_API at::Tensor & scale_out(const at::Tensor & self, double f, ::std::optional<int64_t> limit, at::Tensor & out);",
                           "TORCH_API ::std::tuple<at::Tensor &,at::Tensor &> split_out(const at::Tensor & self, at::Tensor & out0, at::Tensor & out1);"})
    EXPECT_NE(native.find(decl), std::string::npos) << decl << "\n" << native;
  const std::string kernels = readFile(run.out / "src/AutogenKernels.cpp");
  EXPECT_NE(kernels.find("namespace demo::native {"), std::string::npos) << kernels;
  // The functional kernel: the in-place operator on a clone (no const_cast: the clone is a value).
  EXPECT_NE(kernels.find(R"(at::Tensor scale(const at::Tensor & self, double f, ::std::optional<int64_t> limit) {
  auto self_clone = autogen_helpers::clone_arg(self);
  auto output = demo::_ops::scale_::call(self_clone, f, limit);
  return self_clone;
})"),
            std::string::npos)
      << kernels;
  // The out= kernels: the functional operator, then resize and copy into each out.
  EXPECT_NE(kernels.find(R"(at::Tensor & scale_out(const at::Tensor & self, double f, ::std::optional<int64_t> limit, at::Tensor & out) {
  auto tmp_output = demo::_ops::scale::call(self, f, limit);
  autogen_helpers::resize_out_helper(out, tmp_output);
  autogen_helpers::copy_arg(out, tmp_output);
  return out;
})"),
            std::string::npos)
      << kernels;
  EXPECT_NE(kernels.find("autogen_helpers::copy_arg(out1, std::get<1>(tmp_output));"), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("at::_ops::"), std::string::npos) << kernels;
  const std::string registration = readFile(run.out / "src/RegisterCompositeExplicitAutograd.cpp");
  for (const char* call : {"return demo::native::scale(self, f, limit);", "return demo::native::scale_out(self, f, limit, out);",
                           "m.impl(\"split.out\","})
    EXPECT_NE(registration.find(call), std::string::npos) << call << "\n" << registration;
  const std::string schemas = readFile(run.out / "src/RegisterSchema.cpp");
  EXPECT_NE(schemas.find(R"x(m.def("split.out(Tensor self, *, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))", {at::Tag::generated, at::Tag::out});)x"),
            std::string::npos)
      << schemas;
  const std::string functions = readFile(run.out / "include/demo/Functions.h");
  EXPECT_NE(functions.find("inline at::Tensor & scale_out(at::Tensor & out, const at::Tensor & self, double f, "),
            std::string::npos)
      << functions;

  // libtorch 1.x: the same kernels with its optional.
  LibraryRun old = library(dir, kAutogenOps, {"--torch-version", "1.13"});
  ASSERT_TRUE(old.result.ok()) << old.result.describe();
  const std::string oldKernels = readFile(old.out / "src/AutogenKernels.cpp");
  EXPECT_NE(oldKernels.find("at::Tensor scale(const at::Tensor & self, double f, c10::optional<int64_t> limit) {"),
            std::string::npos)
      << oldKernels;
  EXPECT_EQ(oldKernels.find("std::optional"), std::string::npos) << oldKernels;
}

// The file is always there (a build lists the files before it reads the YAML), with nothing to
// compile when no entry has autogen:.
TEST(Library, WithoutAutogenTheKernelFileIsEmpty) {
  TempDir dir;
  LibraryRun run = library(dir, kOps);
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_EQ(readFile(run.out / "src/AutogenKernels.cpp"),
            "// @generated by opgen from templates/library/AutogenKernels.cpp; do not edit\n//\n"
            "// The library has no `autogen:` entries: no kernels to generate.\n");
}

// A wrong autogen: is one error at its value (the name at fault where there is one), changing nothing.
TEST(Library, AutogenErrorsPointAtTheAutogenLine) {
  struct Case {
    std::string entry;  // after "- func: demo::"
    std::string error;  // the whole stderr after "ops.yaml:"
  } cases[] = {
      {"scale_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: k\n  autogen: scale.out",
       "4:12: error: in 'scale_': the codegen expects to be able to generate 'scale, scale.out'; to do so, it expects "
       "a line 'autogen: scale, scale.out', but found 'autogen: scale.out'"},
      {"scale_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: k\n  autogen: demo::scale, scale.out",
       "4:12: error: in 'scale_': the codegen expects to be able to generate 'scale, scale.out'; to do so, it expects "
       "a line 'autogen: scale, scale.out', but found 'autogen: demo::scale, scale.out'"},
      {"f(Tensor self) -> Tensor\n  dispatch:\n    CPU: k\n  autogen: f.outt",
       "4:12: error: in 'f': the codegen expects to be able to generate 'f.out'; to do so, it expects a line "
       "'autogen: f.out', but found 'autogen: f.outt'"},
      {"f(Tensor self) -> int\n  dispatch:\n    CPU: k\n  autogen: f.out",
       "4:12: error: in 'f': autogen: 'f.out' is not generated: an operator that returns no tensor gets no out= variant "
       "(torchgen's rule: it would have nothing to write to out)"},
      // torchgen ignores these; a library would lack the operators its YAML declares.
      {"f(Tensor self) -> Tensor\n  autogen: f.out",
       "2:12: error: in 'f': autogen: 'f.out' is not generated: an operator without a dispatch: kernel "
       "(CompositeImplicitAutograd) gets no generated variants"},
      {"f(Tensor self) -> Tensor\n  dispatch:\n    CPU: k\n  autogen: f_",
       "4:12: error: in 'f': autogen: 'f_' is not generated: autogen makes only the out= variant of an operator and "
       "the functional variant of an in-place or mutable one"},
      {"f(Tensor self) -> Tensor\n  dispatch:\n    CPU: k\n  autogen: [f.out]",
       "4:12: error: in 'f': 'autogen' must be a string, not a list"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    LibraryRun run = library(dir, "- func: demo::" + c.entry + "\n");
    EXPECT_EQ(run.result.exitCode, 1) << c.entry;
    EXPECT_EQ(run.result.err, (dir.path() / "ops.yaml").string() + ":" + c.error + "\n") << c.entry;
    EXPECT_FALSE(fs::exists(run.out)) << c.entry;
  }
}

// What PyTorch accepts and the C++ compiles stays accepted.
TEST(Library, AcceptsTheDefaultsThatRegisterAndCompile) {
  TempDir dir;
  const std::string yaml = R"(- func: demo::f(Tensor self, int a=-1, int b=9223372036854775807, float c=1., float d=.5, float e=-2e-3, bool g=True, str h='mean', str i="x", Scalar j=1, Scalar k=2.5, Scalar l=False, int[] m=[], int[] n=[1,-2], int[2] o=1, float[] p=[1.0,2], int? q=None, int? r=3, Tensor? s=None, ScalarType u=long, MemoryFormat v=contiguous_format, int reduction=Mean, *, Device? w=None) -> Tensor
)";
  LibraryRun run = library(dir, yaml, {"--python-module"});
  EXPECT_TRUE(run.result.ok()) << run.result.describe();
}

// torchgen's rule that an operator with a kernel must be able to get an out= variant (so: return a
// tensor) is ATen's: a library's operators need no out= variant.
TEST(Library, OperatorsWithKernelsMayReturnOtherThanTensors) {
  TempDir dir;
  LibraryRun run = library(dir, R"(- func: demo::count(Tensor self, float above) -> int
  dispatch:
    CPU: count_cpu

- func: demo::stats(Tensor self) -> (float, Tensor)
  dispatch:
    CompositeExplicitAutograd: stats
)");
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_NE(readFile(run.out / "include/demo/NativeFunctions.h").find("TORCH_API int64_t count_cpu(const at::Tensor & self, double above);"),
            std::string::npos);
  EXPECT_NE(readFile(run.out / "src/RegisterCPU.cpp").find("m.impl(\"count\""), std::string::npos);
}

constexpr const char* kDocumentedOps = R"(# Not documentation: a blank line follows.

# Scales by factor.
#   At most `limit` elements.
- func: demo::scale(Tensor self, float factor=2.0, *, int? limit=None) -> Tensor

- func: demo::split.parts(Tensor self, int[2] sizes=1, str how='even', ScalarType dtype=long) -> (Tensor, Tensor)
- func: demo::fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)
- func: demo::log(Tensor[] xs, *, int[] dims=[0]) -> ()
)";

TEST(Library, PythonModuleHasTypedFunctionsAndStubs) {
  TempDir dir;
  LibraryRun listing = library(dir, "not: [valid", {"--namespace", "demo", "--python-module", "--describe"});
  ASSERT_TRUE(listing.result.ok()) << listing.result.describe();
  EXPECT_NE(listing.result.out.find(R"("python": [
  "python/demo/__init__.py",
  "python/demo/__init__.pyi"
 ])"), std::string::npos)
      << listing.result.out;

  LibraryRun run = library(dir, kDocumentedOps, {"--python-module", "--python-library-path", "/opt/lib/libdemo.so"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_EQ(readFile(run.out / "python/demo/__init__.pyi"),
            "# @generated by opgen from templates/library/python_init.pyi; do not edit\n"
            "# Stubs of the operators of library demo, for editors and type checkers.\n"
            "from typing import Any, List, Optional, Tuple, Union\n"
            "\n"
            "import torch\n"
            "\n"
            "def load_library(path: str) -> None: ...\n"
            "def scale(self: torch.Tensor, factor: float = 2.0, *, limit: Optional[int] = None) -> torch.Tensor: ...\n"
            "def split_parts(self: torch.Tensor, sizes: List[int] = [1, 1], how: str = \"even\", "
            "dtype: torch.dtype = torch.long) -> Tuple[torch.Tensor, torch.Tensor]: ...\n"
            "def fill_(self: torch.Tensor, value: Union[int, float, bool]) -> torch.Tensor: ...\n"
            "def log(xs: List[torch.Tensor], *, dims: List[int] = [0]) -> None: ...\n");
  const std::string init = readFile(run.out / "python/demo/__init__.py");
  EXPECT_NE(init.find("def scale(self: torch.Tensor, factor: float = 2.0, *, limit: Optional[int] = None) -> torch.Tensor:\n"
                      "    \"\"\"Scales by factor.\n"
                      "      At most `limit` elements.\n"
                      "\n"
                      "    demo::scale(Tensor self, float factor=2.0, *, int? limit=None) -> Tensor\n"
                      "    \"\"\"\n"
                      "    return torch.ops.demo.scale.default(self, factor, limit=limit)\n"),
            std::string::npos)
      << init;
  EXPECT_NE(init.find("    return torch.ops.demo.split.parts(self, sizes, how, dtype)\n"), std::string::npos) << init;
  EXPECT_NE(init.find("    \"\"\"demo::fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)\n"), std::string::npos) << init;
  // The library's path relative to the package's folder: no absolute path in a generated file.
  const std::string relative = fs::path("/opt/lib/libdemo.so").lexically_relative(run.out / "python/demo").generic_string();
  EXPECT_NE(init.find("_ENVIRONMENT_VARIABLE = \"OPGEN_DEMO_LIBRARY\"\n_BUILT_LIBRARY = "
                      "os.path.join(os.path.dirname(os.path.abspath(__file__)), \"" + relative + "\")\n"),
            std::string::npos)
      << init;
  EXPECT_EQ(init.find(dir.path().string()), std::string::npos) << init;

  LibraryRun bad = library(dir, "- func: demo::f(Tensor self, int x=Mystery) -> Tensor\n", {"--python-module"});
  EXPECT_EQ(bad.result.exitCode, 1);
  EXPECT_NE(bad.result.err.find("ops.yaml:1:36: error: in 'f': default of 'x': 'Mystery' is not an int"), std::string::npos)
      << bad.result.err;
}

TEST(Library, DerivativesAddTheAutogradFileOrFailWithoutChangingAnything) {
  TempDir dir;
  const fs::path derivatives = dir.path() / "derivatives.yaml";
  writeFile(derivatives, "- name: scale(Tensor self, float factor=2.0, *, int? limit=None) -> Tensor\n  self: grad * factor\n");
  LibraryRun run = library(dir, kOps, {"--derivatives", derivatives.string()});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string autograd = readFile(run.out / "src/RegisterAutograd.cpp");
  EXPECT_NE(autograd.find("m.impl(\"scale\", TORCH_FN(scale_autograd));"), std::string::npos) << autograd;
  EXPECT_EQ(autograd.find("twice"), std::string::npos) << "an operator without formula got an Autograd kernel";
  EXPECT_NE(readFile(run.out / "src/RegisterSchema.cpp").find("opgen_link_demo_Autograd();"), std::string::npos);
  LibraryRun describe = library(dir, kOps, {"--derivatives", derivatives.string(), "--describe"});
  EXPECT_NE(describe.result.out.find("\"src/RegisterAutograd.cpp\""), std::string::npos) << describe.result.out;

  writeFile(derivatives, "- name: scale(Tensor self, float factor=2.0, *, int? limit=None) -> Tensor\n  self: grad * factr\n  factr: grad\n");
  LibraryRun bad = library(dir, kOps, {"--derivatives", derivatives.string()});
  EXPECT_EQ(bad.result.exitCode, 1);
  EXPECT_NE(bad.result.err.find("derivatives.yaml:3:3: error: in 'scale': No matching output for forward derivative definition: 'factr' is neither an argument (the key of a backward formula)"),
            std::string::npos)
      << bad.result.err;
  EXPECT_EQ(readFile(run.out / "src/RegisterAutograd.cpp"), autograd);
}

// The generation's warnings are the generation's: the check before the link (--check-kernels, with
// the same arguments) repeats none of them, derivatives.yaml's included.
TEST(Library, KernelCheckRepeatsNoWarningOfTheGeneration) {
  TempDir dir;
  const std::string ops = std::string(kOps) +
                          "\n- func: demo::bump_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: bump_\n"
                          "  autogen: bump, bump.out\n";
  const fs::path derivatives = dir.path() / "derivatives.yaml";
  writeFile(derivatives, "- name: bump_(Tensor(a!) self) -> Tensor(a!)\n  self: grad\n");
  LibraryRun run = library(dir, ops, {"--derivatives", derivatives.string()});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_NE(run.result.err.find("derivatives.yaml:1:9: warning: in 'bump_': its functional variant 'bump' has no entry"),
            std::string::npos)
      << run.result.err;
  writeFile(dir.path() / "empty.c", "int opgen_test_nothing;\n");
  const fs::path object = dir.path() / "empty.o";
  ASSERT_TRUE(runProcess({"cc", "-c", (dir.path() / "empty.c").string(), "-o", object.string()}).ok());
  LibraryRun check = library(dir, ops, {"--derivatives", derivatives.string(), "--check-kernels", object.string()});
  EXPECT_TRUE(check.result.ok()) << check.result.describe();
  EXPECT_EQ(check.result.err, "");
}

// Accepted means compiles (issue 25): str defaults that PyTorch's parser, C++ and Python would read
// differently or that would break the generated code's lines, names that are macros under
// -std=gnu++17, namespaces the generated code or libtorch already use, and Python packages that
// would shadow what torch imports. Each one error at its YAML column, nothing written.
TEST(Library, RefusesWhatTheCompilerOrPythonWouldReadOtherwise) {
  struct Case {
    std::string yaml;   // the whole YAML
    std::string error;  // expected in stderr
    std::vector<std::string> extra = {};
  } cases[] = {
      {"- func: demo::f(Tensor self, str s=\"a\\\") -> Tensor\n", "ops.yaml:1:36: error: in 'f': default of 's': the string ends with a backslash"},
      {"- func: demo::f(Tensor self, str s=\"a\"b\") -> Tensor\n", "ops.yaml:1:36: error: in 'f': default of 's': the string ends at its second \""},
      {"- func: demo::f(Tensor self, str s='a'b') -> Tensor\n", "default of 's': the string ends at its second '"},
      {"- func: demo::f(Tensor self, str s=\"a\\x41\") -> Tensor\n", "default of 's': escape '\\x' in a str default"},
      {"- func: demo::f(Tensor self, str s=\"a\\r\") -> Tensor\n", "default of 's': escape '\\r' in a str default"},
      {"- func: demo::f(Tensor self, str s=\"a\\101\") -> Tensor\n", "default of 's': escape '\\1' in a str default"},
      {"- func: \"demo::f(Tensor self, str s='a\\rb') -> Tensor\"\n", "default of 's': a control character in a str default"},
      {"- func: \"demo::f(Tensor self, str s='a\\fb') -> Tensor\"\n", "default of 's': a control character"},
      {"- func: \"demo::f(Tensor self, str s='a\\x1cb') -> Tensor\"\n", "default of 's': a control character"},
      {"- func: \"demo::f(Tensor self, str s='a\\x7fb') -> Tensor\"\n", "default of 's': a control character"},
      {"- func: \"demo::f(Tensor self, str s='a\\u2028b') -> Tensor\"\n", "default of 's': a Unicode line separator"},
      {"- func: \"demo::f(Tensor self, str s='a\\u2029b') -> Tensor\"\n", "default of 's': a Unicode line separator"},
      {"- func: \"demo::f(Tensor self, str s='a\\x85b') -> Tensor\"\n", "default of 's': a Unicode line separator"},
      {"- func: demo::f(Tensor self, int errno) -> Tensor\n", "ops.yaml:1:34: error: in 'f': argument name 'errno' is a macro"},
      {"- func: demo::f(Tensor self, int EOF) -> Tensor\n", "ops.yaml:1:34: error: in 'f': argument name 'EOF' is in capitals, as macros are"},
      {"- func: demo::linux(Tensor self) -> Tensor\n", "ops.yaml:1:15: error: in 'linux': operator name 'linux' is a macro"},
      {"- func: demo::f(Tensor self) -> (Tensor unix, Tensor b)\n", "error: in 'f': return name 'unix' is a macro"},
      {"- func: demo::f(Tensor self, int M_PIf) -> Tensor\n", "argument name 'M_PIf' is named like the macros M_*"},
      {"- func: demo::f(Tensor self, int PRId64) -> Tensor\n", "argument name 'PRId64' is named like the macros PRI*"},
      {"- func: demo::f(Tensor self) -> Tensor\n  dispatch:\n    CPU: stdin\n", "ops.yaml:1:3: error: in 'f': kernel 'demo::native::stdin': 'stdin' is a macro"},
      {"- func: native::f(Tensor self) -> Tensor\n", "ops.yaml:1:9: error: namespace 'native' is one the generated code nests inside"},
      {"- func: _ops::f(Tensor self) -> Tensor\n", "ops.yaml:1:9: error: namespace '_ops' is one the generated code nests inside"},
      {"- func: at::add(Tensor self) -> Tensor\n", "ops.yaml:1:9: error: namespace 'at' is libtorch's"},
      {"- func: torch::ones(Tensor self) -> Tensor\n", "ops.yaml:1:9: error: namespace 'torch' is libtorch's"},
      {"- func: linux::f(Tensor self) -> Tensor\n", "ops.yaml:1:9: error: namespace 'linux' is a macro"},
      {"- func: typing::f(Tensor self) -> Tensor\n", "ops.yaml:1:9: error: namespace 'typing': the Python package 'typing' would shadow the standard library's module", {"--python-module"}},
      {"- func: json::f(Tensor self) -> Tensor\n", "namespace 'json': the Python package 'json' would shadow", {"--python-module"}},
      {"- func: random::f(Tensor self) -> Tensor\n", "namespace 'random': the Python package 'random' would shadow", {"--python-module"}},
      {"- func: numpy::f(Tensor self) -> Tensor\n", "namespace 'numpy': the Python package 'numpy' would shadow the module numpy that torch imports", {"--python-module"}},
  };
  for (const Case& c : cases) {
    TempDir dir;
    writeFile(dir.path() / "ops.yaml", c.yaml);
    std::vector<std::string> argv = {opgenBinary().string(), "library", (dir.path() / "ops.yaml").string(), "-o",
                                     (dir.path() / "out").string()};
    argv.insert(argv.end(), c.extra.begin(), c.extra.end());
    const ProcessResult r = runProcess(argv);
    EXPECT_EQ(r.exitCode, 1) << c.yaml;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.yaml << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.yaml << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "out")) << c.yaml;
  }
  // What stays accepted: the escapes all three read alike, other non-ASCII text, a namespace that is
  // a Python module only without the Python package, names with capitals and lower case.
  TempDir dir;
  const std::string ok = R"(- func: demo::f(Tensor self, str a="x\"y\\z\n\t", str b='it\'s "q"', str c="é", int N=1, int Kx=2) -> Tensor
)";
  EXPECT_TRUE(library(dir, ok, {"--python-module"}).result.ok()) << library(dir, ok, {"--python-module"}).result.describe();
  TempDir json;
  EXPECT_TRUE(library(json, "- func: json::f(Tensor self) -> Tensor\n").result.ok());
  // A Python keyword as an argument name, which the loader only warns about in a file that uses
  // Dimname (torchgen's leniency for ATen's older files): with the Python package, an error (the
  // package did not compile; found by the differential test).
  TempDir from;
  LibraryRun keyword = library(from, "- func: demo::f_(Tensor(a!) self, Dimname[] n, *, MemoryFormat from) -> Tensor(a!)\n",
                               {"--python-module", "--torch-version", "1.13"});
  EXPECT_EQ(keyword.result.exitCode, 1);
  EXPECT_NE(keyword.result.err.find("ops.yaml:1:64: error: in 'f_': argument name 'from' is a Python keyword"),
            std::string::npos)
      << keyword.result.err;
}

// The output folder's list of what opgen wrote (opgen-outputs.txt): a file opgen did not write is
// never overwritten, and the files of a renamed namespace are removed.
TEST(Library, OverwritesNoFileItDidNotWriteAndRemovesWhatItNoLongerGenerates) {
  TempDir dir;
  // A hand-written file where an output goes (OUTPUT_DIR set to a source folder): an error there.
  writeFile(dir.path() / "out/src/Operators.cpp", "// my own operators\n");
  LibraryRun mine = library(dir, kOps);
  EXPECT_EQ(mine.result.exitCode, 1);
  EXPECT_EQ(mine.result.err, (dir.path() / "out/src/Operators.cpp").string() +
                                 ": error: opgen did not write this file (it is not in opgen-outputs.txt and has no "
                                 "'@generated by opgen' mark): it is not overwritten; give opgen an output folder of "
                                 "its own\n");
  EXPECT_EQ(readFile(dir.path() / "out/src/Operators.cpp"), "// my own operators\n");
  EXPECT_FALSE(fs::exists(dir.path() / "out/include"));
  fs::remove(dir.path() / "out/src/Operators.cpp");

  ASSERT_TRUE(library(dir, kOps, {"--python-module"}).result.ok());
  const std::string list = readFile(dir.path() / "out/opgen-outputs.txt");
  EXPECT_NE(list.find("\ninclude/demo/Functions.h\n"), std::string::npos) << list;
  EXPECT_NE(list.find("\npython/demo/__init__.py\n"), std::string::npos) << list;
  // A file opgen generated before, edited by hand, is still opgen's: rewritten.
  writeFile(dir.path() / "out/include/demo/Functions.h", "// edited\n");
  ASSERT_TRUE(library(dir, kOps, {"--python-module"}).result.ok());
  EXPECT_NE(readFile(dir.path() / "out/include/demo/Functions.h"), "// edited\n");

  // The namespace renamed: demo's headers and Python package go, folders and all; other files stay.
  writeFile(dir.path() / "out/include/demo/mine.h", "// mine\n");
  std::string renamed = kOps;
  for (std::size_t at; (at = renamed.find("demo::")) != std::string::npos;) renamed.replace(at, 6, "demo2::");
  LibraryRun run = library(dir, renamed, {"--python-module", "--stamp", (dir.path() / "out/opgen.stamp").string()});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_TRUE(fs::exists(dir.path() / "out/include/demo2/Functions.h"));
  EXPECT_FALSE(fs::exists(dir.path() / "out/include/demo/Functions.h"));
  EXPECT_TRUE(fs::exists(dir.path() / "out/include/demo/mine.h"));
  EXPECT_FALSE(fs::exists(dir.path() / "out/python/demo"));
  EXPECT_TRUE(fs::exists(dir.path() / "out/python/demo2/__init__.py"));
  EXPECT_EQ(readFile(dir.path() / "out/opgen-outputs.txt").find("demo/"), std::string::npos);
  // A list naming paths outside the folder does not make opgen remove them.
  writeFile(dir.path() / "victim.txt", "keep\n");
  writeFile(dir.path() / "out/opgen-outputs.txt", "../victim.txt\n/etc/hostname\n" + readFile(dir.path() / "out/opgen-outputs.txt"));
  ASSERT_TRUE(library(dir, renamed, {"--python-module"}).result.ok());
  EXPECT_TRUE(fs::exists(dir.path() / "victim.txt"));
}

// The YAML reader's errors (a control character, invalid UTF-8) at the bad character, not at 1:1;
// and lines counted as YAML counts them (a lone CR, U+2028), so that each entry keeps its doc.
TEST(Library, ReaderErrorsAtTheirCharacterAndDocsAtTheirEntries) {
  struct Case {
    std::string yaml, error;
  } cases[] = {
      {"- func: demo::f(Tensor self) -> Tensor\n# a \x01 control character\n", "ops.yaml:2:5: error: invalid YAML: control characters are not allowed (0x01)"},
      {"- func: demo::f(Tensor self) -> Tensor\n# \xc3\xa9t\xc3\xa9 \xff\n", "ops.yaml:2:7: error: invalid YAML: invalid leading UTF-8 octet (0xFF)"},
      {"- func: \"demo::f(Tensor self, str s='a\x02') -> Tensor\"\n", "ops.yaml:1:39: error: invalid YAML: control characters are not allowed (0x02)"},
  };
  for (const Case& c : cases) {
    TempDir dir;
    LibraryRun run = library(dir, c.yaml);
    EXPECT_EQ(run.result.exitCode, 1);
    EXPECT_EQ(run.result.err, (dir.path() / c.error).string() + "\n");
  }
  for (const std::string lineBreak : {"\r", "\xe2\x80\xa8", "\xc2\x85", "\r\n"}) {
    TempDir dir;
    const std::string yaml = "# doc of f" + lineBreak + "- func: demo::f(Tensor self) -> Tensor" + lineBreak + lineBreak +
                             "# doc of g" + lineBreak + "- func: demo::g(Tensor self) -> Tensor" + lineBreak;
    LibraryRun run = library(dir, yaml, {"--python-module"});
    ASSERT_TRUE(run.result.ok()) << run.result.describe();
    const std::string package = readFile(run.out / "python/demo/__init__.py");
    EXPECT_NE(package.find("def f(self: torch.Tensor) -> torch.Tensor:\n    \"\"\"doc of f\n"), std::string::npos) << package;
    EXPECT_NE(package.find("def g(self: torch.Tensor) -> torch.Tensor:\n    \"\"\"doc of g\n"), std::string::npos) << package;
  }
}

}  // namespace

namespace {

// PyTorch 2 (api/LibraryPt2.h): tags with the schemas, Autograd for every operator with a kernel,
// Meta always registered, a warning for an operator that cannot run on fake tensors.
constexpr const char* kPt2Ops = R"(- func: demo::scale(Tensor self, float factor) -> Tensor
  tags: [pointwise, core]
  dispatch:
    CPU: scale_cpu
    Meta: scale_meta

- func: demo::scale_(Tensor(a!) self, float factor) -> Tensor(a!)
  dispatch:
    CPU: scale_cpu_
  autogen: scale.out

- func: demo::twice(Tensor self) -> Tensor
)";
constexpr const char* kPt2Tags = "- tag: pointwise\n  desc: p\n- tag: core\n  desc: c\n- tag: inplace\n  desc: i\n";

TEST(LibraryPt2, RegistersTagsInplaceAndOutAndTheDefaultTags) {
  TempDir dir;
  writeFile(dir.path() / "tags.yaml", kPt2Tags);
  LibraryRun run = library(dir, kPt2Ops, {"--default-tag", "pt2_compliant_tag"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string schema = readFile(run.out / "src/RegisterSchema.cpp");
  EXPECT_NE(schema.find("m.def(\"scale(Tensor self, float factor) -> Tensor\", {at::Tag::core, at::Tag::pointwise, "
                        "at::Tag::pt2_compliant_tag});"),
            std::string::npos)
      << schema;
  EXPECT_NE(schema.find("m.def(\"scale_(Tensor(a!) self, float factor) -> Tensor(a!)\", {at::Tag::inplace, "
                        "at::Tag::pt2_compliant_tag});"),
            std::string::npos)
      << schema;
  // The autogen: variant: torchgen's `generated`, and `out`.
  EXPECT_NE(schema.find("m.def(\"scale.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)\", "
                        "{at::Tag::generated, at::Tag::out, at::Tag::pt2_compliant_tag});"),
            std::string::npos)
      << schema;
  // scale has a Meta kernel, scale_ torchgen's in-place one: no warning. One without, at its entry:
  EXPECT_EQ(run.result.err, "");
  TempDir dirG;
  LibraryRun g = library(dirG, "- func: demo::g(Tensor self) -> Tensor\n  dispatch:\n    CPU: g\n");
  ASSERT_TRUE(g.result.ok()) << g.result.describe();
  EXPECT_NE(g.result.err.find("ops.yaml:1:3: warning: in 'g': it has a CPU kernel and no Meta kernel: torch.compile and "
                              "torch.export cannot run it on fake tensors"),
            std::string::npos)
      << g.result.err;

  // libtorch 1.x: no inplace, out or pt2_compliant_tag. A tag it lacks, which the library's tags.yaml
  // declares: a warning at the tag naming the release, and left out of the registration (one ops.yaml
  // for every release).
  TempDir dir1;
  writeFile(dir1.path() / "tags.yaml", kPt2Tags);
  LibraryRun v1 = library(dir1, kPt2Ops, {"--torch-version", "1.13"});
  ASSERT_TRUE(v1.result.ok()) << v1.result.describe();
  EXPECT_NE(v1.result.err.find("ops.yaml:2:10: warning: in 'scale': tag 'pointwise' is not a tag of PyTorch 1.13 (its "
                               "ATen/core/enum_tag.h): left out of this build; at::Tag has data_dependent_output, "
                               "dynamic_output_shape"),
            std::string::npos)
      << v1.result.err;
  EXPECT_NE(v1.result.err.find("ops.yaml:2:21: warning: in 'scale': tag 'core'"), std::string::npos) << v1.result.err;
  const std::string schema1 = readFile(v1.out / "src/RegisterSchema.cpp");
  EXPECT_EQ(schema1.find("at::Tag::pointwise"), std::string::npos) << schema1;
  EXPECT_EQ(schema1.find("at::Tag::core"), std::string::npos) << schema1;
  EXPECT_EQ(schema1.find("at::Tag::pt2_compliant_tag"), std::string::npos) << schema1;
  // The step before the link (--check-kernels) checks again, without repeating the warnings.
  writeFile(dir1.path() / "empty.c", "int opgen_test_nothing;\n");
  const fs::path object1 = dir1.path() / "empty.o";
  ASSERT_TRUE(runProcess({"cc", "-c", (dir1.path() / "empty.c").string(), "-o", object1.string()}).ok());
  LibraryRun v1Check = library(dir1, kPt2Ops, {"--torch-version", "1.13", "--check-kernels", object1.string()});
  EXPECT_EQ(v1Check.result.err.find("warning: in 'scale': tag"), std::string::npos) << v1Check.result.err;
  LibraryRun v1Default = library(dir1, "- func: demo::f(Tensor self) -> Tensor\n", {"--torch-version", "1", "--default-tag", "pt2_compliant_tag"});
  ASSERT_TRUE(v1Default.result.ok()) << v1Default.result.describe();
  EXPECT_NE(v1Default.result.err.find("warning: default tag: tag 'pt2_compliant_tag' is not a tag of PyTorch 1."),
            std::string::npos)
      << v1Default.result.err;
  EXPECT_EQ(readFile(v1Default.out / "src/RegisterSchema.cpp").find("at::Tag::pt2_compliant_tag"), std::string::npos);
  // A tag declared nowhere (not in the library's tags.yaml) stays an error.
  TempDir dirUndeclared;
  writeFile(dirUndeclared.path() / "tags.yaml", kPt2Tags);
  LibraryRun undeclared = library(dirUndeclared, "- func: demo::f(Tensor self) -> Tensor\n  tags: fancy\n",
                                  {"--torch-version", "1.13"});
  EXPECT_EQ(undeclared.result.exitCode, 1) << undeclared.result.err;
  EXPECT_NE(undeclared.result.err.find("ops.yaml:2:9: error:"), std::string::npos) << undeclared.result.err;
  // (tags.yaml declares `inplace`, which torchgen's loader then adds; 1.x has no such at::Tag)
  const std::string untagged = "- func: demo::f_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: f_\n";
  LibraryRun v1Inplace = library(dir1, untagged, {"--torch-version", "1"});
  ASSERT_TRUE(v1Inplace.result.ok()) << v1Inplace.result.describe();
  EXPECT_EQ(v1Inplace.result.err, "") << "PyTorch 1 has no fake tensors to warn about";
  EXPECT_NE(readFile(v1Inplace.out / "src/RegisterSchema.cpp").find("m.def(\"f_(Tensor(a!) self) -> Tensor(a!)\");"),
            std::string::npos);
}

// `fake: python` (api::checkPythonFakes): the package imports the fake kernels file, the registration
// names its module, and a declaration that cannot hold is an error at its value.
TEST(LibraryPt2, PythonFakeKernelsAreDeclaredAtTheirEntryAndImportedByThePackage) {
  TempDir dir;
  writeFile(dir.path() / "fake.py", "import torch\n");
  const std::string fakes = (dir.path() / "fake.py").string();
  const std::string ops = "- func: demo::count(Tensor self) -> Tensor\n  dispatch:\n    CPU: count\n  fake: python\n\n"
                          "- func: demo::twice(Tensor self) -> Tensor\n  dispatch:\n    CPU: twice\n    Meta: twice\n";
  LibraryRun run = library(dir, ops, {"--python-module", "--python-fakes", fakes});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_EQ(run.result.err, "") << "count's Python fake counts as its way to run on fake tensors";
  EXPECT_EQ(readFile(run.out / "python/demo/fake.py"), "import torch\n");
  const std::string package = readFile(run.out / "python/demo/__init__.py");
  EXPECT_NE(package.find("_PYTHON_FAKES = {\n    \"demo::count\": \"ops.yaml:4:9\",\n}"), std::string::npos) << package;
  EXPECT_NE(package.find("_OTHER_OPERATORS = {\n    \"demo::twice\": \"ops.yaml:6:3\",\n}"), std::string::npos) << package;
  EXPECT_NE(package.find("    torch.ops.load_library(path)\n    _import_fake_kernels()\n"), std::string::npos) << package;
  const std::string schema = readFile(run.out / "src/RegisterSchema.cpp");
  const std::size_t twice = schema.find("m.def(\"twice("), pystub = schema.find("m.set_python_module(\"demo.fake\", "),
                    count = schema.find("m.def(\"count(");
  EXPECT_TRUE(twice < pystub && pystub < count && count != std::string::npos)
      << "only the operators with a Python fake kernel are defined after set_python_module:\n" << schema;

  // PyTorch 1: no fake tensors (the file is copied, not imported) and no set_python_module.
  TempDir dir1;
  LibraryRun v1 = library(dir1, ops, {"--python-module", "--python-fakes", fakes, "--torch-version", "1.13"});
  ASSERT_TRUE(v1.result.ok()) << v1.result.describe();
  EXPECT_TRUE(fs::exists(v1.out / "python/demo/fake.py"));
  EXPECT_EQ(readFile(v1.out / "python/demo/__init__.py").find("fake"), std::string::npos);
  EXPECT_EQ(readFile(v1.out / "src/RegisterSchema.cpp").find("set_python_module"), std::string::npos);

  // Without the file, or where the operator already runs on fake tensors: an error at `fake: python`.
  TempDir dirNo;
  LibraryRun none = library(dirNo, ops, {"--python-module"});
  EXPECT_EQ(none.result.exitCode, 1);
  EXPECT_NE(none.result.err.find("ops.yaml:4:9: error: in 'count': `fake: python`: the library has no Python fake "
                                 "kernels file to register it: add_operator_library(... PYTHON_MODULE PYTHON_FAKES fake.py)"),
            std::string::npos)
      << none.result.err;
  TempDir dirMeta;
  LibraryRun meta = library(dirMeta, "- func: demo::f(Tensor self) -> Tensor\n  dispatch:\n    CPU: f\n    Meta: f\n  fake: python\n",
                            {"--python-module", "--python-fakes", fakes});
  EXPECT_EQ(meta.result.exitCode, 1);
  EXPECT_NE(meta.result.err.find("ops.yaml:5:9: error: in 'f': `fake: python`: it has a Meta kernel"), std::string::npos)
      << meta.result.err;
  LibraryRun composite = library(dirMeta, "- func: demo::f(Tensor self) -> Tensor\n  fake: python\n",
                                 {"--python-module", "--python-fakes", fakes});
  EXPECT_NE(composite.result.err.find("ops.yaml:2:9: error: in 'f': `fake: python`: it has a composite kernel"),
            std::string::npos)
      << composite.result.err;
  LibraryRun other = library(dirMeta, "- func: demo::f(Tensor self) -> Tensor\n  fake: meta\n");
  EXPECT_NE(other.result.err.find("ops.yaml:2:9: error: in 'f': 'fake' must be `python`"), std::string::npos)
      << other.result.err;
  // A fake kernels file that no operator needs: a warning at the file.
  LibraryRun unused = library(dirMeta, "- func: demo::f(Tensor self) -> Tensor\n  dispatch:\n    CPU: f\n    Meta: f\n",
                              {"--python-module", "--python-fakes", fakes});
  ASSERT_TRUE(unused.result.ok()) << unused.result.describe();
  EXPECT_NE(unused.result.err.find(fakes + ":1:1: warning: no operator of the library says `fake: python`"),
            std::string::npos)
      << unused.result.err;
  LibraryRun noModule = library(dirMeta, ops, {"--python-fakes", fakes});
  EXPECT_NE(noModule.result.err.find("--python-fakes needs --python-module"), std::string::npos) << noModule.result.err;
}

TEST(LibraryPt2, ATagThatBreaksItsContractIsAnErrorAtTheTag) {
  TempDir dir;
  writeFile(dir.path() / "tags.yaml", kPt2Tags);
  LibraryRun run = library(dir, "- func: demo::f(Tensor(a!) self) -> Tensor\n  tags: inplace\n  dispatch:\n    CPU: f\n");
  EXPECT_EQ(run.result.exitCode, 1);
  EXPECT_NE(run.result.err.find("ops.yaml:2:9: error: in 'f': tag 'inplace' is for in-place overloads"), std::string::npos)
      << run.result.err;
  LibraryRun defaults = library(dir, kPt2Ops, {"--default-tag", "out"});
  EXPECT_NE(defaults.result.err.find("error: default tag: 'out' is given to the out= overloads by opgen"), std::string::npos)
      << defaults.result.err;
}

TEST(LibraryPt2, EveryOperatorWithAKernelHasAutogradAndStructuredOnesMeta) {
  TempDir dir;
  writeFile(dir.path() / "tags.yaml", kPt2Tags);
  const fs::path derivatives = dir.path() / "derivatives.yaml";
  // scale: formulas; scale_: its in-place overload, which reuses them; scale.out: its out= overload.
  writeFile(derivatives, "- name: scale(Tensor self, float factor) -> Tensor\n  self: grad * factor\n");
  LibraryRun run = library(dir, kPt2Ops, {"--derivatives", derivatives.string()});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  std::string schema = readFile(run.out / "src/RegisterSchema.cpp");
  EXPECT_EQ(schema.find("TORCH_LIBRARY_IMPL(demo, Autograd"), std::string::npos) << "every kernel has formulas:\n" << schema;

  // Without derivatives: not implemented, with the ADInplaceOrView fallback for the mutating ones;
  // twice (CompositeImplicitAutograd) is differentiated through its kernel.
  LibraryRun plain = library(dir, kPt2Ops);
  ASSERT_TRUE(plain.result.ok()) << plain.result.describe();
  schema = readFile(plain.out / "src/RegisterSchema.cpp");
  EXPECT_NE(schema.find("TORCH_LIBRARY_IMPL(demo, Autograd, m) {\n"
                        "  m.impl(\"scale\", torch::autograd::autogradNotImplementedFallback());\n"
                        "  m.impl(\"scale_\", torch::autograd::autogradNotImplementedFallback());\n"
                        "  m.impl(\"scale.out\", torch::autograd::autogradNotImplementedFallback());\n}"),
            std::string::npos)
      << schema;
  EXPECT_NE(schema.find("TORCH_LIBRARY_IMPL(demo, ADInplaceOrView, m) {\n"
                        "  m.impl(\"scale_\", torch::autograd::autogradNotImplementedInplaceOrViewFallback());\n"
                        "  m.impl(\"scale.out\", torch::autograd::autogradNotImplementedInplaceOrViewFallback());\n}"),
            std::string::npos)
      << schema;
  EXPECT_EQ(schema.find("\"twice\""), std::string::npos) << schema;

  // An entry whose inputs are all non_differentiable: registered to run below autograd, not dropped.
  writeFile(derivatives, "- name: scale(Tensor self, float factor) -> Tensor\n  self: non_differentiable\n");
  LibraryRun nondiff = library(dir, kPt2Ops, {"--derivatives", derivatives.string()});
  ASSERT_TRUE(nondiff.result.ok()) << nondiff.result.describe();
  schema = readFile(nondiff.out / "src/RegisterSchema.cpp");
  EXPECT_NE(schema.find("m.impl(\"scale\", torch::CppFunction::makeFromBoxedFunction<&opgen_non_differentiable>());"),
            std::string::npos)
      << schema;
  EXPECT_NE(schema.find("m.impl(\"scale_\", torch::CppFunction::makeFromBoxedFunction<&opgen_non_differentiable>());"),
            std::string::npos)
      << schema;

  // A structured operator gets Meta (its meta function) without `add_dispatch_backend(... Meta)`.
  const std::string structured = "- func: demo::s.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n"
                                 "  dispatch:\n    CPU: s_out\n- func: demo::s(Tensor self) -> Tensor\n  structured_delegate: s.out\n";
  writeFile(dir.path() / "ops.yaml", structured);
  const ProcessResult cpuOnly = runProcess({opgenBinary().string(), "library", (dir.path() / "ops.yaml").string(), "-o",
                                            (dir.path() / "cpu").string(), "--backend", "CPU"});
  ASSERT_TRUE(cpuOnly.ok()) << cpuOnly.describe();
  const std::string meta = readFile(dir.path() / "cpu/src/RegisterMeta.cpp");
  EXPECT_NE(meta.find("m.impl(\"s\", TORCH_FN(wrapper_Meta_s));"), std::string::npos) << meta;
  EXPECT_EQ(cpuOnly.err.find("warning"), std::string::npos) << cpuOnly.err;
}

// A view operator (api::libraryViews): a Functionalize kernel that runs the view or its view_copy
// variant and records a ViewMeta whose reverse calls the library's inverse, declared in
// NativeFunctions.h with torchgen's FunctionalInverses signature; a view opgen does not functionalize:
// a warning at its entry (PyTorch 2 only: 1.x has no torch.compile to refuse it).
constexpr const char* kViewOps = R"(- func: demo::narrow_to(Tensor(a) self, SymInt[] size) -> Tensor(a)
  dispatch:
    CompositeExplicitAutograd: narrow_to

- func: demo::narrow_to_copy(Tensor self, SymInt[] size) -> Tensor
  tags: view_copy
  dispatch:
    CompositeExplicitAutograd: narrow_to_copy

- func: demo::halves(Tensor(a -> *) self) -> Tensor(a)[]
  dispatch:
    CompositeExplicitAutograd: halves

- func: demo::halves_copy(Tensor self) -> Tensor[]
  tags: view_copy
  dispatch:
    CompositeExplicitAutograd: halves_copy
)";

TEST(LibraryPt2, ViewOperatorsGetAFunctionalizeKernelAndDeclareTheirInverse) {
  TempDir dir;
  writeFile(dir.path() / "tags.yaml", "- tag: view_copy\n  desc: v\n");
  LibraryRun run = library(dir, kViewOps);
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string schema = readFile(run.out / "src/RegisterSchema.cpp");
  const std::string native = readFile(run.out / "include/demo/NativeFunctions.h");
  EXPECT_NE(native.find("enum class InverseReturnMode { AlwaysView, NeverView, ViewOrScatterInverse };"), std::string::npos)
      << native;
  EXPECT_NE(native.find("TORCH_API at::Tensor narrow_to_inverse(const at::Tensor & base, const at::Tensor & mutated_view, "
                        "InverseReturnMode inverse_return_mode, c10::SymIntArrayRef size);"),
            std::string::npos)
      << native;
  EXPECT_EQ(native.find("halves_inverse"), std::string::npos);
  for (const char* text : {
           "TORCH_LIBRARY_IMPL(demo, Functionalize, m) {\n  m.impl(\"narrow_to\", TORCH_FN(demo::native::narrow_to_functionalize));\n}",
           "struct narrow_to_ViewMeta final : public at::functionalization::ViewMeta {",
           "return reapply_views ? demo::_ops::narrow_to::call(base, size) : demo::_ops::narrow_to_copy::call(base, size);",
           "return narrow_to_inverse(base, mutated_view, inverse_return_mode, size);",
           "  ::std::vector<c10::SymInt> size;",
           "has_symbolic_inputs = has_symbolic_inputs || (std::any_of(size.begin(), size.end(),",
           "tmp_output = reapply_views ? demo::_ops::narrow_to::call(self_, size) : demo::_ops::narrow_to_copy::call(self_, size);",
           "return at::detail::make_tensor<at::FunctionalTensorWrapper>(\n      tmp_output, "
           "at::functionalization::impl::unsafeGetFunctionalWrapper(self), view_meta);",
       })
    EXPECT_NE(schema.find(text), std::string::npos) << text << "\n" << schema;
  EXPECT_EQ(schema.find("halves_functionalize"), std::string::npos);
  EXPECT_EQ(lines(run.result.err),
            (std::vector<std::string>{
                (dir.path() / "ops.yaml").string() +
                ":10:3: warning: in 'halves': opgen generates no Functionalize kernel for this view operator: it returns "
                "more than one tensor (opgen functionalizes views with one output): torch.compile and AOTAutograd, which "
                "functionalize, refuse it (\"Found a custom (non-ATen) operator whose output has alias annotations\")"}))
      << run.result.err;

  // PyTorch 1.13: the same kernel (for functorch.functionalize), its ViewMeta from two replays without
  // has_symbolic_inputs; no warning.
  TempDir dir1;
  writeFile(dir1.path() / "tags.yaml", "- tag: view_copy\n  desc: v\n");
  LibraryRun v1 = library(dir1, kViewOps, {"--torch-version", "1.13"});
  ASSERT_TRUE(v1.result.ok()) << v1.result.describe();
  EXPECT_EQ(v1.result.err, "");
  const std::string schema1 = readFile(v1.out / "src/RegisterSchema.cpp");
  EXPECT_NE(schema1.find("m.impl(\"narrow_to\", TORCH_FN(demo::native::narrow_to_functionalize));"), std::string::npos) << schema1;
  EXPECT_EQ(schema1.find("public at::functionalization::ViewMeta"), std::string::npos) << schema1;
  EXPECT_NE(schema1.find("return replay->reverse(base, mutated_view);\n      });"), std::string::npos) << schema1;

  // Without the view_copy variant: torchgen's error at the view's entry.
  TempDir dirNoCopy;
  writeFile(dirNoCopy.path() / "tags.yaml", "- tag: view_copy\n  desc: v\n");
  LibraryRun noCopy = library(dirNoCopy, "- func: demo::narrow_to(Tensor(a) self, SymInt[] size) -> Tensor(a)\n  dispatch:\n    CPU: narrow_to\n");
  EXPECT_EQ(noCopy.result.exitCode, 1) << noCopy.result.describe();
  EXPECT_NE(noCopy.result.err.find((dirNoCopy.path() / "ops.yaml").string() +
                                   ":1:3: error: in 'narrow_to': appears to be a new operator that aliases its inputs"),
            std::string::npos)
      << noCopy.result.err;

  // An in-place view, and a view on the stable ABI (which registers no Functionalize kernels): warnings.
  TempDir dirStable;
  writeFile(dirStable.path() / "tags.yaml", "- tag: view_copy\n  desc: v\n- tag: inplace_view\n  desc: i\n");
  LibraryRun stable = library(dirStable, R"(- func: demo::narrow_to(Tensor(a) self, int[] size) -> Tensor(a)
  dispatch:
    CompositeExplicitAutograd: narrow_to

- func: demo::narrow_to_(Tensor(a!) self, int[] size) -> Tensor(a!)
  tags: inplace_view
  dispatch:
    CompositeExplicitAutograd: narrow_to_

- func: demo::narrow_to_copy(Tensor self, int[] size) -> Tensor
  tags: view_copy
  dispatch:
    CompositeExplicitAutograd: narrow_to_copy
)", {"--stable-abi", "2.12"});
  ASSERT_TRUE(stable.result.ok()) << stable.result.describe();
  const std::string y = (dirStable.path() / "ops.yaml").string();
  const std::string refused = ": torch.compile and AOTAutograd, which functionalize, refuse it (\"Found a custom (non-ATen) "
                              "operator whose output has alias annotations\")";
  EXPECT_EQ(lines(stable.result.err),
            (std::vector<std::string>{
                y + ":1:3: warning: in 'narrow_to': opgen generates no Functionalize kernel for this view operator: the "
                    "stable ABI registers no Functionalize kernels" + refused,
                y + ":5:3: warning: in 'narrow_to_': opgen generates no Functionalize kernel for an in-place view "
                    "operator" + refused}))
      << stable.result.err;
  EXPECT_EQ(readFile(stable.out / "src/RegisterSchema.cpp").find("Functionalize"), std::string::npos);
}

}  // namespace
