// AOTInductor's C-shim calling convention (torchgen/gen_aoti_c_shim.py): how a schema's arguments
// and returns cross a C function `AOTITorchError aoti_torch_{device}_{op}(...)`: tensors as
// AtenTensorHandle, lists as a pointer and a length, optionals as pointers (null: None), enums and
// bool as int32_t, Scalar and float as double, str as const char*, returns through out-pointers
// ret0, ret1, ...; and the expressions that turn the C values back into ATen's at the call.
// One convention for both users: ATen's shims (dest/aten/AotiCShim.h, byte for byte torchgen's) and
// an operator library's (dest/library/AotiShims.h).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/Schema.h"

namespace opgen::api::aoti {

// Why a function gets no shim: torchgen skips the types it does not support (fatal false: its
// NotImplementedError) and fails on a few it cannot pass (fatal true: its AssertionError).
struct Unsupported {
  bool fatal = false;
  std::string reason;
};

// A shim's C parameters ("TYPE NAME") and the call's arguments (the C values converted back).
struct ShimParameters {
  std::vector<std::string> declarations;
  std::vector<std::string> exprs;
};

// torchgen's gen_arguments: the parameters of `args` appended to `out`; those named in `skipped`
// (arguments of a newer version of the shim) get no parameter and pass their default. False, with
// `why`, when an argument has no C type.
bool shimArguments(const std::vector<const model::Argument*>& args, const std::set<std::string_view>& skipped,
                   ShimParameters& out, Unsupported& why);

// torchgen's gen_returns: an out-pointer parameter per return (appended to `params`) and the
// assignments of the call's result `tmp_result` to them, one per return; with `nullable`, a null
// pointer skips its return. False, with `why`, when a return has no C type.
bool shimReturns(const model::FunctionSchema& func, bool nullable, ShimParameters& params,
                 std::vector<std::string>& assignments, Unsupported& why);

}  // namespace opgen::api::aoti
