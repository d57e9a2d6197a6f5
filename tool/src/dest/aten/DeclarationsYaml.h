// Declarations.yaml: every native function described for PyTorch's older tools (autograd codegen and
// others): its C++ API arguments, its schema-order arguments and returns, with their C++ types and
// defaults (torchgen gen.py: gen_declarations_yaml, compute_declaration_yaml and helpers), printed
// as PyYAML prints it (support/PyYaml.h).
#pragma once

#include <string>

#include "dest/common/Emit.h"

namespace opgen::dest {

// The whole file for these functions, in their order (each must pass api::cpp::checkSupported).
// `storage`: an empty string whose memory the text may use.
std::string declarationsYaml(const std::vector<const model::NativeFunction*>& functions, std::string storage = {});

// Declarations.yaml (--generate declarations_yaml), in the main install directory; nothing, with
// errors, when a function has no C++ API (torchgen fails too).
void emitDeclarationsYaml(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
