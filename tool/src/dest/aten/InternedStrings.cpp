#include "dest/aten/InternedStrings.h"

#include <array>

namespace opgen::dest {

namespace {

// C++'s alternative tokens (and, or, ...): not valid symbol names.
constexpr std::array<std::string_view, 11> kCppAlternativeTokens = {
    "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor", "xor_eq"};

std::string symbolList(std::string_view kind, const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += " \\\n";
    out.append("_(").append(kind).append(", ").append(name).append(")");
  }
  return out;
}

}  // namespace

support::TemplateEnv internedStringsEnv(const model::Operators& ops) {
  std::set<std::string> names;  // sorted by bytes: Python's sorted() on str
  std::set<std::string> attrs;
  for (const model::NativeFunction* f : ops.functions()) {
    names.insert(f->func.name.name.str());
    // Operators without a functional variant still get the symbol without the underscore.
    names.insert(f->func.name.name.base);
    for (const model::Argument* a : f->func.schemaOrderArguments()) attrs.insert(a->name);
  }
  for (std::string_view token : kCppAlternativeTokens) names.erase(std::string(token));
  support::TemplateEnv env;
  env.set("aten_symbols", symbolList("aten", names));
  env.set("attr_symbols", symbolList("attr", attrs));
  return env;
}

void emitInternedStrings(const EmitContext& ctx, const Writers& out) {
  out.core.write("aten_interned_strings.h", [&] { return internedStringsEnv(ctx.ops); });
}

}  // namespace opgen::dest
