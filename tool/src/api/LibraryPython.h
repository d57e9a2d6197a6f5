// The typed Python functions of an operator library's Python package (`opgen library
// --python-module`): one function per operator overload that calls torch.ops.NS.OP.OVERLOAD, with
// annotations and defaults from the schema.
//
//   name       the operator's name, then "_" and the overload name, if any (scale_add.out ->
//              scale_add_out; in-place operators keep their trailing underscore)
//   parameters schema order; keyword-only arguments (out arguments too) after a bare `*`
//   types      Tensor -> torch.Tensor, T? -> Optional[T], T[] -> List[T], int/SymInt -> int,
//              Scalar -> Union[int, float, bool], ScalarType -> torch.dtype, ... (pythonType)
//   returns    none -> None, one -> its type, several -> Tuple[...]
//   defaults   None, True/False, numbers, strings, lists as Python literals (int[2] x=1 -> [1, 1])
#pragma once

#include <string>
#include <vector>

#include "model/NativeFunction.h"
#include "support/Expected.h"

namespace opgen::api::library_python {

// The Python function's name: "scale_add_out" for scale_add.out, "scale_add_" for scale_add_.
std::string functionName(const model::FunctionSchema& func);

// The annotation of a schema type (typing names unqualified: List, Optional, Tuple, Union, Any).
std::string pythonType(const model::Type& type);

// The annotation of the returns.
std::string returnType(const std::vector<model::Return>& returns);

// The Python literal of an argument's schema default; an error for defaults without one.
support::Expected<std::string> pythonDefault(const model::Argument& arg);

struct Parameter {
  std::string name;
  std::string annotation;
  std::string defaultValue;  // empty: none
  bool keywordOnly = false;
};

struct Function {
  std::string name;
  std::vector<Parameter> parameters;
  std::string returns;
  std::string signature;  // "name(a: torch.Tensor, *, b: int = 1) -> torch.Tensor"
  std::string call;       // "torch.ops.NS.OP.OVERLOAD(a, b=b)"
  std::string doc;        // the entry's comment (or that autogen: adds it), a blank line, "NS::schema"
};

// The function of one operator of namespace `ns`.
support::Expected<Function> function(const model::NativeFunction& f, const std::string& ns);

}  // namespace opgen::api::library_python
