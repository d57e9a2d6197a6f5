#include "dest/aten/TemplateOnlySources.h"

namespace opgen::dest {

void emitFunctionsCpp(const EmitContext&, const Writers& out) {
  out.cpu.write("Functions.cpp", [] { return support::TemplateEnv(); });
}

void emitTensorMethodsCpp(const EmitContext&, const Writers& out) {
  out.core.write("TensorMethods.cpp", [] { return support::TemplateEnv(); });
}

}  // namespace opgen::dest
