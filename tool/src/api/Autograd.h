// The C++ of autograd graph nodes for derivatives.yaml formulas (model/Derivatives.h): how a node
// keeps an argument or a return that its backward formulas use, and how apply() gets it back.
#pragma once

#include <string>

#include "api/Types.h"
#include "model/Schema.h"
#include "support/Expected.h"

namespace opgen::api {

// One value a graph node keeps: the member `member` of type `type`, set from the kernel's value with
// save(expr), read in apply() with `unpack` (an expression of the formula's type).
struct SavedValue {
  std::string name;    // as formulas name it
  std::string member;  // name + "_"
  std::string type;
  std::string saveTemplate;  // $expr$: the kernel's value
  std::string unpack;
  bool isTensor = false;

  std::string save(const std::string& expr) const;
};

// An argument: tensors as SavedVariable, ints, floats, bools, scalars, strings, dtypes, int/float
// lists and optionals of those as values. An error names a type nodes cannot keep yet.
support::Expected<SavedValue> savedArgument(const model::Argument& a, Libtorch libtorch);
// A tensor return (a SavedVariable of an output, unpacked with the node itself).
SavedValue savedReturn(const std::string& name, Libtorch libtorch);

}  // namespace opgen::api
