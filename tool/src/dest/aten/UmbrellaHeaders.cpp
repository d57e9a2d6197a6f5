#include "dest/aten/UmbrellaHeaders.h"

#include <algorithm>
#include <array>

namespace opgen::dest {

namespace {

// `#include <ATen/ops/NAMESUFFIX.h>` for every name, in order.
std::vector<std::string> includes(const std::set<std::string>& names, std::string_view suffix) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& name : names) out.push_back(atenInclude("ops/" + name + std::string(suffix)));
  return out;
}

support::TemplateEnv umbrellaEnv(std::string_view category, std::vector<std::string> lines) {
  support::TemplateEnv env;
  env.set(std::string(category) + "_includes", std::move(lines));
  env.set(std::string(category) + "_declarations", std::vector<std::string>{});
  return env;
}

}  // namespace

std::set<std::string> rootNames(const model::Operators& ops) {
  std::set<std::string> names;
  for (const model::NativeFunction* f : ops.functions()) names.insert(f->rootName());
  return names;
}

std::set<std::string> methodRootNames(const model::Operators& ops) {
  std::set<std::string> names;
  for (const model::NativeFunction* f : ops.functions())
    if (f->hasVariant(model::Variant::Method)) names.insert(f->rootName());
  return names;
}

void emitUmbrellaHeaders(const EmitContext& ctx, const Writers& out) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kCategories = {{
      {"Functions", ""}, {"Operators", "_ops"}, {"NativeMetaFunctions", "_meta"}, {"NativeFunctions", "_native"}}};
  for (const auto& [category, suffix] : kCategories) {
    out.cpu.write(std::string(category) + ".h", [&ctx, category = category, suffix = suffix] {
      return umbrellaEnv(category, includes(rootNames(ctx.ops), suffix));
    });
  }
  // Here torchgen sorts the include lines, not the names ("foo_bar_ops.h" < "foo_ops.h").
  out.cpu.write("MethodOperators.h", [&ctx] {
    std::vector<std::string> lines = includes(methodRootNames(ctx.ops), "_ops");
    std::sort(lines.begin(), lines.end());
    return umbrellaEnv("MethodOperators", std::move(lines));
  });
}

}  // namespace opgen::dest
