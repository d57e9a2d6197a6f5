// The C++ API of an operator library (`opgen library`): what torchgen gives ATen as at::_ops and
// at::op, for a library namespace NS and without PyTorch's templates:
//   - NS::_ops::OP, one struct per operator: its schema type, its qualified name and overload, and
//     call()/redispatch() through the dispatcher (declared in NS/Operators.h, defined in Operators.cpp);
//   - NS::op(...), inline functions with torchgen's C++ API signatures (defaults, op_out/op_outf,
//     the SymInt overloads, TensorOptions) that translate their arguments to the dispatcher's and
//     call NS::_ops::OP (NS/Functions.h).
// Every operator is a function here, whatever its `variants:` say (a library cannot add Tensor methods).
// Types and expressions are spelled for the libtorch the library is compiled against.
#pragma once

#include <string>
#include <string_view>

#include "api/Types.h"
#include "model/NativeFunction.h"
#include "support/Expected.h"

namespace opgen::dest {

// `struct OP { ... };` for NS::_ops (with a leading comment naming the schema).
support::Expected<std::string> libraryOperatorDeclaration(const model::NativeFunction& f, const api::LibtorchFacts& libtorch);

// The typed-handle accessor and the definitions of call() and redispatch() of f's struct.
support::Expected<std::string> libraryOperatorDefinitions(const model::NativeFunction& f, const api::LibtorchFacts& libtorch);

// f's NS::op overloads as inline functions calling `opsNamespace`::OP::call.
support::Expected<std::string> libraryFunctionDefinitions(const model::NativeFunction& f, std::string_view opsNamespace,
                                                          const api::LibtorchFacts& libtorch);

}  // namespace opgen::dest
