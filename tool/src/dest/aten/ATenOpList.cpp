#include "dest/aten/ATenOpList.h"

namespace opgen::dest {

support::TemplateEnv atenOpListEnv(const model::Operators& ops) {
  std::vector<std::string> entries;
  entries.reserve(ops.functions().size());
  for (const model::NativeFunction* f : ops.functions()) {
    entries.push_back("{\"aten::" + f->func.name.name.str() + "\", \"" + f->func.name.overloadName + "\"},");
  }
  support::TemplateEnv env;
  env.set("aten_ops", std::move(entries));
  return env;
}

void emitATenOpList(const EmitContext& ctx, const Writers& out) {
  out.core.write("ATenOpList.cpp", [&] { return atenOpListEnv(ctx.ops); });
}

}  // namespace opgen::dest
