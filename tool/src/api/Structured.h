// Structured kernels (meta + impl): torchgen's api/structured.py and api/meta.py. Like the native
// convention with historical problems fixed: never defaulted, never SymInt, optional tensors and
// scalars as at::OptionalTensorRef / at::OptionalScalarRef, tensor lists as at::ITensorListRef.
// Structured kernels do not "return": they report outputs through set_output or write into out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/Types.h"

namespace opgen::api::structured {

NamedCType argumenttypeType(const model::Type& t, bool isMutable, const ArgName& binds);
NamedCType argumentType(const model::Argument& a, const ArgName& binds);
Binding argument(const model::Argument& a);
// The bindings of an argument item (self is a plain argument; tensor options are unsupported, see
// checkSupported, and give no bindings).
std::vector<Binding> argument(const ArgumentItem& a);

// The impl function's parameters: the out= function's non-out arguments (with the `precomputed:`
// replacements and additions), then its out arguments.
std::vector<Binding> implArguments(const model::NativeFunctionsGroup& g);
// The meta function's parameters: the functional function's non-out arguments.
std::vector<Binding> metaArguments(const model::NativeFunctionsGroup& g);
// The out= function's out arguments.
std::vector<Binding> outArguments(const model::NativeFunctionsGroup& g);

// Where torchgen would refuse the group (structured kernels with tensor options); nullopt when fine.
std::optional<std::string> checkSupported(const model::NativeFunctionsGroup& g);

}  // namespace opgen::api::structured

namespace opgen::api::meta {

// "add_Tensor": the functional function's name with '.' replaced by '_' (at::meta::structured_NAME).
std::string name(const model::NativeFunctionsGroup& g);

}  // namespace opgen::api::meta
