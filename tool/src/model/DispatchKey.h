// Dispatch keys: the subset of c10::DispatchKey that code generation knows, in torchgen's order
// (the order is used wherever keys are iterated, so outputs stay deterministic).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace opgen::model {

// X(name) for every key, in order.
#define OPGEN_DISPATCH_KEYS(X) \
  X(Undefined) \
  X(FPGA) \
  X(MAIA) \
  X(Vulkan) \
  X(Metal) \
  X(MKLDNN) \
  X(OpenGL) \
  X(OpenCL) \
  X(IDEEP) \
  X(CustomRNGKeyId) \
  X(MkldnnCPU) \
  X(Sparse) \
  X(SparseCsr) \
  X(NestedTensor) \
  X(Dense) \
  X(PythonTLSSnapshot) \
  X(PreDispatch) \
  X(PythonDispatcher) \
  X(Python) \
  X(FuncTorchDynamicLayerBackMode) \
  X(ZeroTensor) \
  X(Conjugate) \
  X(Negative) \
  X(BackendSelect) \
  X(Named) \
  X(AutogradOther) \
  X(AutogradFunctionality) \
  X(AutogradNestedTensor) \
  X(Tracer) \
  X(Autocast) \
  X(AutocastCPU) \
  X(AutocastCUDA) \
  X(AutocastXPU) \
  X(Batched) \
  X(VmapMode) \
  X(FuncTorchGradWrapper) \
  X(FuncTorchBatched) \
  X(BatchedNestedTensor) \
  X(FuncTorchVmapMode) \
  X(FuncTorchDynamicLayerFrontMode) \
  X(Functionalize) \
  X(TESTING_ONLY_GenericWrapper) \
  X(TESTING_ONLY_GenericMode) \
  X(ADInplaceOrView) \
  X(Autograd) \
  X(CompositeImplicitAutograd) \
  X(CompositeImplicitAutogradNestedTensor) \
  X(CompositeExplicitAutograd) \
  X(CompositeExplicitAutogradNonFunctional) \
  X(FuncTorchBatchedDecomposition) \
  X(CPU) \
  X(CUDA) \
  X(HIP) \
  X(XLA) \
  X(MTIA) \
  X(MPS) \
  X(IPU) \
  X(XPU) \
  X(HPU) \
  X(VE) \
  X(Lazy) \
  X(Meta) \
  X(PrivateUse1) \
  X(PrivateUse2) \
  X(PrivateUse3) \
  X(QuantizedCPU) \
  X(QuantizedCUDA) \
  X(QuantizedHIP) \
  X(QuantizedXLA) \
  X(QuantizedMTIA) \
  X(QuantizedMPS) \
  X(QuantizedIPU) \
  X(QuantizedXPU) \
  X(QuantizedHPU) \
  X(QuantizedVE) \
  X(QuantizedLazy) \
  X(QuantizedMeta) \
  X(QuantizedPrivateUse1) \
  X(QuantizedPrivateUse2) \
  X(QuantizedPrivateUse3) \
  X(SparseCPU) \
  X(SparseCUDA) \
  X(SparseHIP) \
  X(SparseXLA) \
  X(SparseMTIA) \
  X(SparseMPS) \
  X(SparseIPU) \
  X(SparseXPU) \
  X(SparseHPU) \
  X(SparseVE) \
  X(SparseLazy) \
  X(SparseMeta) \
  X(SparsePrivateUse1) \
  X(SparsePrivateUse2) \
  X(SparsePrivateUse3) \
  X(SparseCsrCPU) \
  X(SparseCsrCUDA) \
  X(SparseCsrHIP) \
  X(SparseCsrXLA) \
  X(SparseCsrMTIA) \
  X(SparseCsrMPS) \
  X(SparseCsrIPU) \
  X(SparseCsrXPU) \
  X(SparseCsrHPU) \
  X(SparseCsrVE) \
  X(SparseCsrLazy) \
  X(SparseCsrMeta) \
  X(SparseCsrPrivateUse1) \
  X(SparseCsrPrivateUse2) \
  X(SparseCsrPrivateUse3) \
  X(NestedTensorCPU) \
  X(NestedTensorCUDA) \
  X(NestedTensorHIP) \
  X(NestedTensorXLA) \
  X(NestedTensorMTIA) \
  X(NestedTensorMPS) \
  X(NestedTensorIPU) \
  X(NestedTensorXPU) \
  X(NestedTensorHPU) \
  X(NestedTensorVE) \
  X(NestedTensorLazy) \
  X(NestedTensorMeta) \
  X(NestedTensorPrivateUse1) \
  X(NestedTensorPrivateUse2) \
  X(NestedTensorPrivateUse3) \
  X(AutogradCPU) \
  X(AutogradCUDA) \
  X(AutogradHIP) \
  X(AutogradXLA) \
  X(AutogradMTIA) \
  X(AutogradMPS) \
  X(AutogradIPU) \
  X(AutogradXPU) \
  X(AutogradHPU) \
  X(AutogradVE) \
  X(AutogradLazy) \
  X(AutogradMeta) \
  X(AutogradPrivateUse1) \
  X(AutogradPrivateUse2) \
  X(AutogradPrivateUse3) \

enum class DispatchKey {
#define OPGEN_X(name) name,
  OPGEN_DISPATCH_KEYS(OPGEN_X)
#undef OPGEN_X
};

std::string_view dispatchKeyName(DispatchKey k);
// Accepts every key name (and torchgen's alias CatchAll for Undefined).
std::optional<DispatchKey> parseDispatchKey(std::string_view name);
// The keys a native_functions.yaml `dispatch:` entry may name (torchgen's `dispatch_keys`), in order.
const std::vector<DispatchKey>& supportedDispatchKeys();
bool isSupportedDispatchKey(DispatchKey k);

// CompositeImplicitAutograd and friends: kernels that work for every backend.
bool isGenericDispatchKey(DispatchKey k);
bool isCudaDispatchKey(DispatchKey k);
bool isXpuDispatchKey(DispatchKey k);
// Keys whose kernels may be structured (meta + impl).
bool isStructuredDispatchKey(DispatchKey k);
bool isUfuncDispatchKey(DispatchKey k);

}  // namespace opgen::model
