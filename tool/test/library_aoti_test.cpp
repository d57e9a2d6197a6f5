// `opgen library --aoti-shims` (add_operator_library AOTI_SHIMS): the files, the shims in the
// convention of ATen's (api/AotiShim.h), AOTInductor's declarations in the Python package, and the
// notes for operators left to the proxy executor. (test_projects/aoti compiles and runs them.)
#include <gtest/gtest.h>

#include "TestSupport.h"

namespace {

using namespace opgen::test;

constexpr const char* kOps = R"(- func: demo::blend(Tensor a, Tensor b, *, float w=0.5, int[] dims=[], Tensor? mask=None) -> Tensor
  dispatch:
    CPU: blend_cpu
    Meta: blend_meta

- func: demo::split2(Tensor x) -> (Tensor, Tensor)

- func: demo::mix.first(Tensor a) -> Tensor

- func: demo::mix.second(Tensor a, Tensor b) -> Tensor

- func: demo::mix(Tensor a, float w) -> Tensor

- func: demo::blend.scalar(Tensor a, Scalar b) -> Tensor
  dispatch:
    CompositeExplicitAutograd: blend_scalar

- func: demo::grow_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CompositeExplicitAutograd: grow_

- func: demo::pieces(Tensor x) -> Tensor[]
  dispatch:
    CompositeExplicitAutograd: pieces

- func: demo::abs(Tensor x) -> Tensor
  dispatch:
    CompositeExplicitAutograd: demo_abs

- func: demo::shape_only(Tensor x) -> Tensor
  dispatch:
    Meta: shape_only_meta
)";

struct AotiRun {
  ProcessResult result;
  fs::path out;
};

AotiRun library(const TempDir& dir, std::vector<std::string> extra) {
  writeFile(dir.path() / "ops.yaml", kOps);
  std::vector<std::string> argv = {opgenBinary().string(), "library", (dir.path() / "ops.yaml").string(), "-o",
                                   (dir.path() / "out").string(), "--backend", "CPU", "--aoti-shims"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return {runProcess(argv), dir.path() / "out"};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(LibraryAotiShims, ListsItsFiles) {
  TempDir dir;
  AotiRun run = library(dir, {"--python-module", "--describe"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  EXPECT_TRUE(has(run.result.out, "\"include/demo/aoti_shims.h\"")) << run.result.out;
  EXPECT_TRUE(has(run.result.out, "\"src/AotiShims.cpp\"")) << run.result.out;
  EXPECT_TRUE(has(run.result.out, "\"python/demo/aoti.py\"")) << run.result.out;
  AotiRun without = library(dir, {"--describe"});  // (no Python package: no aoti.py)
  ASSERT_TRUE(without.result.ok()) << without.result.describe();
  EXPECT_FALSE(has(without.result.out, "aoti.py")) << without.result.out;
}

TEST(LibraryAotiShims, ShimsCallTheDevicesKernelInAtensConvention) {
  TempDir dir;
  AotiRun run = library(dir, {"--python-module"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string header = readFile(run.out / "include/demo/aoti_shims.h");
  // The namespace in the symbol; ATen's shim types (optional: pointer; list: pointer and length; bool:
  // int32_t; float: double); returns through pointers.
  const std::string blend = "AOTITorchError aoti_torch_cpu_demo_blend(AtenTensorHandle a, AtenTensorHandle b, double w, "
                            "const int64_t* dims, int64_t dims_len_, AtenTensorHandle* mask, AtenTensorHandle* ret0)";
  EXPECT_TRUE(has(header, "OPGEN_AOTI_SHIM_EXPORT " + blend + ";")) << header;
  EXPECT_TRUE(has(header, "aoti_torch_cpu_demo_split2(AtenTensorHandle x, AtenTensorHandle* ret0, AtenTensorHandle* ret1);"))
      << header;
  // A CPU kernel: a cpu shim only; composite ones serve CUDA tensors too.
  EXPECT_FALSE(has(header, "aoti_torch_cuda_demo_blend(")) << header;
  EXPECT_TRUE(has(header, "aoti_torch_cuda_demo_split2(")) << header;
  const std::string source = readFile(run.out / "src/AotiShims.cpp");
  EXPECT_TRUE(has(source, "extern \"C\" " + blend + " {\n  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({\n"
                          "    auto tmp_result = ::demo::_ops::blend::redispatch(\n"
                          "      c10::DispatchKeySet(c10::DispatchKey::CPU),\n"
                          "      resolve_tensor_dispatch_flags(a),\n      resolve_tensor_dispatch_flags(b),\n      w,\n"
                          "      pointer_to_list<int64_t>(dims, dims_len_),\n      resolve_tensor_dispatch_flags(mask)\n    );\n"
                          "    *ret0 = new_tensor_handle(std::move(tmp_result));"))
      << source;
  EXPECT_TRUE(has(source, "*ret1 = new_tensor_handle(std::move(std::get<1>(tmp_result)));")) << source;
  // AOTInductor calls aoti_torch_cpu_blend: its declaration binds that name to the library's symbol.
  const std::string python = readFile(run.out / "python/demo/aoti.py");
  EXPECT_TRUE(has(python, "    \"blend.default\": [\n        \"AOTITorchError aoti_torch_cpu_blend(AtenTensorHandle a, "
                          "AtenTensorHandle b, double w, const int64_t* dims, int64_t dims_len_, AtenTensorHandle* mask, "
                          "AtenTensorHandle* ret0) __asm__(\\\"aoti_torch_cpu_demo_blend\\\")\",\n    ],"))
      << python;
  EXPECT_TRUE(has(python, "op = getattr(getattr(torch.ops.demo, packet), overload)")) << python;
}

TEST(LibraryAotiShims, WhatGetsNoShimIsNotedAtItsEntry) {
  TempDir dir;
  AotiRun run = library(dir, {"--python-module"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe();
  const std::string& err = run.result.err;
  const std::string yaml = (dir.path() / "ops.yaml").string();
  auto noted = [&](int line, const std::string& op, const std::string& why) {
    return has(err, yaml + ":" + std::to_string(line) + ":3: note: '" + op + "' gets no AOTInductor C shim (AOTI_SHIMS), "
                    "compiled models call it through the proxy executor: " + why);
  };
  EXPECT_TRUE(noted(14, "blend.scalar", "AOTInductor calls a custom operator's shim by its name alone "
                                       "(aoti_torch_{device}_blend), which is the shim of 'blend'")) << err;
  // The overload without name takes AOTInductor's name, also from an overload before it.
  for (auto [line, op] : {std::pair{8, "mix.first"}, std::pair{10, "mix.second"}})
    EXPECT_TRUE(noted(line, op, "AOTInductor calls a custom operator's shim by its name alone "
                                "(aoti_torch_{device}_mix), which is the shim of 'mix'")) << err;
  EXPECT_TRUE(noted(18, "grow_", "it mutates or aliases its argument 'self'")) << err;
  EXPECT_TRUE(noted(22, "pieces", "a shim cannot pass its return type 'Tensor[]'")) << err;
  EXPECT_TRUE(noted(26, "abs", "AOTInductor would call its shim aoti_torch_{device}_abs, the name of ATen's shim")) << err;
  EXPECT_TRUE(noted(30, "shape_only", "it has no CPU, CUDA or composite kernel")) << err;
  EXPECT_EQ(err.find(": error:"), std::string::npos) << err;
  const std::string header = readFile(run.out / "include/demo/aoti_shims.h");
  for (const char* none : {"grow_", "pieces", "_abs(", "shape_only", "blend_scalar"})
    EXPECT_FALSE(has(header, none)) << none << "\n" << header;
  const std::string python = readFile(run.out / "python/demo/aoti.py");
  EXPECT_FALSE(has(python, "blend.scalar")) << python;
  EXPECT_FALSE(has(python, "mix.first")) << python;
  EXPECT_TRUE(has(python, "    \"mix.default\": [\n        \"AOTITorchError aoti_torch_cpu_mix(AtenTensorHandle a, double w, "
                          "AtenTensorHandle* ret0) __asm__(\\\"aoti_torch_cpu_demo_mix\\\")\",")) << python;
}

TEST(LibraryAotiShims, NeedsAPyTorchWhoseAotInductorTakesThem) {
  TempDir dir;
  AotiRun run = library(dir, {"--torch-version", "2.6"});
  EXPECT_FALSE(run.result.ok());
  EXPECT_TRUE(has(run.result.err, "error: --aoti-shims needs PyTorch 2.8 or later")) << run.result.describe();
  EXPECT_FALSE(fs::exists(run.out / "src/AotiShims.cpp"));
  EXPECT_TRUE(library(dir, {"--torch-version", "2.8"}).result.ok());
}

}  // namespace
