// The operators of a model by root name (an operator's name without overload and in-place suffix:
// `add` for add.Tensor, add_.Tensor and add.out), the unit of per-operator headers
// (ops/{root}.h, {root}_ops.h, {root}_native.h, ...). torchgen's functions_by_root_name and
// grouped_functions_by_root_name.
#pragma once

#include <string>
#include <vector>

#include "model/Operators.h"

namespace opgen::dest {

struct OperatorRoot {
  std::string name;
  std::vector<const model::NativeFunction*> functions;  // in the model's order
  std::vector<const model::FunctionOrGroup*> items;     // the grouped items, in the model's order
};

// Every root name, in order of first appearance among the model's functions.
std::vector<OperatorRoot> operatorRoots(const model::Operators& ops);

}  // namespace opgen::dest
