// What the code `opgen library` generates for an operator needs of its arguments' C++ types: a type
// in each calling convention the library uses (the public C++ API, the dispatcher's, the kernels'
// and, for a structured operator, its meta and impl functions'), one that compiles, and a way for
// each wrapper to pass the argument from one convention to the next (api/Translate.h). PyTorch's own
// YAML never meets the exceptions, so torchgen reports them as internal errors ("Failed to
// synthesize the expression ...") or generates code that does not compile; a library reports them
// when it is loaded, at the argument, naming its type and the convention that cannot hold it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "api/Types.h"
#include "model/Groups.h"
#include "model/NativeFunction.h"

namespace opgen::api {

struct SignatureProblem {
  const model::Argument* argument = nullptr;  // the argument at fault, or nullptr for a return
  size_t returnIndex = 0;                     // which return, when `argument` is nullptr
  std::string message;                        // what is unsupported and why, without the argument's name
};

// The arguments and returns of f that the library's generated code cannot handle, at most one
// problem each, in schema order. `structured`: the structured group whose out= function f is, if
// any: its meta and impl functions are checked too (on f's arguments: the group's other functions
// share them, and are not reported again).
std::vector<SignatureProblem> librarySignatureProblems(const model::NativeFunction& f,
                                                       const model::NativeFunctionsGroup* structured,
                                                       const LibtorchFacts& libtorch);

}  // namespace opgen::api
