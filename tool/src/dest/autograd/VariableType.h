// VariableType.h, VariableType_0..9.cpp, VariableTypeEverything.cpp and templates/VariableType.cpp of
// ATen's autograd (torchgen's packaged/autograd/gen_variable_type.py): the Autograd dispatch keys'
// kernels (VariableTypeKernels.cpp).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/DifferentiabilityInfo.h"
#include "dest/common/Emit.h"
#include "support/Diagnostics.h"

namespace opgen::dest::autograd {

// Writes VariableType.h from the template of that name.
void emitVariableTypeHeader(const std::string& commentDir, Writer& out);

// The template of the kernels' files (torchgen writes OUT/templates/VariableType.cpp and reads it back):
// the VariableType.cpp template with one list of kernels and one TORCH_LIBRARY_IMPL per dispatch key
// that derivatives.yaml uses. Written through `templatesOut`; its text, or nullopt after an error.
std::optional<std::string> emitVariableTypeTemplate(const std::set<std::string>& usedKeys, Writer& templatesOut);

// VariableType_0..9.cpp and VariableTypeEverything.cpp, rendered by `out` from that template, for the
// functions that get a generated autograd kernel. False (nothing written) after reporting the first
// problem at its entry (or at derivatives.yaml, `derivativesPath`, when no entry is for a dispatch key
// that a kernel needs).
bool emitVariableTypeKernels(const std::vector<api::autograd::FunctionWithInfo>& functions,
                             const std::set<std::string>& usedKeys, const std::string& commentDir,
                             const std::string& derivativesPath, Writer& out, support::Diagnostics& diags);

}  // namespace opgen::dest::autograd
