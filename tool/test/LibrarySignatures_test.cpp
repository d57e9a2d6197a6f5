// api/LibrarySignatures: what `opgen library` refuses because its generated C++ could not pass an
// argument. It must refuse nothing that PyTorch's own operators use (their generated code compiles):
// every function of PyTorch 2.14.1's and 1.13.1's native_functions.yaml passes. The refusals
// themselves, at their columns, are tested through the binary in library_test.cpp.
#include <gtest/gtest.h>

#include <map>

#include "TestSupport.h"
#include "api/LibrarySignatures.h"
#include "model/Loader.h"

namespace {

using namespace opgen;
using namespace opgen::test;

// The problems found in a whole native_functions.yaml, one line each ("NAME: argument 'x': ...").
std::string problemsOf(const fs::path& yaml, const fs::path& tags, const api::LibtorchFacts& libtorch) {
  support::Diagnostics diags;
  auto validTags = model::loadTags(tags.string(), readFile(tags), diags);
  if (!validTags) return "cannot load " + tags.string() + ": " + diags.str();
  auto ops = model::loadNativeFunctions(yaml.string(), readFile(yaml), *validTags, model::LoadOptions{}, diags);
  if (!ops) return "cannot load " + yaml.string() + ": " + diags.str();
  std::map<const model::NativeFunction*, const model::NativeFunctionsGroup*> structured;
  for (const model::NativeFunctionsGroup* g : ops->groups())
    if (g->structured()) structured.emplace(g->out, g);
  std::string found;
  size_t functions = 0;
  for (const model::NativeFunction* f : ops->functions()) {
    const auto g = structured.find(f);
    for (const api::SignatureProblem& p :
         api::librarySignatureProblems(*f, g == structured.end() ? nullptr : g->second, libtorch))
      found += f->func.name.str() + ": " + (p.argument ? "argument '" + p.argument->name + "'" : "return") + ": " +
               p.message + "\n";
    ++functions;
  }
  EXPECT_GT(functions, 1000u) << yaml;
  return found;
}

}  // namespace

TEST(LibrarySignatures, NothingOfPyTorch2IsRefused) {
  OPGEN_REQUIRE_REFERENCE();
  EXPECT_EQ(problemsOf(reference().atenNativeFunctions(), reference().atenTags(), api::LibtorchFacts{}), "");
}

TEST(LibrarySignatures, NothingOfPyTorch1IsRefused) {
  const fs::path yaml = OPGEN_TORCH_LEGACY_YAML;
  if (!fs::exists(yaml)) GTEST_SKIP() << "no " << yaml << " (Debian's python3-torch)";
  EXPECT_EQ(problemsOf(yaml, yaml.parent_path() / "tags.yaml", api::LibtorchFacts::ofVersion(1, 13)), "");
}
