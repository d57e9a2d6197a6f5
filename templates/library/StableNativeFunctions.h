#pragma once
// ${generated_comment}
//
// What the kernels of namespace ${namespace} implement, on PyTorch's stable ABI (STABLE_ABI
// ${stable_abi}): the declaration of every kernel that a `dispatch:` entry names (an entry without a
// namespace is in ${namespace}::native), on the stable types (torch::stable::Tensor, std::optional,
// torch::headeronly::ScalarType, int64_t, double, bool, ...) with the arguments in schema order. The
// registration boxes them (TORCH_BOX).

#include <torch/csrc/stable/device.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/Layout.h>
#include <torch/headeronly/core/MemoryFormat.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/HeaderOnlyArrayRef.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

${kernel_declarations}
