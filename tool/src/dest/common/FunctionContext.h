// What the per-function code generators of the operator API families share: torchgen runs each of
// them inside native_function_manager(f), which names the function in any error and fixes the api
// options (api::Options::of(f)). Here that context is explicit: errors are reported at f's location.
#pragma once

#include <string>
#include <string_view>

#include "model/NativeFunction.h"
#include "support/Diagnostics.h"
#include "support/Expected.h"

namespace opgen::dest {

// The value, or "" after reporting the error at f.
std::string valueOrReport(support::Expected<std::string> result, const model::NativeFunction& f,
                          support::Diagnostics& diags);

// An error when f's schema has types or defaults the C++ API cannot express (where torchgen raises
// while generating f's C++ API); the empty string otherwise.
support::Expected<std::string> checkCppApi(const model::NativeFunction& f);

}  // namespace opgen::dest
