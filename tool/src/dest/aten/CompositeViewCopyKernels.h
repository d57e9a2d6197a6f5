// CompositeViewCopyKernels.cpp: the at::native kernels torchgen writes itself (gen.py,
// gen_source_files):
//   - for every view group with a generated {view}_copy operator, its CompositeExplicitAutograd-
//     NonFunctional kernel: run the view, return a contiguous clone (GenCompositeViewCopyKernel in
//     gen_functionalization_type.py);
//   - for every group whose functional operator was generated (autogen:), the functional kernel:
//     clone the mutated inputs, call the in-place or mutable operator on the clones
//     (gen_composite_functional_kernel in native_function_generation.py);
//   - for every group whose out= operator was generated, the out= kernel: call the functional
//     operator, resize and copy into the out arguments (gen_composite_out_kernel).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

void emitCompositeViewCopyKernels(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
