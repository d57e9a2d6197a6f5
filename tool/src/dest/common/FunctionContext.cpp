#include "dest/common/FunctionContext.h"

#include "api/Cpp.h"

namespace opgen::dest {

std::string valueOrReport(support::Expected<std::string> result, const model::NativeFunction& f,
                          support::Diagnostics& diags) {
  if (result) return result.take();
  model::reportError(diags, f, result.error().message);
  return std::string();
}

support::Expected<std::string> checkCppApi(const model::NativeFunction& f) {
  if (std::optional<std::string> problem = api::cpp::checkSupported(f.func)) return support::makeError(*problem);
  return std::string();
}

}  // namespace opgen::dest
