// RegistrationDeclarations.h: every operator's dispatcher signature with a JSON comment (schema,
// whether it has backend kernels, whether it has a default composite kernel), read by backend
// integrators' tools (torchgen gen.py: compute_registration_declarations).
#pragma once

#include <string>
#include <string_view>

#include "dest/common/Emit.h"

namespace opgen::dest {

// `RET NAME(ARGS); // {"schema": ..., "dispatch": ..., "default": ...}` and a newline.
std::string registrationDeclaration(const model::NativeFunction& f, const std::vector<model::BackendIndex>& backends);

// Python's json.dumps of a string (ASCII only: other characters as \uXXXX escapes).
std::string jsonString(std::string_view s);

void emitRegistrationDeclarations(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
