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

TEST(Library, DescribesItselfWithoutReadingTheYamlWhenTheNamespaceIsGiven) {
  TempDir dir;
  LibraryRun run = library(dir, "not: [valid", {"--namespace", "demo", "--shards", "2", "--describe"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_EQ(run.result.out, R"({
 "namespace": "demo",
 "link_anchor": "opgen_link_demo",
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
  "src/RegisterCPU_0.cpp",
  "src/RegisterCPU_1.cpp",
  "src/RegisterMeta_0.cpp",
  "src/RegisterMeta_1.cpp"
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
  EXPECT_NE(init.find("_ENVIRONMENT_VARIABLE = \"OPGEN_DEMO_LIBRARY\"\n_BUILT_LIBRARY = \"/opt/lib/libdemo.so\"\n"),
            std::string::npos)
      << init;

  LibraryRun bad = library(dir, "- func: demo::f(Tensor self, int x=Mystery) -> Tensor\n", {"--python-module"});
  EXPECT_EQ(bad.result.exitCode, 1);
  EXPECT_NE(bad.result.err.find("ops.yaml:1:3: error:"), std::string::npos) << bad.result.err;
  EXPECT_NE(bad.result.err.find("argument 'x': the default 'Mystery' has no Python spelling"), std::string::npos)
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
  EXPECT_NE(bad.result.err.find("derivatives.yaml:3:3: error: in 'scale': 'factr' is neither an argument nor a return of 'scale'"),
            std::string::npos)
      << bad.result.err;
  EXPECT_EQ(readFile(run.out / "src/RegisterAutograd.cpp"), autograd);
}

}  // namespace
