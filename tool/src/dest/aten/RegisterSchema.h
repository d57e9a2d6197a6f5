// RegisterSchema.cpp: the schema registrations of every selected operator, `m.def("SCHEMA", tags)`
// inside TORCH_LIBRARY(aten, m) for aten and one TORCH_LIBRARY (TORCH_LIBRARY_FRAGMENT for quantized
// and quantized_decomposed) block per other namespace (torchgen gen.py, RegisterSchema and
// get_native_function_schema_registrations).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

struct SchemaRegistrations {
  std::vector<std::string> aten;  // one item per aten operator ("const ... tags_N = {...};\n" + "m.def(...);\n")
  std::string otherNamespaces;    // the TORCH_LIBRARY blocks of the other namespaces, in order of first use
};

// The registrations of the operators `selector` selects. Tag lists are named tags_0, tags_1, ... in
// order of first use, counted per namespace.
SchemaRegistrations schemaRegistrations(const std::vector<const model::NativeFunction*>& functions,
                                        const OperatorSelector& selector);

// --force-schema-registration registers every operator whatever the selector says;
// --skip-dispatcher-op-registration registers none.
void emitRegisterSchema(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
