// The Functionalize kernels of an operator library's view operators (api::libraryViews), as torchgen
// generates them for ATen's views (gen_functionalization_type.py; opgen's ATen emitter is
// dest/aten/RegisterFunctionalization.h): the kernel unwraps `self`, runs the view (or, without
// reapplied views, its view_copy variant) below functionalization, and wraps the result in a
// FunctionalTensorWrapper with a ViewMeta, which replays the view on a new base (forward) and writes a
// mutated view back into its base (reverse: the library's own VIEW_inverse, declared in
// NativeFunctions.h and checked at link time as its kernels are).
//
// What the libtorch's ViewMeta is decides the text (api::LibtorchFacts): a class whose
// specializations override forward/reverse (view-meta-classes), else a struct of two std::function
// replays, told has_symbolic_inputs where its constructor takes it (view-meta-symbolic-inputs). Only
// exported libtorch functions are called (FunctionalTensorWrapper's constructor, not ATen's
// create_functional_tensor_with_view_meta, which libtorch does not export); no reference meta tensor
// is computed (ATen's kernels do so only for XLA and Lazy tensors).
#pragma once

#include <string>
#include <vector>

#include "dest/common/Emit.h"

namespace opgen::dest {

// The code RegisterSchema.cpp gets for the library's functionalized views: the headers, each view's
// ViewMeta and kernel, and their TORCH_LIBRARY_IMPL(NS, Functionalize, m) block (nothing without
// such a view).
std::string libraryFunctionalizeKernels(const EmitContext& ctx, const std::string& ns);

// The declarations NativeFunctions.h (or, with per-operator headers, a view's OP_native.h) gives the
// functionalized views among `functions`: the library's InverseReturnMode (once per translation
// unit) and each view's inverse, in a block of namespace NS::native (lines; none without a view).
// The link-time check (KernelCheck.h) looks for the inverses as it does for the kernels.
std::vector<std::string> libraryViewInverseDeclarations(const EmitContext& ctx,
                                                        const std::vector<const model::NativeFunction*>& functions);

}  // namespace opgen::dest
