#include "dest/autograd/VariableType.h"

namespace opgen::dest::autograd {

void emitVariableTypeHeader(const std::string& commentDir, Writer& out) {
  out.write("VariableType.h", [&] {
    support::TemplateEnv env;
    env.set("generated_comment", "@generated from " + commentDir + "/VariableType.h");
    return env;
  });
}

}  // namespace opgen::dest::autograd
