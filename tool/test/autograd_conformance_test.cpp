// Conformance of `opgen autograd` with torchgen's packaged/autograd generators (the reference,
// torchgen 2.14.1), family by family: only the families opgen writes are compared, each with the
// reference's own generators for them (tool/test/reference/autograd_ref.py FAMILY,... ):
//   gen_autograd's, as far as opgen writes them (`opgen autograd`), after load_derivatives' checks:
//     variable_type        VariableType.h, VariableType_0..9.cpp, VariableTypeEverything.cpp,
//                          templates/VariableType.cpp (gen_variable_type)
//     inplace_or_view      ADInplaceOrViewType_0..1.cpp, ADInplaceOrViewTypeEverything.cpp
//     trace_type           TraceType_0..9.cpp, TraceTypeEverything.cpp (gen_trace_type)
//     functions            Functions.h, Functions.cpp (gen_autograd_functions_lib)
//     view_funcs           ViewFuncs.h, ViewFuncs.cpp (gen_view_funcs)
//     variable_factories   variable_factories.h (gen_variable_factories)
//   with --python, what gen_autograd_python writes after gen_autograd in the same process (python_functions.h,
//   python_functions_0..4.cpp, python_functionsEverything.cpp and the Python bindings)
//   annotated_fn_args      annotated_fn_args.py (gen_annotated_fn_args, `opgen autograd --annotated-fn-args`)
// Both tools run into empty folders of their own with the same arguments (NATIVE TAGS OUT
// AUTOGRAD_DIR; AUTOGRAD_DIR is the reference's packaged/autograd for ATen, else one with an empty
// derivatives.yaml and the reference's templates, read at run time), and the folders must hold the
// same files, equal byte for byte. Inputs:
//   Aten         PyTorch 2.14.1's native_functions.yaml and tags.yaml (torchgen's packaged copy); also
//                against the whole of gen_autograd with ATen's derivatives.yaml (AtenWholeGenAutograd)
//   AtenSubset   a subset of it cut at test time (tool/test/reference/dump_model.py subset)
//   LibOps       tool/test/data/gen_conformance/libops.yaml (custom namespaces)
//   PyOps        tool/test/data/python_conformance/ (Python binding corner cases)
//   Factories    tool/test/data/autograd_conformance/factories.yaml (factories, annotated arguments) with
//                its derivatives.yaml (nodes that keep every kind of value, in-place formulas)
// and inputs that both refuse (opgen with one FILE:LINE:COL: error: line, writing nothing).
//
// The reference is shared/reference/torchgen-ref ($OPGEN_TORCHGEN_REF, else the path configured in
// CMake); without it every test here is skipped, saying so.
//
// Run:  build/tool/test/opgen_tests --gtest_filter='AutogradConformance*'
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
fs::path autogradDir() { return packaged() / "autograd"; }

struct Inputs {
  fs::path nativeFunctions, tags;
  fs::path autograd = autogradDir();  // AUTOGRAD_DIR
  std::string commentDir = {};        // opgen's --comment-dir, when set
};

// Inputs other than ATen's, with an AUTOGRAD_DIR of their own in `work`: an empty derivatives.yaml and
// the reference's templates (a link). Its templates are named in comments as the reference names them,
// relative to the torchgen package.
Inputs custom(const fs::path& nativeFunctions, const fs::path& tags, const fs::path& work,
              const std::string& derivatives = "[]\n") {
  const fs::path dir = fs::absolute(work) / "autograd";
  fs::create_directories(dir);
  writeFile(dir / "derivatives.yaml", derivatives);
  writeFile(dir / "deprecated.yaml", "[]\n");
  fs::create_directory_symlink(autogradDir() / "templates", dir / "templates");
  return {nativeFunctions, tags, dir,
          (dir / "templates").lexically_normal().lexically_relative(fs::absolute(reference().root / "torchgen").lexically_normal()).string()};
}

struct Family {
  const char* name;         // autograd_ref.py's FAMILY
  const char* opgenOption;  // "" or the option of `opgen autograd` that writes it
  std::set<std::string> files;
};

std::set<std::string> autogradFiles() {
  std::set<std::string> files = {"VariableType.h", "variable_factories.h", "TraceTypeEverything.cpp", "Functions.h",
                                 "Functions.cpp", "ViewFuncs.h", "ViewFuncs.cpp", "ADInplaceOrViewType_0.cpp",
                                 "ADInplaceOrViewType_1.cpp", "ADInplaceOrViewTypeEverything.cpp"};
  for (int i = 0; i < 10; ++i) files.insert("TraceType_" + std::to_string(i) + ".cpp");
  for (int i = 0; i < 10; ++i) files.insert("VariableType_" + std::to_string(i) + ".cpp");
  files.insert("VariableTypeEverything.cpp");
  files.insert("templates/VariableType.cpp");
  return files;
}
const Family kAutograd{"load_derivatives,variable_type,inplace_or_view,trace_type,functions,variable_factories,view_funcs", "", autogradFiles()};
std::set<std::string> autogradPythonFiles() {
  std::set<std::string> files = autogradFiles();
  for (const char* f : {"python_functions.h", "python_functionsEverything.cpp", "python_torch_functionsEverything.cpp",
                        "python_variable_methods.cpp", "python_nn_functions.cpp", "python_fft_functions.cpp",
                        "python_linalg_functions.cpp", "python_nested_functions.cpp", "python_sparse_functions.cpp",
                        "python_special_functions.cpp", "python_return_types.h", "python_return_types.cpp",
                        "python_enum_tag.cpp"})
    files.insert(f);
  for (int i = 0; i < 5; ++i) files.insert("python_functions_" + std::to_string(i) + ".cpp");
  for (int i = 0; i < 3; ++i) files.insert("python_torch_functions_" + std::to_string(i) + ".cpp");
  return files;
}
const Family kAutogradPython{"load_derivatives,variable_type,inplace_or_view,trace_type,functions,variable_factories,view_funcs,python",
                             "--python", autogradPythonFiles()};
const Family kAnnotatedFnArgs{"annotated_fn_args", "--annotated-fn-args", {"annotated_fn_args.py"}};

ProcessResult runReference(const Family& family, const fs::path& out, const Inputs& in) {
  fs::create_directories(out);
  return reference().python({(fs::path(OPGEN_TEST_SCRIPTS) / "autograd_ref.py").string(), family.name,
                             in.nativeFunctions.string(), in.tags.string(), out.string(), in.autograd.string()});
}

ProcessResult runOpgen(const Family& family, const fs::path& out, const Inputs& in) {
  std::vector<std::string> argv = {opgen::test::opgenBinary().string(), "autograd"};
  if (*family.opgenOption) argv.emplace_back(family.opgenOption);
  if (!in.commentDir.empty()) argv.insert(argv.end(), {"--comment-dir", in.commentDir});
  for (const fs::path& p : {in.nativeFunctions, in.tags, out, in.autograd}) argv.push_back(p.string());
  return runProcess(argv);
}

std::set<std::string> filesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) names.insert(fs::relative(e.path(), dir).string());
  return names;
}

void expectSameFiles(const Family& family, const fs::path& ref, const fs::path& opg) {
  const std::set<std::string> refFiles = filesIn(ref), opgFiles = filesIn(opg);
  EXPECT_EQ(refFiles, family.files) << "the reference wrote other files than " << family.name << "'s";
  EXPECT_EQ(refFiles, opgFiles) << "the two tools wrote different sets of files";
  for (const std::string& name : refFiles) {
    if (!opgFiles.count(name)) continue;
    const std::string expected = readFile(ref / name), actual = readFile(opg / name);
    if (expected != actual) ADD_FAILURE() << describeDifference(name, expected, actual);
  }
}

#define REQUIRE_REFERENCE()                                          \
  do {                                                               \
    if (!reference().available) GTEST_SKIP() << reference().problem; \
  } while (0)

void conform(const Inputs& in, const char* label,
             const std::vector<const Family*>& families = {&kAutograd, &kAutogradPython, &kAnnotatedFnArgs}) {
  for (const Family* family : families) {
    SCOPED_TRACE(std::string(label) + ", " + family->name);
    TempDir dir("opgen-autograd-conformance");
    ProcessResult ref = runReference(*family, dir / "ref", in);
    ASSERT_TRUE(ref.ok()) << "the reference failed: " << ref.describe();
    ProcessResult opg = runOpgen(*family, dir / "opgen", in);
    ASSERT_TRUE(opg.ok()) << opg.describe();
    expectSameFiles(*family, dir / "ref", dir / "opgen");
  }
}

Inputs aten() { return {packaged() / "ATen/native/native_functions.yaml", packaged() / "ATen/native/tags.yaml"}; }

TEST(AutogradConformance, Aten) {
  REQUIRE_REFERENCE();
  conform(aten(), "ATen");
}

// The whole of gen_autograd on ATen (python -m torchgen.packaged.autograd.gen_autograd, with ATen's
// derivatives.yaml): opgen writes the same 32 files, with the same bytes.
TEST(AutogradConformance, AtenWholeGenAutograd) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-autograd-whole");
  fs::create_directories(dir / "ref");
  const Inputs in = aten();
  ProcessResult ref = reference().python({"-m", "torchgen.packaged.autograd.gen_autograd", in.nativeFunctions.string(),
                                          in.tags.string(), (dir / "ref").string(), autogradDir().string()});
  ASSERT_TRUE(ref.ok()) << "the reference failed: " << ref.describe();
  ProcessResult opg = runOpgen(kAutograd, dir / "opgen", in);
  ASSERT_TRUE(opg.ok()) << opg.describe();
  const std::set<std::string> opgFiles = filesIn(dir / "opgen");
  EXPECT_EQ(opgFiles, kAutograd.files);
  EXPECT_EQ(filesIn(dir / "ref"), opgFiles) << "opgen autograd writes other files than gen_autograd";
  for (const std::string& name : opgFiles) {
    ASSERT_TRUE(fs::exists(dir / "ref" / name)) << "gen_autograd does not write " << name;
    const std::string expected = readFile(dir / "ref" / name), actual = readFile(dir / "opgen" / name);
    if (expected != actual) ADD_FAILURE() << describeDifference(name, expected, actual);
  }
}

TEST(AutogradConformance, AtenRerunWritesNothing) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-autograd-rerun");
  ProcessResult first = runOpgen(kAutograd, dir / "out", aten());
  ASSERT_TRUE(first.ok()) << first.describe();
  const auto before = fs::last_write_time(dir / "out/TraceType_3.cpp");
  ProcessResult again = runOpgen(kAutograd, dir / "out", aten());
  ASSERT_TRUE(again.ok()) << again.describe();
  EXPECT_NE(again.err.find("0 files written, 32 unchanged"), std::string::npos) << again.err;
  EXPECT_EQ(before, fs::last_write_time(dir / "out/TraceType_3.cpp"));
}

// ATen with derivatives.yaml edited at test time: every third entry of a private operator removed (node
// counters, view copies and functions without formulas shift) and entries added.
TEST(AutogradConformance, AtenEditedDerivatives) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-autograd-edited");
  const std::string text = readFile(autogradDir() / "derivatives.yaml");
  std::string edited;
  std::size_t entry = 0, from = 0;
  while (from < text.size()) {
    std::size_t next = text.find("\n- name:", from + 1);
    if (next == std::string::npos) next = text.size();
    const std::string chunk = text.substr(from, next - from);
    // Every third entry of a private operator goes (not a foreach function's reference: gen_autograd
    // needs those).
    const bool isPrivate = chunk.find("- name: _") != std::string::npos && chunk.find("- name: _foreach") == std::string::npos;
    if (!isPrivate || entry++ % 3 != 1) edited += chunk;
    from = next;
  }
  edited += "\n- name: _test_autograd_multiple_dispatch.fullcoverage(Tensor self) -> Tensor\n"
            "  dispatch:\n    AutogradCUDA:\n      self: grad.sym_size(-1) * self.sym_numel() + zeros_like(self)\n"
            "      result: auto_element_wise\n"
            "\n- name: _test_autograd_multiple_dispatch.ntonly(Tensor self, bool b) -> Tensor\n"
            "  self: \"b ? grad * self.options().dtype().itemsize() : grad.expand_symint(self.sym_sizes())\"\n"
            "  result: auto_linear\n";
  Inputs in = custom(aten().nativeFunctions, aten().tags, dir.path(), edited);
  conform(in, "ATen, edited derivatives.yaml");
}

TEST(AutogradConformance, AtenSubset) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-autograd-subset");
  const std::vector<std::string> prefixes = {"zeros", "empty", "arange", "rand", "full", "ones", "eye", "linspace",
                                             "round", "scatter", "diagonal", "conv", "linalg_", "fft_", "special_",
                                             "max_pool", "from_file", "tril_indices"};
  std::vector<std::string> args = {(fs::path(OPGEN_TEST_SCRIPTS) / "dump_model.py").string(), "subset",
                                   aten().nativeFunctions.string(), (dir / "subset.yaml").string()};
  args.insert(args.end(), prefixes.begin(), prefixes.end());
  ProcessResult cut = reference().python(args);
  ASSERT_TRUE(cut.ok()) << "cannot cut the ATen subset: " << cut.describe();
  conform(custom(dir / "subset.yaml", aten().tags, dir.path(),
                 "- name: round(Tensor self) -> Tensor\n  self: zeros_like(grad)\n  result: auto_element_wise\n"),
          "ATen subset");
}

TEST(AutogradConformance, LibOps) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-autograd-libops");
  conform(custom(dataDir() / "gen_conformance/libops.yaml", dataDir() / "gen_conformance/tags.yaml", dir.path(),
                 "- name: foo(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  self: grad\n"
                 "  other: maybe_multiply(grad, alpha.conj())\n  result: self_t + maybe_multiply(other_t, alpha)\n"),
          "libops");
}

TEST(AutogradConformance, PyOps) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-autograd-pyops");
  const Inputs in = custom(dataDir() / "python_conformance/pyops.yaml", dataDir() / "python_conformance/tags.yaml", dir.path(),
                           "- name: ones2_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
                           "device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor\n"
                           "  self: zeros_like(grad)\n");
  writeFile(in.autograd / "deprecated.yaml", readFile(dataDir() / "python_conformance/deprecated.yaml"));
  conform(in, "pyops");
}

TEST(AutogradConformance, Factories) {
  REQUIRE_REFERENCE();
  TempDir dir("opgen-autograd-factories");
  conform(custom(dataDir() / "autograd_conformance/factories.yaml", dataDir() / "gen_conformance/tags.yaml", dir.path(),
                 readFile(dataDir() / "autograd_conformance/derivatives.yaml")),
          "factories", {&kAutograd, &kAnnotatedFnArgs});  // (gen_python_functions cannot bind all of them)
}

// Inputs torchgen refuses: opgen refuses them too, with exactly one located error line, and writes nothing.
struct Refusal {
  const char* name;
  const Family* family;
  const char* yaml;     // appended to factories.yaml
  const char* message;  // part of opgen's error
  // AUTOGRAD_DIR/derivatives.yaml (gen_autograd needs an entry for the key Default).
  const char* derivatives = "- name: plain_like(Tensor self, float fill=0.5) -> Tensor\n  self: grad * fill\n";
};

class AutogradRefusal : public ::testing::TestWithParam<Refusal> {};

TEST_P(AutogradRefusal, BothRefuse) {
  REQUIRE_REFERENCE();
  const Refusal& r = GetParam();
  TempDir dir("opgen-autograd-refusal");
  writeFile(dir / "ops.yaml", readFile(dataDir() / "autograd_conformance/factories.yaml") + r.yaml);
  const Inputs in = custom(dir / "ops.yaml", dataDir() / "gen_conformance/tags.yaml", dir.path());
  writeFile(in.autograd / "derivatives.yaml", r.derivatives);
  ProcessResult ref = runReference(*r.family, dir / "ref", in);
  EXPECT_FALSE(ref.ok()) << "the reference accepted the input";
  ProcessResult opg = runOpgen(*r.family, dir / "opgen", in);
  EXPECT_EQ(opg.exitCode, 1) << opg.describe();
  ASSERT_FALSE(opg.err.empty());
  EXPECT_EQ(opg.err.find('\n'), opg.err.size() - 1) << "expected one line:\n" << opg.err;
  EXPECT_NE(opg.err.find(".yaml:"), std::string::npos) << opg.err;  // ops.yaml or derivatives.yaml
  EXPECT_NE(opg.err.find(": error: "), std::string::npos) << opg.err;
  EXPECT_NE(opg.err.find(r.message), std::string::npos) << opg.err;
  EXPECT_FALSE(fs::exists(dir / "opgen")) << "opgen wrote files for a refused input";
}

INSTANTIATE_TEST_SUITE_P(
    AutogradConformance, AutogradRefusal,
    ::testing::Values(
        Refusal{"BoolListWithoutSize", &kAnnotatedFnArgs,
                "\n- func: masked(Tensor self, bool[] mask) -> Tensor\n  dispatch:\n    CPU: masked\n",
                "a bool list must have a size"},
        Refusal{"BoolListWithoutSizeInKernels", &kAutograd,
                "\n- func: masked(Tensor self, bool[] mask) -> Tensor\n  dispatch:\n    CPU: masked\n", "argument 'mask'"},
        Refusal{"FixedSizeListReturn", &kAutograd,
                "\n- func: odd(Tensor self) -> (Tensor, Tensor[2])\n  dispatch:\n    CPU: odd\n", "fixed size list returns"},
        Refusal{"NoDefaultFormulas", &kAutograd, "", "no entry of derivatives.yaml is for the key Default", "[]\n"},
        Refusal{"DerivativesOfUnknownFunction", &kAutograd, "",
                "could not find ATen function for schema: frob(Tensor self) -> Tensor",
                "- name: frob(Tensor self) -> Tensor\n  self: grad\n"},
        // Like gen_autograd, derivatives.yaml's problem is the one reported (it is read first).
        Refusal{"DerivativesBeforeKernels", &kAutograd,
                "\n- func: masked(Tensor self, bool[] mask) -> Tensor\n  dispatch:\n    CPU: masked\n",
                "could not find ATen function for schema: frob(Tensor self) -> Tensor",
                "- name: frob(Tensor self) -> Tensor\n  self: grad\n"},
        // gen_autograd parses derivatives.yaml before the native functions.
        Refusal{"DerivativesSyntaxBeforeNativeFunctions", &kAutograd,
                "\n- func: weird(Tensor self, Frobnicator f) -> Tensor\n", "derivatives.yaml:2:1: error: invalid YAML",
                "- name: [unclosed\n"},
        Refusal{"DerivativesGradsMixed", &kAutograd, "", "illegally mixes use of 'grad' and 'grads'",
                "- name: plain_like(Tensor self, float fill=0.5) -> Tensor\n  self: grad + grads[0]\n"},
        Refusal{"NodeKeepsNonOwningReference", &kAutograd, "", "looks like it contains a non-owning reference",
                "- name: mixed(Tensor self, Tensor? weight, Scalar[] values, float[] ratios, Stream s, *, Tensor?[] indices, "
                "str reduce) -> Tensor\n  self: grad * ratios[0]\n"},
        Refusal{"FormulaForCompositeImplicit", &kAutograd, "\n- func: implicit_op(Tensor self) -> Tensor\n",
                "There's a formula for implicit_op",
                "- name: implicit_op(Tensor self) -> Tensor\n  self: grad\n"},
        Refusal{"UnknownSchemaType", &kAutograd, "\n- func: weird(Tensor self, Frobnicator f) -> Tensor\n",
                "Frobnicator"}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

}  // namespace
