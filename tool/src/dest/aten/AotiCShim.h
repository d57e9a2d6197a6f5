// AOTInductor's C shims (torchgen/gen_aoti_c_shim.py): for each AOTI backend, C functions
// `AOTITorchError aoti_torch_{device}_{op}(...)` that wrap the fallback operators of
// dest/aten/AotiFallbackOps.h with C types (tensor handles, pointer + length lists, pointers for
// optionals, out-pointers for returns) and call the backend's kernel directly (at::cpu::...,
// falling back to the composite kernels) or, for the generic "aten" shim, the dispatcher (at::...).
//
// Files, in the AOTI install directory: c_shim_{device}.cpp always; c_shim_{device}.h only with
// --update-aoti-c-shim. Without it torchgen compares the header it computes with the one already in
// the install directory (an ABI check: a difference is an error, a missing file a message); opgen
// does not yet, because writers cannot read what is already there.
// --extend-aoti-c-shim generates shims for out-of-tree kernels: only the backend's own kernels, and
// the .cpp includes extend/c_shim_{device}.h.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dest/aten/AotiFallbackOps.h"
#include "dest/common/Emit.h"

namespace opgen::dest {

struct AotiShimFiles {
  std::string header;  // c_shim_{device}.h
  std::string source;  // c_shim_{device}.cpp
};

// The shims of a run: the fallback operators the input declares are found once, for every backend.
class AotiShims {
 public:
  explicit AotiShims(const EmitContext& ctx);

  // Both files of one backend (nullopt: the generic "aten" shim). Errors (where torchgen fails) are
  // reported to the context's diagnostics.
  AotiShimFiles files(std::optional<model::DispatchKey> backend) const;

 private:
  struct Fallback {
    const model::NativeFunction* f = nullptr;
    const aoti::FallbackOp* op = nullptr;
  };
  const EmitContext& ctx_;
  std::unordered_map<std::string, const model::NativeFunctionsGroup*> groupsByDelegate_;
  std::vector<Fallback> inductorFallbacks_;  // sorted by fallback name ("aten.add.Tensor")
  std::vector<Fallback> atenFallbacks_;
};

void emitAotiCShims(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
