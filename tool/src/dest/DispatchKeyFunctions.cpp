#include "dest/DispatchKeyFunctions.h"

namespace opgen::dest {

support::TemplateEnv dispatchKeyFunctionsEnv(model::DispatchKey key) {
  const std::string name(model::dispatchKeyName(key));
  support::TemplateEnv env;
  env.set("dispatch_key", name);
  env.set("inline_headers", "#include <ATen/" + name + "Functions_inl.h>");
  return env;
}

void emitDispatchKeyFunctions(const EmitContext& ctx, const Writers& out) {
  for (model::DispatchKey key : ctx.dispatchKeys) {
    if (!ctx.isFunctionsKey(key)) continue;
    const std::string name(model::dispatchKeyName(key));
    out.forDispatchKey(key).writeWithTemplate(name + "Functions.h", "DispatchKeyFunctions.h",
                                              [key] { return dispatchKeyFunctionsEnv(key); });
  }
}

}  // namespace opgen::dest
