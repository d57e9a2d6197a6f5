#include "dest/aten/EnumTag.h"

#include "support/Strings.h"

namespace opgen::dest {

support::TemplateEnv enumTagEnv(const std::set<std::string>& validTags) {
  support::TemplateEnv env;
  // std::set orders by bytes, which for UTF-8 is Python's code point order (sorted()).
  env.set("enum_of_valid_tags", support::join({validTags.begin(), validTags.end()}, ",\n"));
  return env;
}

void emitEnumTag(const EmitContext& ctx, const Writers& out) {
  out.headeronly.write("enum_tag.h", [&] { return enumTagEnv(ctx.ops.validTags()); });
}

}  // namespace opgen::dest
