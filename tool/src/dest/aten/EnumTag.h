// core/enum_tag.h: the enum of the tags declared in tags.yaml (torchgen gen.py, gen_tags_enum).
#pragma once

#include "dest/common/Emit.h"

namespace opgen::dest {

// The template environment of enum_tag.h: the tag names, sorted, one per line.
support::TemplateEnv enumTagEnv(const std::set<std::string>& validTags);

// Writes enum_tag.h with the headeronly writer (INSTALL_DIR/core unless --headeronly-install-dir).
void emitEnumTag(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
