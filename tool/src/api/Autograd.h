// The C++ of autograd graph nodes for derivatives.yaml formulas (model/Derivatives.h): how a node
// keeps an argument or a return that its backward formulas use, and how apply() gets it back.
#pragma once

#include <string>
#include <vector>

#include "api/Types.h"
#include "model/Schema.h"
#include "support/Expected.h"

namespace opgen::api {

// One value a graph node keeps: the member `member` of type `type`, set from the kernel's value with
// save(expr), read in apply() with `unpack` (an expression of the formula's type). A tensor is a
// SavedVariable (reset when the node releases its values); a tensor list a vector of them with a flag,
// so that apply() after the release fails as PyTorch's nodes do.
struct SavedValue {
  enum class Kind { Value, Tensor, TensorList };
  std::string name;    // as formulas name it
  std::string member;  // name + "_"
  std::string type;
  std::string saveTemplate;  // $expr$: the kernel's value
  std::string unpack;
  Kind kind = Kind::Value;

  bool isTensor() const { return kind == Kind::Tensor; }
  std::string save(const std::string& expr) const;
  // The node's member declarations and release_variables() statements.
  std::vector<std::string> declarations() const;
  std::vector<std::string> releases() const;
};

// An argument: tensors (and optional tensors, undefined when absent) as SavedVariable, tensor lists as
// std::vector<SavedVariable>, ints, floats, bools, scalars, strings, dtypes, int/float
// lists and optionals of those as values. An error names a type nodes cannot keep yet.
support::Expected<SavedValue> savedArgument(const model::Argument& a, const LibtorchFacts& libtorch);
// A tensor return (a SavedVariable of an output, unpacked with the node itself). `inplace`: the
// output of an in-place operator, its modified argument, which may be a view modified in place.
SavedValue savedReturn(const std::string& name, const LibtorchFacts& libtorch, bool inplace = false);

}  // namespace opgen::api
