#include "model/DispatchKey.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace opgen::model {

namespace {

constexpr std::string_view kNames[] = {
#define OPGEN_X(name) #name,
    OPGEN_DISPATCH_KEYS(OPGEN_X)
#undef OPGEN_X
};

}  // namespace

std::string_view dispatchKeyName(DispatchKey k) { return kNames[static_cast<size_t>(k)]; }

std::optional<DispatchKey> parseDispatchKey(std::string_view name) {
  if (name == "CatchAll") return DispatchKey::Undefined;
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (kNames[i] == name) return static_cast<DispatchKey>(i);
  return std::nullopt;
}

const std::vector<DispatchKey>& supportedDispatchKeys() {
  using K = DispatchKey;
  static const std::vector<DispatchKey> keys = {
      K::CPU, K::SparseCPU, K::SparseCsrCPU, K::MkldnnCPU, K::CUDA, K::MPS, K::XPU, K::SparseXPU,
      K::SparseCsrXPU, K::SparseCUDA, K::SparseCsrCUDA, K::SparseMPS, K::SparseCsrMPS, K::QuantizedCPU,
      K::QuantizedCUDA, K::CompositeImplicitAutograd, K::CompositeImplicitAutogradNestedTensor,
      K::CompositeExplicitAutograd, K::CompositeExplicitAutogradNonFunctional, K::NestedTensorCPU,
      K::NestedTensorCUDA, K::NestedTensorXPU, K::NestedTensorHPU, K::Meta, K::SparseMeta, K::SparseCsrMeta,
      K::QuantizedMeta, K::NestedTensorMeta, K::ZeroTensor, K::MTIA};
  return keys;
}

bool isSupportedDispatchKey(DispatchKey k) {
  const auto& keys = supportedDispatchKeys();
  return std::find(keys.begin(), keys.end(), k) != keys.end();
}

bool isGenericDispatchKey(DispatchKey k) {
  return k == DispatchKey::CompositeExplicitAutograd || k == DispatchKey::CompositeExplicitAutogradNonFunctional ||
         k == DispatchKey::CompositeImplicitAutograd || k == DispatchKey::CompositeImplicitAutogradNestedTensor;
}

bool isCudaDispatchKey(DispatchKey k) {
  return k == DispatchKey::CUDA || k == DispatchKey::QuantizedCUDA || k == DispatchKey::SparseCUDA ||
         k == DispatchKey::SparseCsrCUDA || k == DispatchKey::NestedTensorCUDA || k == DispatchKey::AutogradCUDA;
}

bool isXpuDispatchKey(DispatchKey k) {
  return k == DispatchKey::XPU || k == DispatchKey::QuantizedXPU || k == DispatchKey::SparseXPU ||
         k == DispatchKey::SparseCsrXPU || k == DispatchKey::NestedTensorXPU || k == DispatchKey::AutogradXPU;
}

bool isStructuredDispatchKey(DispatchKey k) {
  return k == DispatchKey::MPS || k == DispatchKey::CUDA || k == DispatchKey::CPU || k == DispatchKey::XPU ||
         k == DispatchKey::MTIA;
}

bool isUfuncDispatchKey(DispatchKey k) { return k == DispatchKey::CUDA || k == DispatchKey::CPU; }

}  // namespace opgen::model
