// `opgen library` (what the CMake functions run), through the binary: the output list, what the
// files declare, write-if-changed, the libtorch 1.x spellings, and errors that change nothing.
#include <gtest/gtest.h>

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

TEST(Library, ListsItsOutputsWithoutReadingTheYamlWhenTheNamespaceIsGiven) {
  TempDir dir;
  LibraryRun run = library(dir, "not: [valid", {"--namespace", "demo", "--shards", "2", "--list-outputs"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_EQ(run.result.out,
            "include/demo/Functions.h\ninclude/demo/NativeFunctions.h\ninclude/demo/Operators.h\nsrc/Operators.cpp\n"
            "src/RegisterSchema.cpp\nsrc/RegisterCompositeImplicitAutograd_0.cpp\n"
            "src/RegisterCompositeImplicitAutograd_1.cpp\nsrc/RegisterCompositeExplicitAutograd_0.cpp\n"
            "src/RegisterCompositeExplicitAutograd_1.cpp\nsrc/RegisterCPU_0.cpp\nsrc/RegisterCPU_1.cpp\n"
            "src/RegisterMeta_0.cpp\nsrc/RegisterMeta_1.cpp\n");
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
  EXPECT_EQ(opgen::gen::spellForLibtorch1("C10_AS_INTARRAYREF_SLOW(x) ::std::optional<T> c10::fromIntArrayRefSlow(y)"),
            "c10::asIntArrayRefSlow(x) c10::optional<T> c10::fromIntArrayRef(y)");
}

TEST(Library, ErrorsPointAtTheEntryAndChangeNothing) {
  TempDir dir;
  ASSERT_TRUE(library(dir, kOps).result.ok());
  const std::string before = readFile(dir.path() / "out/include/demo/Functions.h");
  LibraryRun run = library(dir, std::string(kOps) + "\n- func: elsewhere::op(Tensor self) -> Tensor\n");
  EXPECT_EQ(run.result.exitCode, 1);
  EXPECT_NE(run.result.err.find("ops.yaml:8:3: error: operator 'elsewhere::op' is not in the library's namespace 'demo'"),
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

}  // namespace
