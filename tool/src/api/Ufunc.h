// The conventions of ufunc kernels (`ufunc_inner_loop:`): torchgen's api/ufunc.py. The CPU path goes
// through a DispatchStub whose arguments are the non-tensor ones; the CUDA path builds functors whose
// constructor takes the scalars (in opmath_t) and whose operator() takes the tensors' elements.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/Types.h"
#include "model/DispatchKey.h"

namespace opgen::api::ufunc {

// "ufunc_add_CUDA": the name of the structured impl of an out= schema for a dispatch key.
std::string schemaKernelName(const model::FunctionSchema& func, model::DispatchKey key);
std::string kernelName(const model::NativeFunctionsGroup& g, model::DispatchKey key);

// opmath_t for scalar_t (the only computation type torchgen knows); nullopt otherwise.
std::optional<BaseCppType> opmathType(const BaseCppType& scalarT);
// Functor constructor types: tensors and scalars as the opmath type of scalarT.
NamedCType ufunctorCtorType(const model::Type& t, const ArgName& binds, const BaseCppType& scalarT);
// Functor operator() types: tensors as scalarT.
NamedCType ufunctorApplyType(const model::Type& t, const ArgName& binds, const BaseCppType& scalarT);
// The user's ufunc template: tensors and scalars as computeT.
NamedCType ufuncType(const model::Type& t, const ArgName& binds, const CType& computeT);

Binding ufunctorCtorArgument(const model::Argument& a, const BaseCppType& scalarT);
Binding ufunctorApplyArgument(const model::Argument& a, const BaseCppType& scalarT);
Binding ufuncArgument(const model::Argument& a, const CType& computeT);

struct UfunctorBindings {
  std::vector<Binding> ctor;
  std::vector<Binding> apply;
};

// The functor's constructor and operator() parameters for the functional function's arguments.
// scalarTensorIdx: which tensor argument (counting tensors only) is a CPU scalar that goes to the
// constructor instead (CUDAFunctorOnSelf: 1, CUDAFunctorOnOther: 0, CUDAFunctor: none).
UfunctorBindings ufunctorArguments(const model::NativeFunctionsGroup& g, std::optional<int> scalarTensorIdx,
                                   const BaseCppType& scalarT);
// The ufunc template's parameters.
std::vector<Binding> ufuncArguments(const model::NativeFunctionsGroup& g, const CType& computeT);
// The DispatchStub's parameters after the TensorIteratorBase: the out= function's non-tensor arguments
// in the structured convention.
std::vector<Binding> stubArguments(const model::NativeFunctionsGroup& g);

}  // namespace opgen::api::ufunc
