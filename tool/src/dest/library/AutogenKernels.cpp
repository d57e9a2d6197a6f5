#include "dest/library/AutogenKernels.h"

#include "dest/common/AutogenKernels.h"
#include "dest/common/FunctionContext.h"
#include "dest/library/Library.h"
#include "support/CodeText.h"

namespace opgen::dest {

namespace {

constexpr std::string_view kFile = "AutogenKernels.cpp";

// The file of a library without `autogen:` entries.  $generated_comment$ its first line
constexpr std::string_view kNothingToGenerate = R"cc(// $generated_comment$
//
// The library has no `autogen:` entries: no kernels to generate.
)cc";

}  // namespace

std::string_view autogenKernelsSourceFile() { return kFile; }

void emitAutogenKernels(const EmitContext& ctx, const std::string& ns, Writer& out) {
  // In NS::native, next to the helpers of the template.
  const AutogenKernelStyle style{.opsNamespace = ns + "::_ops",
                                 .helpers = "autogen_helpers::",
                                 .clonesAsValues = true,
                                 .torchgenIndentation = false,
                                 .libtorch = ctx.libtorch()};
  std::vector<std::string> definitions;
  for (const model::NativeFunctionsGroup* g : ctx.ops.groups()) {
    if (g->functional->generated())
      definitions.push_back(valueOrReport(generatedFunctionalKernel(*g, style), *g->out, ctx.diags));
    if (g->out->generated()) definitions.push_back(valueOrReport(generatedOutKernel(*g, style), *g->out, ctx.diags));
  }
  if (definitions.empty()) {
    out.writeText(kFile, [] {
      return support::fillSnippet(kNothingToGenerate, {{"generated_comment", libraryGeneratedComment(kFile)}});
    });
    return;
  }
  out.write(kFile, [&] {
    support::TemplateEnv env;
    env.set("generated_comment", libraryGeneratedComment(kFile));
    env.set("namespace", ns);
    env.set("definitions", std::move(definitions));
    return env;
  });
}

}  // namespace opgen::dest
