// The derivatives.yaml reader (api/DifferentiabilityInfo.h) as operator libraries use it, against the operators of
// test_projects/autograd (namespace diffops, with its tags.yaml), read once at start-up as `opgen
// library` reads them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "FuzzCheck.h"
#include "api/DifferentiabilityInfo.h"
#include "model/Loader.h"

namespace {

const opgen::model::Operators& base() {
  // As `opgen library` reads a library's operators.
  static const opgen::model::Operators ops = [] {
    opgen::model::LoadOptions options;
    options.defaultKernelNamespace = "";
    options.methodVariants = false;
    return opgen::fuzz::loadBaseOperators(OPGEN_FUZZ_DERIVATIVES_BASE, OPGEN_FUZZ_DERIVATIVES_TAGS, options);
  }();
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
  const auto derivatives = opgen::api::autograd::libraryDerivatives("derivatives.yaml", text, base(), "diffops", diags);
  opgen::fuzz::checkDiagnostics(diags, !derivatives);
  if (derivatives) {
    for (const opgen::model::Derivative& d : derivatives->entries()) {
      for (const std::string& name : d.savedInputs) (void)d.argument(name);
      for (const std::string& name : d.savedOutputs) (void)d.returnIndex(name);
      for (const opgen::model::ForwardFormula& fw : d.forward)
        for (const std::string& name : fw.outputs) (void)d.returnIndex(name);
      for (const std::string& name : d.checkedNoGrad) (void)d.argument(name);
      if (!d.viewOf.empty()) (void)d.argument(d.viewOf);
    }
  }
  return 0;
}
