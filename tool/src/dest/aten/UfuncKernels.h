// The kernels of operators declared with `ufunc_inner_loop:` (torchgen/dest/ufunc.py): the user
// writes the scalar (and vectorized) inner loops in ATen/native/ufunc/{op}.h; these files wrap them.
//
//   UfuncCPU_{op}.cpp        the structured impl (TORCH_IMPL_FUNC(ufunc_{op}_CPU)) calling {op}_stub
//   UfuncCPUKernel_{op}.cpp  {op}_kernel: a dtype switch over cpu_kernel / cpu_kernel_vec loops,
//                            registered as {op}_stub's CPU kernel (in the CPU-capability install list)
//   UfuncCUDA_{op}.cu        functors around the loops, {op}_kernel's dtype switch (with the CPU-scalar
//                            specializations of binary operators) and the CUDA impl calling it
#pragma once

#include <string>

#include "dest/common/Emit.h"
#include "support/Expected.h"

namespace opgen::dest {

// The `native_definitions` of each file for a group with ufunc_inner_loop (torchgen's
// compute_ufunc_cpu, compute_ufunc_cpu_kernel, compute_ufunc_cuda). Errors where torchgen fails
// (inner loops that do not fit the operator).
support::Expected<std::string> ufuncCpuDefinitions(const model::NativeFunctionsGroup& g);
support::Expected<std::string> ufuncCpuKernelDefinitions(const model::NativeFunctionsGroup& g);
support::Expected<std::string> ufuncCudaDefinitions(const model::NativeFunctionsGroup& g);

// For the CPU and CUDA dispatch keys of the run, every group with ufunc_inner_loop.
void emitUfuncKernels(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
