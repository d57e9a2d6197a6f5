// The operators that get AOTInductor C shims: torchgen's rules in torchgen/aoti/fallback_ops.py,
// as data. `inductor_fallback_ops` feeds c_shim_{cpu,cuda,mps,xpu}.{h,cpp}; `aten_shimified_ops`
// feeds c_shim_aten.{h,cpp}. An operator's shim has versions: v1 takes the arguments the operator
// had when it was added; each later version vN adds `newArgs` (arguments since given defaults), so
// that older versions keep their ABI. `since` (TORCH_VERSION_X_Y_Z) gates a version's declaration.
#pragma once

#include <string_view>
#include <vector>

namespace opgen::dest::aoti {

struct FallbackOpVersion {
  int version = 2;                          // N of "vN" (2 or more)
  std::vector<std::string_view> newArgs;    // argument names this version adds
  std::string_view since;                   // empty: ungated
};

struct FallbackOp {
  std::string_view name;                    // "aten.add.Tensor", "aten.abs.default"
  std::string_view since;                   // v1's gate; empty: ungated
  std::vector<FallbackOpVersion> versions;  // later versions, in any order
};

const std::vector<FallbackOp>& inductorFallbackOps();
const std::vector<FallbackOp>& atenShimifiedOps();

}  // namespace opgen::dest::aoti
