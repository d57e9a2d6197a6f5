// `opgen backend` beyond torchgen, through the binary: the header's include path, per-operator
// `structured: true`, namespaces deeper than two levels, PyTorch 1.13.1's native_functions.yaml
// with 1.x spellings (and the files compile against Debian's libtorch 1.13.1), --list-outputs,
// --stamp/--depfile, write-if-changed, and the errors only opgen has. (What torchgen also does is
// compared with it in backend_conformance_test.cpp.)
//
// ATen's native_functions.yaml comes from the reference's package (skipped without it); the 1.x
// cases use Debian's python3-torch 1.13.1 (OPGEN_TORCH_LEGACY_YAML; skipped without it).
#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include "TestSupport.h"

namespace {

using namespace opgen::test;

fs::path dataDir() { return fs::path(OPGEN_TEST_DATA) / "backend_conformance"; }

struct BackendRun {
  ProcessResult result;
  fs::path out;
  std::string file(const std::string& name) const { return readFile(out / name); }
};

// `opgen backend -s YAML -o out --native-functions NF ARGS` in `dir`; the YAML text is written there.
BackendRun backend(const TempDir& dir, const std::string& yaml, std::vector<std::string> extra = {},
            std::optional<fs::path> nativeFunctions = std::nullopt) {
  writeFile(dir / "backend.yaml", yaml);
  const fs::path nf = nativeFunctions.value_or(reference().atenNativeFunctions());
  std::vector<std::string> argv = {opgenBinary().string(), "backend", "-s", (dir / "backend.yaml").string(), "-o",
                                   (dir / "out").string(), "--native-functions", nf.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return {runProcess(argv), dir / "out"};
}

#define REQUIRE_ATEN()                                                  \
  do {                                                                  \
    OPGEN_REQUIRE_REFERENCE();    \
  } while (0)

constexpr const char* kSmall = R"(backend: PrivateUse1
cpp_namespace: dev
supported:
  - abs
  - add.Tensor
)";

TEST(Backend, HeaderIncludedByTheOutputDirectoryAsGivenByDefault) {
  REQUIRE_ATEN();
  TempDir dir;
  BackendRun run = backend(dir, kSmall);
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_NE(run.file("RegisterPrivateUse1.cpp").find("#include \"" + (dir / "out").string() + "/PrivateUse1NativeFunctions.h\""),
            std::string::npos);
}

TEST(Backend, IncludePrefixChoosesTheHeadersPath) {
  REQUIRE_ATEN();
  TempDir dir;
  BackendRun run = backend(dir, kSmall, {"--include-prefix", "dev/generated"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string reg = run.file("RegisterPrivateUse1.cpp");
  EXPECT_NE(reg.find("\n#include \"dev/generated/PrivateUse1NativeFunctions.h\"\n"), std::string::npos) << reg.substr(0, 2000);
  EXPECT_EQ(reg.find(dir.path().string()), std::string::npos) << "the output directory still appears";

  TempDir bare;
  BackendRun run2 = backend(bare, kSmall, {"--include-prefix="});
  ASSERT_TRUE(run2.result.ok()) << run2.result.describe();
  EXPECT_NE(run2.file("RegisterPrivateUse1.cpp").find("\n#include \"PrivateUse1NativeFunctions.h\"\n"), std::string::npos);
}

TEST(Backend, StructuredKernelsGetTheMetaImplSplit) {
  REQUIRE_ATEN();
  TempDir dir;
  // torchgen 2.14.1 crashes on this file (pytorch/pytorch PR 172539's syntax).
  BackendRun run = backend(dir, readFile(fs::path(OPGEN_TORCHGEN_REF_DEFAULT).parent_path() /
                                  "backends/pytorch-openreg_openreg_native_functions.yaml"));
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string header = run.file("PrivateUse1NativeFunctions.h");
  // Three levels of namespace (torchgen allows two).
  EXPECT_NE(header.find("namespace at {\nnamespace native {\nnamespace openreg {\n"), std::string::npos) << header;
  // The kernel class derives from ATen's meta class; unstructured kernels stay static functions.
  EXPECT_NE(header.find("#include <ATen/Tensor.h>\n#include <ATen/ops/maximum_meta.h>\n"), std::string::npos);
  EXPECT_NE(header.find("struct structured_maximum_out : public at::meta::structured_maximum {\n"
                        "void impl(const at::Tensor & self, const at::Tensor & other, const at::Tensor & out);\n};"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("static at::Tensor & div_out(const at::Tensor & self, const at::Tensor & other, at::Tensor & out);"),
            std::string::npos)
      << header;
  const std::string reg = run.file("RegisterPrivateUse1.cpp");
  // The functional and out= wrappers (maximum has no in-place variant) run ATen's meta() and the
  // backend's impl().
  for (const char* variant : {"functional", "out"}) {
    EXPECT_NE(reg.find(std::string("struct structured_maximum_out_") + variant +
                       " final : public at::native::openreg::PrivateUse1NativeFunctions::structured_maximum_out {"),
              std::string::npos)
        << variant << "\n"
        << reg;
  }
  EXPECT_NE(reg.find("op.meta(self, other);"), std::string::npos);
  EXPECT_NE(reg.find("op.impl(self, other, "), std::string::npos);
  // Outputs of the functional variant come from at::empty (the backend's own factory, by dispatch).
  EXPECT_NE(reg.find("return at::empty_strided(sizes, strides, options);"), std::string::npos);
  for (const char* op : {"maximum", "maximum.out", "minimum", "minimum.out", "div.out"})
    EXPECT_NE(reg.find(std::string("m.impl(\"") + op + "\","), std::string::npos) << op;
}

TEST(Backend, StructuredNeedsAStructuredOutFunctionAndOutKernelsAsPrimary) {
  REQUIRE_ATEN();
  TempDir a;
  BackendRun notStructured = backend(a, "backend: PrivateUse1\ncpp_namespace: dev\nuse_out_as_primary: True\nsupported:\n"
                                 "  - mm.out: {structured: true}\n  - abs.out: {structured: true}\n");
  EXPECT_EQ(notStructured.result.exitCode, 1);
  EXPECT_NE(notStructured.result.err.find("backend.yaml:6:5: error: 'abs.out' cannot be structured"), std::string::npos)
      << notStructured.result.err;
  TempDir b;
  BackendRun functionalPrimary = backend(b, "backend: PrivateUse1\ncpp_namespace: dev\nsupported:\n  - mm.out: {structured: true}\n");
  EXPECT_EQ(functionalPrimary.result.exitCode, 1);
  EXPECT_NE(functionalPrimary.result.err.find("backend.yaml:4:5: error: 'mm.out' is structured: that needs use_out_as_primary: True"),
            std::string::npos)
      << functionalPrimary.result.err;
  TempDir c;
  BackendRun badOption = backend(c, "backend: PrivateUse1\ncpp_namespace: dev\nsupported:\n  - mm.out: {structurd: true}\n");
  EXPECT_EQ(badOption.result.exitCode, 1);
  EXPECT_NE(badOption.result.err.find("backend.yaml:4:14: error: unknown operator option 'structurd'"), std::string::npos)
      << badOption.result.err;
  for (const BackendRun* r : {&notStructured, &functionalPrimary, &badOption}) EXPECT_FALSE(fs::exists(r->out));
}

TEST(Backend, DeepNamespaces) {
  REQUIRE_ATEN();
  TempDir dir;
  BackendRun run = backend(dir, readFile(dataDir() / "deep_namespace.yaml"));
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_NE(run.file("PrivateUse1NativeFunctions.h").find("namespace a {\nnamespace b {\nnamespace c {\n"), std::string::npos);
  EXPECT_NE(run.file("RegisterPrivateUse1.cpp").find("return a::b::c::PrivateUse1NativeFunctions::abs(self);"),
            std::string::npos);
}

TEST(Backend, ListOutputsStampAndDepfile) {
  REQUIRE_ATEN();
  TempDir dir;
  writeFile(dir / "b.yaml", "backend: XLA\ncpp_namespace: x\nsupported: [abs]\nautograd: [relu]\n");
  BackendRun listed = backend(dir, readFile(dir / "b.yaml"), {"--list-outputs"});
  ASSERT_TRUE(listed.result.ok()) << listed.result.describe();
  const std::string out = (dir / "out").string();
  EXPECT_EQ(listed.result.out, out + "/XLANativeFunctions.h\n" + out + "/RegisterXLA.cpp\n" + out + "/RegisterAutogradXLA.cpp\n");
  EXPECT_FALSE(fs::exists(dir / "out")) << "--list-outputs wrote files";

  BackendRun run = backend(dir, readFile(dir / "b.yaml"),
                    {"--stamp", (dir / "stamp").string(), "--depfile", (dir / "stamp.d").string()});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_TRUE(fs::exists(dir / "stamp"));
  const std::string dep = readFile(dir / "stamp.d");
  EXPECT_EQ(dep.rfind((dir / "stamp").string() + ":", 0), 0u) << dep;
  for (const fs::path& input : {fs::path(reference().atenNativeFunctions()), dir / "backend.yaml",
                                fs::path(OPGEN_TEST_DATA).parent_path().parent_path().parent_path() / "templates/backend/Register.cpp"})
    EXPECT_NE(dep.find(input.string()), std::string::npos) << input << " not in\n" << dep;
  EXPECT_EQ(dep.find("RegisterXLA.cpp"), std::string::npos) << "an output is a dependency without --depfile-outputs:\n" << dep;
  // --depfile-outputs (for Makefiles): the outputs too.
  BackendRun withOutputs = backend(dir, readFile(dir / "b.yaml"),
                                   {"--stamp", (dir / "stamp").string(), "--depfile", (dir / "stamp.d").string(),
                                    "--depfile-outputs"});
  ASSERT_TRUE(withOutputs.result.ok()) << withOutputs.result.describe();
  const std::string depWithOutputs = readFile(dir / "stamp.d");
  for (const char* file : {"XLANativeFunctions.h", "RegisterXLA.cpp", "RegisterAutogradXLA.cpp"})
    EXPECT_NE(depWithOutputs.find(out + "/" + file), std::string::npos) << file << " not in\n" << depWithOutputs;

  // A second run rewrites nothing: the files keep their time stamps.
  const auto before = fs::last_write_time(dir / "out/RegisterXLA.cpp");
  fs::last_write_time(dir / "out/RegisterXLA.cpp", before - std::chrono::hours(1));
  const auto aged = fs::last_write_time(dir / "out/RegisterXLA.cpp");
  BackendRun again = backend(dir, readFile(dir / "b.yaml"));
  ASSERT_TRUE(again.result.ok()) << again.result.describe();
  EXPECT_EQ(fs::last_write_time(dir / "out/RegisterXLA.cpp"), aged);
}

// As for `opgen library`: a hand-written file where an output goes is not overwritten, and with
// --stamp (as CMake runs it) the output folder's list (opgen-outputs.txt) has an output no longer
// generated removed (before, RegisterAutogradXLA.cpp stayed after `autograd:` was removed).
TEST(Backend, OverwritesNoFileItDidNotWriteAndRemovesWhatItNoLongerGenerates) {
  REQUIRE_ATEN();
  TempDir dir;
  writeFile(dir / "out/RegisterXLA.cpp", "// mine\n");
  const std::string withAutograd = "backend: XLA\ncpp_namespace: x\nsupported: [abs]\nautograd: [relu]\n";
  BackendRun mine = backend(dir, withAutograd);
  EXPECT_EQ(mine.result.exitCode, 1);
  EXPECT_EQ(mine.result.err, (dir / "out/RegisterXLA.cpp").string() +
                                 ": error: opgen did not write this file (it is not in opgen-outputs.txt and has no "
                                 "'@generated by torchgen' mark): it is not overwritten; give opgen an output folder of its own\n");
  EXPECT_EQ(readFile(dir / "out/RegisterXLA.cpp"), "// mine\n");
  fs::remove(dir / "out/RegisterXLA.cpp");
  // Without --stamp, the folder holds torchgen's files alone; with it (a build system's run), the list too.
  ASSERT_TRUE(backend(dir, withAutograd).result.ok());
  EXPECT_FALSE(fs::exists(dir / "out/opgen-outputs.txt"));
  ASSERT_TRUE(backend(dir, withAutograd, {"--stamp", (dir / "stamp").string()}).result.ok());
  EXPECT_TRUE(fs::exists(dir / "out/RegisterAutogradXLA.cpp"));
  BackendRun without = backend(dir, "backend: XLA\ncpp_namespace: x\nsupported: [abs]\n",
                               {"--stamp", (dir / "stamp").string()});
  ASSERT_TRUE(without.result.ok()) << without.result.describe();
  EXPECT_FALSE(fs::exists(dir / "out/RegisterAutogradXLA.cpp"));
  EXPECT_TRUE(fs::exists(dir / "out/RegisterXLA.cpp"));
  EXPECT_EQ(readFile(dir / "out/opgen-outputs.txt").find("RegisterAutogradXLA.cpp"), std::string::npos);
}

TEST(Backend, MissingNativeFunctionsIsOneError) {
  TempDir dir;
  writeFile(dir / "b.yaml", kSmall);
  ProcessResult r = runProcess({opgenBinary().string(), "backend", "-s", (dir / "b.yaml").string(), "-o",
                                (dir / "out").string(), "--source-path", (dir / "nowhere").string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("nowhere/native/native_functions.yaml: error: cannot read native_functions.yaml"), std::string::npos)
      << r.err;
}

// PyTorch 1.13.1's native_functions.yaml (with its Dimname operators), code spelled for libtorch 1.x.
TEST(Backend, Torch1NativeFunctionsWithTorch1Spellings) {
  const fs::path legacy = OPGEN_TORCH_LEGACY_YAML;
  if (!fs::exists(legacy)) GTEST_SKIP() << legacy << " is absent (Debian's python3-torch 1.13.1)";
  TempDir dir;
  std::string yaml = readFile(dataDir() / "keys.yaml");
  // rename_ joins the last list, autograd:.
  BackendRun run = backend(dir, yaml + "  - rename_\n", {"--torch-version", "1.13", "--include-prefix="}, legacy);
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  // The lints of 1.13.1's own file (opgen parse warns about them) are not repeated to backend authors.
  EXPECT_EQ(run.result.err, "");
  const std::string header = run.file("PrivateUse1NativeFunctions.h");
  const std::string reg = run.file("RegisterPrivateUse1.cpp");
  EXPECT_NE(header.find("c10::optional<at::ScalarType> dtype"), std::string::npos) << header;
  EXPECT_EQ(header.find("std::optional"), std::string::npos) << header;
  EXPECT_EQ(reg.find("std::optional<"), std::string::npos);
  // A Dimname operator of 1.13.1 (gone from PyTorch 2).
  EXPECT_NE(header.find("rename_(at::Tensor & self, c10::optional<at::DimnameList> names)"), std::string::npos) << header;

  // The files compile against Debian's libtorch 1.13.1 (the headers; nothing is linked).
  if (!fs::exists("/usr/include/ATen/ATen.h") || !fs::exists("/usr/bin/g++"))
    GTEST_SKIP() << "libtorch-dev 1.13.1 or g++ is absent: not compiled";
  ProcessResult cc = runProcess({"/usr/bin/g++", "-std=c++17", "-fsyntax-only", "-I", run.out.string(), "-I",
                                 "/usr/include/torch/csrc/api/include", (run.out / "RegisterPrivateUse1.cpp").string()});
  EXPECT_TRUE(cc.ok()) << cc.describe(8000);
}

// openreg's structured kernels, for libtorch 1.13.1: the header includes ATen's meta classes, and
// the registrations compile together with a definition of the kernel's impl().
TEST(Backend, Torch1StructuredKernelsCompile) {
  const fs::path legacy = OPGEN_TORCH_LEGACY_YAML;
  if (!fs::exists(legacy)) GTEST_SKIP() << legacy << " is absent (Debian's python3-torch 1.13.1)";
  OPGEN_REQUIRE_REFERENCE();
  TempDir dir;
  BackendRun run = backend(dir, readFile(reference().runner.parent_path() / "backends/pytorch-openreg_openreg_native_functions.yaml"),
                           {"--torch-version", "1", "--include-prefix="}, legacy);
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string header = run.file("PrivateUse1NativeFunctions.h");
  EXPECT_NE(header.find("#include <ATen/Tensor.h>\n#include <ATen/ops/maximum_meta.h>\n#include <ATen/ops/minimum_meta.h>\n"),
            std::string::npos)
      << header;
  if (!fs::exists("/usr/include/ATen/ATen.h") || !fs::exists("/usr/bin/g++"))
    GTEST_SKIP() << "libtorch-dev 1.13.1 or g++ is absent: not compiled";
  writeFile(run.out / "kernels.cpp", R"(#include "RegisterPrivateUse1.cpp"
namespace at::native::openreg {
void PrivateUse1NativeFunctions::structured_maximum_out::impl(const at::Tensor& self, const at::Tensor& other,
                                                              const at::Tensor& out) {}
at::Tensor& PrivateUse1NativeFunctions::div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return out;
}
}  // namespace at::native::openreg
)");
  ProcessResult cc = runProcess({"/usr/bin/g++", "-std=c++17", "-fsyntax-only", "-I", run.out.string(), "-I",
                                 "/usr/include/torch/csrc/api/include", (run.out / "kernels.cpp").string()});
  EXPECT_TRUE(cc.ok()) << cc.describe(8000);
}

// Mutations of the fixture with every key (each line dropped, cut in half, or made a broken flow
// list): opgen never crashes, and a refusal is FILE:LINE:COL error lines and no files.
TEST(Backend, MutatedYamlsNeverCrash) {
  REQUIRE_ATEN();
  const std::vector<std::string> original = lines(readFile(dataDir() / "keys.yaml"));
  static const std::regex diagnostic(R"(^[^:\s][^:]*:\d+:\d+: (error|warning): .+$)");
  int refused = 0;
  for (std::size_t i = 0; i < original.size(); ++i) {
    for (int mutation = 0; mutation < 3; ++mutation) {
      std::string text;
      for (std::size_t k = 0; k < original.size(); ++k) {
        if (k != i) text += original[k] + "\n";
        else if (mutation == 1) text += original[k].substr(0, original[k].size() / 2) + "\n";
        else if (mutation == 2) text += "  - [" + original[k] + "\n";
      }
      TempDir dir;
      BackendRun run = backend(dir, text);
      SCOPED_TRACE("line " + std::to_string(i + 1) + ", mutation " + std::to_string(mutation));
      ASSERT_EQ(run.result.signal, 0) << run.result.describe();
      ASSERT_TRUE(run.result.exitCode == 0 || run.result.exitCode == 1) << run.result.describe();
      if (run.result.exitCode == 0) continue;
      ++refused;
      for (const std::string& l : lines(run.result.err)) EXPECT_TRUE(std::regex_match(l, diagnostic)) << l;
      EXPECT_FALSE(fs::exists(run.out));
    }
  }
  EXPECT_GT(refused, 0);
}

TEST(Backend, Torch2SpellingsByDefault) {
  REQUIRE_ATEN();
  TempDir dir;
  BackendRun run = backend(dir, readFile(dataDir() / "keys.yaml"));
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_NE(run.file("PrivateUse1NativeFunctions.h").find("::std::optional<at::ScalarType> dtype"), std::string::npos);
}

}  // namespace
