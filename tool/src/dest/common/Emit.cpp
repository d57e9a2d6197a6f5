#include "dest/common/Emit.h"

#include "dest/common/ApiTable.h"
#include "support/CodeText.h"

namespace opgen::dest {

Writer& Writers::forDispatchKey(model::DispatchKey key) const {
  if (model::isCudaDispatchKey(key)) return cuda;
  if (model::isXpuDispatchKey(key) && xpu != nullptr) return *xpu;
  return cpu;
}

std::string OperatorSelector::operatorName(const model::NativeFunction& f) { return f.ns + "::" + f.func.name.str(); }

const model::BackendIndex& EmitContext::backendIndex(model::DispatchKey key) const { return ops.index(key); }

const api::LibtorchFacts& EmitContext::libtorch() const { return api.libtorch(); }

std::string atenInclude(std::string_view header) {
  //   $header$ the header's path below ATen/, without ".h"
  constexpr std::string_view kInclude = "#include <ATen/$header$.h>";
  return support::fillSnippet(kInclude, {{"header", header}});
}

}  // namespace opgen::dest
