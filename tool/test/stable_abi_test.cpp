// `opgen library --stable-abi X.Y` (add_operator_library(... STABLE_ABI X.Y)), through the binary:
// the files and what they declare and register, the compile definition, and what is refused, where.
// That the files compile, register and run, and that the library needs only the stable ABI's C
// functions, is test_projects/stable_abi's (plugin_torch2_stable_abi).
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "api/LibraryStable.h"

namespace {

using namespace opgen::test;

constexpr const char* kOps = R"(- func: demo::scale(Tensor self, float factor=2.0, *, int? limit=None) -> Tensor
  dispatch:
    CPU: scale_cpu
    CUDA: scale_cuda
    Meta: other::scale_meta

- func: demo::twice(Tensor self) -> Tensor

- func: demo::parts(Tensor[] xs, int[] dims, ScalarType? dtype=None) -> (Tensor a, Tensor b)
  dispatch:
    CPU: parts_cpu

- func: demo::scale.out(Tensor self, float factor=2.0, *, int? limit=None, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: scale_out
)";

// tags.yaml: the tags the entries may name.
constexpr const char* kTags = R"(- tag: pt2_compliant_tag
  desc: compliant
- tag: nondeterministic_seeded
  desc: seeded
- tag: out
  desc: an out= overload
)";

ProcessResult library(const TempDir& dir, const std::string& yaml, std::vector<std::string> extra = {}) {
  writeFile(dir.path() / "ops.yaml", yaml);
  writeFile(dir.path() / "tags.yaml", kTags);
  std::vector<std::string> argv = {opgenBinary().string(), "library", (dir.path() / "ops.yaml").string(), "-o",
                                   (dir.path() / "out").string(), "--backend", "CPU", "--backend", "CUDA"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return runProcess(argv);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(StableAbi, ParsesReleasesFrom2_10AndSpellsTheTargetVersion) {
  using opgen::api::StableAbi;
  ASSERT_TRUE(StableAbi::parse("2.10"));
  EXPECT_EQ(StableAbi::parse("2.10")->targetVersion(), "0x020a000000000000");
  EXPECT_EQ(StableAbi::parse("2.13")->compileDefinition(), "TORCH_TARGET_VERSION=0x020d000000000000");
  EXPECT_EQ(StableAbi::parse("3.0")->targetVersion(), "0x0300000000000000");
  EXPECT_FALSE(StableAbi::parse("2.9"));
  EXPECT_FALSE(StableAbi::parse("2"));
  EXPECT_FALSE(StableAbi::parse("2.10.1"));
  EXPECT_FALSE(StableAbi::parse("two"));
}

TEST(StableAbi, DescribesItsFilesAndCompileDefinition) {
  TempDir dir;
  ProcessResult r = library(dir, kOps, {"--stable-abi", "2.10", "--describe"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_TRUE(has(r.out, R"("compile_definitions": [
  "TORCH_TARGET_VERSION=0x020a000000000000"
 ],)")) << r.out;
  EXPECT_TRUE(has(r.out, R"("headers": [
  "include/demo/Functions.h",
  "include/demo/NativeFunctions.h"
 ],
 "sources": [
  "src/RegisterSchema.cpp",
  "src/RegisterCompositeImplicitAutograd.cpp",
  "src/RegisterCompositeExplicitAutograd.cpp",
  "src/RegisterMeta.cpp",
  "src/RegisterCPU.cpp",
  "src/RegisterCUDA.cpp"
 ],)")) << r.out;
}

TEST(StableAbi, DeclaresKernelsOnStableTypesAndRegistersThemBoxed) {
  TempDir dir;
  ProcessResult r = library(dir, kOps, {"--stable-abi", "2.10"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const fs::path out = dir.path() / "out";
  EXPECT_FALSE(fs::exists(out / "include/demo/Operators.h"));
  const std::string native = readFile(out / "include/demo/NativeFunctions.h");
  EXPECT_TRUE(has(native, "namespace demo::native {\ntorch::stable::Tensor scale_cpu(const torch::stable::Tensor& self, "
                          "double factor, const std::optional<int64_t>& limit);"))
      << native;
  EXPECT_TRUE(has(native, "namespace other::native {\ntorch::stable::Tensor scale_meta(")) << native;
  EXPECT_TRUE(has(native, "std::tuple<torch::stable::Tensor, torch::stable::Tensor> parts_cpu("
                          "torch::headeronly::HeaderOnlyArrayRef<torch::stable::Tensor> xs, "
                          "torch::headeronly::HeaderOnlyArrayRef<int64_t> dims, "
                          "const std::optional<torch::headeronly::ScalarType>& dtype);"))
      << native;
  // out= arguments in schema order, last
  EXPECT_TRUE(has(native, "torch::stable::Tensor scale_out(const torch::stable::Tensor& self, double factor, "
                          "const std::optional<int64_t>& limit, const torch::stable::Tensor& out);"))
      << native;
  EXPECT_FALSE(has(native, "ATen")) << native;
  const std::string schema = readFile(out / "src/RegisterSchema.cpp");
  EXPECT_TRUE(has(schema, "STABLE_TORCH_LIBRARY(demo, m) {\n  m.def(\"scale(Tensor self, float factor=2.0, *, int? "
                          "limit=None) -> Tensor\");"))
      << schema;
  EXPECT_FALSE(has(schema, "at::Tag")) << schema;  // (2.10 registers no tags, the out= overload's included)
  const std::string cpu = readFile(out / "src/RegisterCPU.cpp");
  EXPECT_TRUE(has(cpu, "STABLE_TORCH_LIBRARY_IMPL(demo, CPU, m) {\n  m.impl(\"scale\", TORCH_BOX(&::demo::native::scale_cpu));"))
      << cpu;
  EXPECT_TRUE(has(cpu, "m.impl(\"scale.out\", TORCH_BOX(&::demo::native::scale_out));")) << cpu;
  // A device key: the kernel behind a wrapper that sets the first tensor's device.
  const std::string cuda = readFile(out / "src/RegisterCUDA.cpp");
  EXPECT_TRUE(has(cuda, "torch::stable::accelerator::DeviceGuard guard(self.get_device_index());\n"
                        "  return ::demo::native::scale_cuda(self, factor, limit);"))
      << cuda;
  EXPECT_TRUE(has(cuda, "m.impl(\"scale\", TORCH_BOX(&opgen_register_CUDA_0::wrapper_scale));")) << cuda;
  EXPECT_TRUE(has(readFile(out / "src/RegisterCompositeImplicitAutograd.cpp"),
                  "m.impl(\"twice\", TORCH_BOX(&::demo::native::twice));"));
  // The C++ API: through torch_call_dispatcher, its returns off the stack.
  const std::string functions = readFile(out / "include/demo/Functions.h");
  EXPECT_TRUE(has(functions, "inline std::tuple<torch::stable::Tensor, torch::stable::Tensor> parts("
                             "torch::headeronly::HeaderOnlyArrayRef<torch::stable::Tensor> xs, "
                             "torch::headeronly::HeaderOnlyArrayRef<int64_t> dims, "
                             "const std::optional<torch::headeronly::ScalarType>& dtype) {\n"
                             "  std::array<StableIValue, 3> stack{torch::stable::detail::from(xs), "
                             "torch::stable::detail::from(dims), torch::stable::detail::from(dtype)};\n"
                             "  STABLE_TORCH_ERROR_CODE_CHECK(torch_call_dispatcher(\"demo::parts\", \"\", stack.data(), "
                             "TORCH_ABI_VERSION));\n"
                             "  return std::make_tuple(torch::stable::detail::to<torch::stable::Tensor>(stack[0]), "
                             "torch::stable::detail::to<torch::stable::Tensor>(stack[1]));"))
      << functions;
  EXPECT_TRUE(has(functions, "inline torch::stable::Tensor scale_outf(")) << functions;
  EXPECT_TRUE(has(functions, "torch_call_dispatcher(\"demo::scale\", \"out\"")) << functions;
}

// PyTorch's torch_call_dispatcher converts returns of different types wrongly: no C++ API function,
// and a warning at the entry.
TEST(StableAbi, OperatorsWhoseReturnsDifferInTypeHaveNoCppApiFunction) {
  TempDir dir;
  ProcessResult r = library(dir, std::string(kOps) + "\n- func: demo::count(Tensor x) -> (Tensor, int)\n  dispatch:\n"
                                                     "    CPU: count_cpu\n    Meta: count_meta\n",
                            {"--stable-abi", "2.10"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_TRUE(has(r.err, "ops.yaml:17:3: warning: in 'count': the stable C++ API has no function for it: its returns "
                         "differ in type"))
      << r.err;
  const std::string functions = readFile(dir.path() / "out/include/demo/Functions.h");
  EXPECT_FALSE(has(functions, " count(")) << functions;
  EXPECT_TRUE(has(functions, " parts(")) << functions;  // (two Tensors: one type)
  EXPECT_TRUE(has(readFile(dir.path() / "out/include/demo/NativeFunctions.h"),
                  "std::tuple<torch::stable::Tensor, int64_t> count_cpu(const torch::stable::Tensor& x);"));
}

TEST(StableAbi, From2_12TheSchemasHaveTheirTags) {
  TempDir dir;
  ProcessResult r = library(dir, std::string(kOps) + "\n- func: demo::tagged(Tensor x) -> Tensor\n  tags: pt2_compliant_tag\n",
                            {"--stable-abi", "2.12"});
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string schema = readFile(dir.path() / "out/src/RegisterSchema.cpp");
  EXPECT_TRUE(has(schema, "m.def(\"tagged(Tensor x) -> Tensor\", {at::Tag::pt2_compliant_tag});")) << schema;
  // The stable ABI of 2.14.1's headers cannot pass `inplace` and `out`: not given to the out= overload,
  // an error in `tags:`; given where the stable ABI has them.
  EXPECT_TRUE(has(schema, "m.def(\"scale.out(Tensor self, float factor=2.0, *, int? limit=None, Tensor(a!) out) -> "
                          "Tensor(a!)\");"))
      << schema;
  std::string tagged(kOps);
  tagged.replace(tagged.find("    CPU: scale_out\n"), 19, "    CPU: scale_out\n  tags: out\n");
  ProcessResult refused = library(dir, tagged, {"--stable-abi", "2.12"});
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_TRUE(has(refused.err, "ops.yaml:16:9: error: in 'scale.out': with STABLE_ABI 2.12, tag 'out' cannot be registered: "
                               "the stable ABI's Tag conversion has no 'out'"))
      << refused.err;
  ProcessResult given = library(dir, kOps, {"--stable-abi", "2.12", "--torch-facts", "stable-inplace-out-tags=1"});
  ASSERT_TRUE(given.ok()) << given.describe();
  EXPECT_TRUE(has(readFile(dir.path() / "out/src/RegisterSchema.cpp"), "-> Tensor(a!)\", {at::Tag::out});"));
}

TEST(StableAbi, WhatItCannotPassIsAnErrorAtTheArgumentNamingTypeAndRelease) {
  TempDir dir;
  ProcessResult r = library(dir,
                            "- func: demo::f(Tensor x, Scalar s, SymInt n, Generator? g=None) -> Tensor\n"
                            "  tags: nondeterministic_seeded\n"
                            "  dispatch:\n    CPU: f\n"
                            "- func: demo::g(Tensor x, bool[] b, Tensor?[] t) -> Scalar\n"
                            "  dispatch:\n    CPU: g\n",
                            {"--stable-abi", "2.10"});
  EXPECT_EQ(r.exitCode, 1);
  for (const char* expected : {
           "ops.yaml:1:27: error: in 'f': argument 's': type Scalar cannot pass the stable ABI of PyTorch 2.10",
           "ops.yaml:1:37: error: in 'f': argument 'n': type SymInt cannot pass the stable ABI of PyTorch 2.10",
           "ops.yaml:1:47: error: in 'f': argument 'g': type Generator cannot pass the stable ABI of PyTorch 2.10",
           "ops.yaml:5:27: error: in 'g': argument 'b': type bool[] cannot pass the stable ABI of PyTorch 2.10",
           "ops.yaml:5:37: error: in 'g': argument 't': type Tensor?[] cannot pass the stable ABI of PyTorch 2.10",
           "in 'g': return: type Scalar cannot pass the stable ABI of PyTorch 2.10",
       })
    EXPECT_TRUE(has(r.err, expected)) << expected << "\n" << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

TEST(StableAbi, RefusesWhatNeedsTheUnstableApiAtItsLine) {
  TempDir dir;
  ProcessResult r = library(dir,
                            "- func: demo::h(Tensor x) -> Tensor\n"
                            "  tags: pt2_compliant_tag\n"
                            "  dispatch:\n    CPU: h\n"
                            "- func: demo::k(Tensor x) -> Tensor\n"
                            "  autogen: k.out\n"
                            "  dispatch:\n    CPU: k\n"
                            "- func: demo::s.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)\n"
                            "  structured: True\n"
                            "  dispatch:\n    CPU: s_out\n"
                            "- func: demo::s(Tensor x) -> Tensor\n"
                            "  structured_delegate: s.out\n",
                            {"--stable-abi", "2.10"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(has(r.err, "ops.yaml:2:9: error: in 'h': with STABLE_ABI 2.10, tag 'pt2_compliant_tag' cannot be registered"))
      << r.err;
  EXPECT_TRUE(has(r.err, "ops.yaml:6:12: error: in 'k': with STABLE_ABI 2.10, autogen: is not available")) << r.err;
  EXPECT_TRUE(has(r.err, "ops.yaml:9:3: error: in 's.out': with STABLE_ABI 2.10, structured kernels are not available"))
      << r.err;
  EXPECT_TRUE(has(r.err, "ops.yaml:13:3: error: in 's': with STABLE_ABI 2.10, structured kernels are not available"))
      << r.err;
  for (const auto& [option, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--derivatives", "d.yaml"}, "--stable-abi 2.10: --derivatives (DERIVATIVES) is not available"},
           {{"--per-operator-headers"}, "--stable-abi 2.10: --per-operator-headers (PER_OPERATOR_HEADERS) is not available"},
           {{"--default-tag", "core"}, "--stable-abi 2.10: --default-tag (DEFAULT_TAGS) is not available"},
           {{"--torch-facts", "stable-abi=0"}, "--stable-abi 2.10: the libtorch has no stable ABI"},
           {{"--torch-version", "2.9"}, "--stable-abi 2.10: the libtorch has no stable ABI"},
       }) {
    std::vector<std::string> args = {"--stable-abi", "2.10"};
    args.insert(args.end(), option.begin(), option.end());
    ProcessResult u = library(dir, kOps, args);
    EXPECT_EQ(u.exitCode, 2) << message;
    EXPECT_TRUE(has(u.err, message)) << message << "\n" << u.err;
  }
  ProcessResult newer = library(dir, kOps, {"--stable-abi", "2.13", "--torch-version", "2.12"});
  EXPECT_EQ(newer.exitCode, 2);
  EXPECT_TRUE(has(newer.err, "--stable-abi 2.13: newer than the libtorch the library is built against (2.12)")) << newer.err;
}

}  // namespace
