// The dispatcher's unboxed calling convention (at::_ops::NAME::call): torchgen's api/dispatcher.py.
// Like the C++ API, but tensor options are four separate arguments, arguments come in schema order,
// there are no defaults, and SymInt is c10::SymInt unless asked otherwise.
#pragma once

#include <string>
#include <vector>

#include "api/Types.h"

namespace opgen::api::dispatcher {

std::string name(const model::FunctionSchema& func);

NamedCType argumenttypeType(const model::Type& t, bool isMutable, const ArgName& binds, const Options& options,
                            bool removeNonOwningRefTypes = false, bool symint = true);
NamedCType argumentType(const model::Argument& a, const ArgName& binds, const Options& options,
                        bool removeNonOwningRefTypes = false, bool symint = true);
CType returnsType(const std::vector<model::Return>& returns, const Options& options);

// The schema's arguments in order, tensor options flattened (positional, keyword-only, out).
std::vector<const model::Argument*> jitArguments(const model::FunctionSchema& func);

Binding argument(const model::Argument& a, const Options& options, bool removeNonOwningRefTypes = false,
                 bool symint = true);
std::vector<Binding> arguments(const model::FunctionSchema& func, const Options& options, bool symint = true);

}  // namespace opgen::api::dispatcher
