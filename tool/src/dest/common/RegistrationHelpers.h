// The fixed parts of a Register{Key}.cpp that depend only on the key: the headers of its
// registrations and the helpers of its structured kernels (torchgen's gen_registration_headers and
// gen_registration_helpers). Shared by ATen's files (`opgen gen`) and out-of-tree backends'
// (`opgen backend`).
#pragma once

#include <string>
#include <vector>

#include "api/Types.h"
#include "model/NativeFunction.h"

namespace opgen::dest {

// gen_registration_headers: the #include lines.
std::vector<std::string> registrationHeaders(const model::BackendIndex& index, bool perOperatorHeaders, bool rocm);

// gen_registration_helpers: create_out, resize_out, check_inplace, maybe_create_proxy (as the key
// needs them), between the diagnostic push and pop (spelled for `libtorch`).
std::vector<std::string> registrationHelpers(const model::BackendIndex& index, const api::LibtorchFacts& libtorch = {});

}  // namespace opgen::dest
