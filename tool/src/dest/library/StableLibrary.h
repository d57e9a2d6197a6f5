// The files of an operator library on PyTorch's stable ABI (LibrarySpec::stableAbi; the calling
// convention is api/LibraryStable.h), rendered from templates/library/Stable*:
//
//   include/NS/Functions.h        NS::op(...): the C++ API, through torch_call_dispatcher
//   include/NS/NativeFunctions.h  the kernels every `dispatch:` entry names, on the stable types
//   src/RegisterSchema.cpp        STABLE_TORCH_LIBRARY(NS, m): every schema (with its tags from 2.12)
//   src/Register{Key}.cpp         STABLE_TORCH_LIBRARY_IMPL(NS, Key, m): each kernel boxed (TORCH_BOX);
//                                 on CUDA-like keys through a wrapper that sets the device
//                                 (torch::stable::accelerator::DeviceGuard) of the first tensor
//
// No Operators.h: the _ops structs are typed handles of the unstable dispatcher. The registration
// files define the same anchor symbols as the unstable library's (Library.h).
#pragma once

#include <string>
#include <vector>

#include "api/LibraryStable.h"
#include "dest/common/Emit.h"

namespace opgen::dest {

struct LibrarySpec;
struct LibraryWriters;

// The kernels' declarations on the stable ABI, by kernel namespace (the lines of NativeFunctions.h),
// each once; errors reported at the entries.
std::vector<std::string> stableKernelDeclarations(const EmitContext& ctx, api::StableAbi abi);

// The headers and sources of a stable-ABI library (not its Python package), with the names and link
// anchors that Library.cpp gives them: the library's anchor, and each registration file's.
struct StableRegistrationFile {
  model::DispatchKey key;
  int shard = 0;
  std::string file, anchor;
};
void emitStableLibrary(const EmitContext& ctx, const LibrarySpec& spec, const std::string& libraryAnchor,
                       const std::vector<StableRegistrationFile>& files, const LibraryWriters& out);

}  // namespace opgen::dest
