// Conformance of `opgen python` with torchgen's gen_python_functions.gen (the reference, torchgen 2.14.1).
//
// Every input runs both tools, each into its own empty folder, with the same native functions,
// tags, deprecated signatures and templates (the reference's packaged autograd templates), and
// compares the folders: the same 14 files, each equal byte for byte (a mismatch names the file and
// shows the first differing lines). Inputs:
//   Aten         torchgen's packaged ATen and deprecated.yaml (`torchgen-ref python-bindings`, ~7 s)
//   AtenSubset   a subset of ATen cut at test time (tool/test/reference/dump_model.py subset) that
//                keeps every function deprecated.yaml names, and more families (structseq returns,
//                factories, foreach, linalg/fft/special/nested/sparse/nn functions)
//   LibOps       tool/test/data/gen_conformance/libops.yaml (custom namespaces), no deprecated signatures
//   PyOps        tool/test/data/python_conformance/ (binding corner cases, its own deprecated.yaml)
// and inputs that both tools refuse (opgen with one FILE:LINE:COL: error: line).
//
// The reference is shared/reference/torchgen-ref ($OPGEN_TORCHGEN_REF, else the path configured in
// CMake); without it every test here is skipped, saying so. OPGEN_KEEP_TEMP=1 keeps the folders.
//
// Run:  build/tool/test/opgen_tests --gtest_filter='PythonConformance*'
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "TestSupport.h"

namespace {

namespace fs = std::filesystem;
using opgen::test::describeDifference;
using opgen::test::ProcessResult;
using opgen::test::readFile;
using opgen::test::reference;
using opgen::test::runProcess;
using opgen::test::TempDir;
using opgen::test::writeFile;

fs::path dataDir() { return fs::path(OPGEN_TEST_DATA); }
fs::path packaged() { return reference().root / "torchgen/packaged"; }
fs::path templates() { return packaged() / "autograd/templates"; }
fs::path atenDeprecated() { return packaged() / "autograd/deprecated.yaml"; }

struct Inputs {
  fs::path nativeFunctions, tags, deprecated;
};

// gen_python_functions.gen(OUT, NF, TAGS, DEPRECATED, TEMPLATES) in the reference.
ProcessResult runReference(const fs::path& out, const Inputs& in) {
  static const std::string script =
      "import sys\n"
      "from torchgen.packaged.autograd import gen_python_functions as g\n"
      "g.gen(*sys.argv[1:6])\n";
  fs::create_directories(out);
  return reference().python({"-c", script, out.string(), in.nativeFunctions.string(), in.tags.string(),
                             in.deprecated.string(), templates().string()});
}

ProcessResult runOpgen(const fs::path& out, const Inputs& in) {
  return runProcess({opgen::test::opgenBinary().string(), "python", "--native-functions", in.nativeFunctions.string(),
                     "--tags", in.tags.string(), "--deprecated", in.deprecated.string(), "--templates",
                     templates().string(), "-o", out.string()});
}

std::set<std::string> filesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) names.insert(fs::relative(e.path(), dir).string());
  return names;
}

// Both folders hold the same files with the same bytes.
void expectSameFiles(const fs::path& ref, const fs::path& opg) {
  const std::set<std::string> refFiles = filesIn(ref), opgFiles = filesIn(opg);
  EXPECT_EQ(refFiles, opgFiles) << "the two tools wrote different sets of files";
  EXPECT_EQ(refFiles.size(), 14u) << "gen_python_functions writes 14 files";
  for (const std::string& name : refFiles) {
    if (!opgFiles.count(name)) continue;
    const std::string expected = readFile(ref / name), actual = readFile(opg / name);
    if (expected != actual) ADD_FAILURE() << describeDifference(name, expected, actual);
  }
}

#define REQUIRE_REFERENCE()                                             \
  do {                                                                  \
    OPGEN_REQUIRE_REFERENCE();    \
  } while (0)

void conform(const Inputs& in) {
  TempDir dir("opgen-python-conformance");
  ProcessResult ref = runReference(dir / "ref", in);
  ASSERT_TRUE(ref.ok()) << "the reference failed: " << ref.describe();
  ProcessResult opg = runOpgen(dir / "opgen", in);
  ASSERT_TRUE(opg.ok()) << opg.describe();
  expectSameFiles(dir / "ref", dir / "opgen");
}

TEST(PythonConformance, Aten) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-python-conformance");
  ProcessResult ref = reference().run({"python-bindings", (dir / "ref").string()});
  ASSERT_TRUE(ref.ok()) << ref.describe();
  const Inputs in{packaged() / "ATen/native/native_functions.yaml", packaged() / "ATen/native/tags.yaml", atenDeprecated()};
  ProcessResult opg = runOpgen(dir / "opgen", in);
  ASSERT_TRUE(opg.ok()) << opg.describe();
  expectSameFiles(dir / "ref", dir / "opgen");

  // A second run finds every file up to date and rewrites none.
  const auto before = fs::last_write_time(dir / "opgen/python_variable_methods.cpp");
  ProcessResult again = runOpgen(dir / "opgen", in);
  ASSERT_TRUE(again.ok()) << again.describe();
  EXPECT_NE(again.err.find("0 files written, 14 unchanged"), std::string::npos) << again.err;
  EXPECT_EQ(before, fs::last_write_time(dir / "opgen/python_variable_methods.cpp"));
}

TEST(PythonConformance, AtenSubset) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-python-subset");
  // deprecated.yaml's functions (add ... sub), then one or more of every kind of binding.
  const std::vector<std::string> prefixes = {
      "add", "baddbmm", "sspaddmm", "sub", "max", "topk", "zeros", "empty", "arange", "_foreach_add", "conv",
      "linalg_eig", "fft_fft", "special_erf", "to_padded_tensor", "_to_sparse", "new_", "randint", "__", "is_",
      "native_batch_norm", "_fused_moving_avg", "size", "index"};
  std::vector<std::string> args = {(fs::path(OPGEN_TEST_SCRIPTS) / "dump_model.py").string(), "subset",
                                   (packaged() / "ATen/native/native_functions.yaml").string(),
                                   (dir / "subset.yaml").string()};
  args.insert(args.end(), prefixes.begin(), prefixes.end());
  ProcessResult cut = reference().python(args);
  ASSERT_TRUE(cut.ok()) << "cannot cut the ATen subset: " << cut.describe();
  conform({dir / "subset.yaml", packaged() / "ATen/native/tags.yaml", atenDeprecated()});
}

TEST(PythonConformance, LibOps) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-python-libops");
  writeFile(dir / "deprecated.yaml", "[]\n");
  conform({dataDir() / "gen_conformance/libops.yaml", dataDir() / "gen_conformance/tags.yaml", dir / "deprecated.yaml"});
}

TEST(PythonConformance, PyOps) {
  REQUIRE_REFERENCE();
  const fs::path data = dataDir() / "python_conformance";
  conform({data / "pyops.yaml", data / "tags.yaml", data / "deprecated.yaml"});
}

// Inputs torchgen refuses: opgen refuses them too, with exactly one error line, and writes nothing.
struct Refusal {
  const char* name;
  const char* yaml;        // appended to pyops.yaml
  const char* deprecated;  // the deprecated.yaml
  const char* message;     // part of opgen's error
};

class PythonRefusal : public ::testing::TestWithParam<Refusal> {};

TEST_P(PythonRefusal, BothRefuse) {
  REQUIRE_REFERENCE();
  const Refusal& r = GetParam();
  TempDir dir("opgen-python-refusal");
  const fs::path data = dataDir() / "python_conformance";
  writeFile(dir / "ops.yaml", readFile(data / "pyops.yaml") + r.yaml);
  writeFile(dir / "deprecated.yaml", r.deprecated);
  const Inputs in{dir / "ops.yaml", data / "tags.yaml", dir / "deprecated.yaml"};
  ProcessResult ref = runReference(dir / "ref", in);
  EXPECT_FALSE(ref.ok()) << "the reference accepted the input";
  ProcessResult opg = runOpgen(dir / "opgen", in);
  EXPECT_EQ(opg.exitCode, 1) << opg.describe();
  ASSERT_FALSE(opg.err.empty());
  EXPECT_EQ(opg.err.find('\n'), opg.err.size() - 1) << "expected one line:\n" << opg.err;
  EXPECT_NE(opg.err.find(": error: "), std::string::npos) << opg.err;
  EXPECT_NE(opg.err.find(r.message), std::string::npos) << opg.err;
  EXPECT_FALSE(fs::exists(dir / "opgen")) << "opgen wrote files for a refused input";
}

INSTANTIATE_TEST_SUITE_P(
    PythonConformance, PythonRefusal,
    ::testing::Values(
        Refusal{"DeprecatedWithoutMatch", "", "- name: blend(Tensor self, int alpha, Tensor other) -> Tensor\n  aten: blend(self, other, alpha)\n",
                "No native function with name blend matched"},
        Refusal{"DeprecatedUnknownArgument", "", "- name: blend(Tensor self, Tensor other) -> Tensor\n  aten: blend(self, other, beta)\n",
                "Unrecognized value beta"},
        Refusal{"OutWithoutFunctional", "\n- func: lonely.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n", "[]\n",
                "without a corresponding non-out variant"},
        Refusal{"UnsupportedType", "\n- func: masked(Tensor self, bool[3] mask) -> Tensor\n", "[]\n",
                "type 'bool[3]' is not supported by PythonArgParser"},
        Refusal{"UnsupportedReturn", "\n- func: weird(Tensor self) -> (Tensor, float, float)\n", "[]\n",
                "returns unsupported type"}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

}  // namespace
