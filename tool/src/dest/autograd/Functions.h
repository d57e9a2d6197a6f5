// Functions.h and Functions.cpp of ATen's autograd (torchgen's packaged/autograd/gen_autograd_functions.py,
// gen_autograd_functions_lib): one graph node class (a torch::autograd::Node) per DifferentiabilityInfo
// with an input that has a formula: what it saves, how it releases it, its apply() (the backward
// formulas, per input or per group of inputs) and its compiled-autograd entry points.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/DifferentiabilityInfo.h"
#include "dest/common/Emit.h"
#include "support/Diagnostics.h"

namespace opgen::dest::autograd {

// Writes Functions.h and Functions.cpp from the templates of those names. False (nothing written) after
// reporting, at its entry, a formula that makes a node keep what torchgen refuses (a non-owning reference).
bool emitFunctions(const api::autograd::LoadedDerivatives& derivatives, const std::string& commentDir, Writer& out,
                   support::Diagnostics& diags);

// python_functions.h and python_functions_0..4.cpp (torchgen's gen_autograd_functions_python): the
// Python classes of the graph nodes, with getters of what they save. False after reporting, as
// emitFunctions.
bool emitPythonFunctions(const api::autograd::LoadedDerivatives& derivatives, const std::string& commentDir, Writer& out,
                         support::Diagnostics& diags);

// torchgen's VIEW_FUNCTIONS: the view operators (by base name) and the argument their output views.
const std::string* viewFunctionBase(std::string_view baseName);

}  // namespace opgen::dest::autograd
