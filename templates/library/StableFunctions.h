#pragma once
// ${generated_comment}
//
// The C++ API of the operators in namespace ${namespace}, on PyTorch's stable ABI (STABLE_ABI
// ${stable_abi}): ${namespace}::op(...) for every operator, its arguments in schema order (out=
// overloads: op_outf(..., out)), without defaults. Every call goes through the dispatcher's stable
// entry point (torch_call_dispatcher), so it reaches the kernel registered for the arguments' device.

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/Layout.h>
#include <torch/headeronly/core/MemoryFormat.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/HeaderOnlyArrayRef.h>

#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace ${namespace} {
${definitions}
} // namespace ${namespace}
