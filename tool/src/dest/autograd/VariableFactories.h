// variable_factories.h of ATen's autograd (torchgen's packaged/autograd/gen_variable_factories.py):
// torch::NAME for every factory function (a function variant with tensor options, or one named
// *_like), which calls at::NAME below the autograd layer and makes the result a variable that
// requires grad when the options ask for it.
#pragma once

#include <string>
#include <vector>

#include "dest/common/Emit.h"
#include "model/NativeFunction.h"
#include "support/Diagnostics.h"

namespace opgen::dest::autograd {

// Writes variable_factories.h from the template of that name; `commentDir` is how the
// "@generated from DIR/variable_factories.h" comment names the template folder. False (nothing
// written) after reporting, at its entry, the first factory that has no C++ API.
bool emitVariableFactories(const std::vector<const model::NativeFunction*>& functions, const std::string& commentDir,
                           Writer& out, support::Diagnostics& diags);

// torchgen's fully_qualified_type: at:: before a type name that starts with a capital letter
// (after an optional `const`), looking into one std::optional<...>.
std::string fullyQualifiedType(const std::string& type);

}  // namespace opgen::dest::autograd
