// The at::native:: kernel convention: torchgen's api/native.py. Close to the dispatcher's, but
// tensor options are dtype/layout/device/pin_memory optionals, Tensor? is ::std::optional<at::Tensor>,
// and non-out functions keep their C++ defaults. SymInt-aware only when the kernel says so.
#pragma once

#include <string>
#include <vector>

#include "api/Types.h"

namespace opgen::api::native {

// "add_out" for add.out, "add_Tensor" for add.Tensor: out functions get "_out", then the overload.
std::string name(const model::FunctionSchema& func);

NamedCType argumenttypeType(const model::Type& t, bool isMutable, const ArgName& binds, bool symint,
                            const Options& options);
NamedCType argumentType(const model::Argument& a, const ArgName& binds, bool symint, const Options& options);
CType returnsType(const std::vector<model::Return>& returns, const Options& options);

std::vector<Binding> argument(const ArgumentItem& a, bool isOut, bool symint, const Options& options);
std::vector<Binding> arguments(const model::FunctionSchema& func, bool symint, const Options& options);

}  // namespace opgen::api::native
