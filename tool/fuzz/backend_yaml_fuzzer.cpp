// The backend YAML reader of `opgen backend` (model/BackendYaml), against a small set of ATen-like
// operators read once at start-up (base/native_functions.yaml), with and without
// --skip-missing-operators (the input's length decides, so that an input always means the same).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "FuzzCheck.h"
#include "model/BackendYaml.h"
#include "model/Loader.h"

namespace {

const opgen::model::Operators& base() {
  static const opgen::model::Operators ops =
      opgen::fuzz::loadBaseOperators(OPGEN_FUZZ_BACKEND_BASE, OPGEN_FUZZ_TAGS, opgen::model::LoadOptions{});
  return ops;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)base();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  opgen::support::Diagnostics diags;
  const opgen::model::BackendYamlOptions options{.skipMissingOperators = size % 2 == 1};
  const auto yaml = opgen::model::loadBackendYaml("backend.yaml", text, base(), options, diags);
  opgen::fuzz::checkDiagnostics(diags, !yaml);
  if (yaml && yaml->backendKey) (void)yaml->effectiveClassName();
  return 0;
}
