// The loader of native_functions.yaml (model/Loader), as `opgen parse` runs it on one file in
// memory: torchgen's checks, the autogen variants, the groups and the backend indices. The tags are
// those of the conformance fixtures (OPGEN_FUZZ_TAGS), so that `tags:` entries are read too.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "FuzzCheck.h"
#include "model/Loader.h"

namespace {

const std::set<std::string>& tags() {
  static const std::set<std::string> names = opgen::fuzz::loadBaseTags(OPGEN_FUZZ_TAGS);
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)tags();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  opgen::support::Diagnostics diags;
  const auto ops = opgen::model::loadNativeFunctions("native_functions.yaml", text, tags(), {}, diags);
  opgen::fuzz::checkDiagnostics(diags, !ops);
  if (ops) {
    for (const opgen::model::NativeFunction* f : ops->functions()) (void)f->func.str();
    (void)ops->grouped();
  }
  return 0;
}
