// Static dispatch (--static-dispatch-backend): instead of going through the dispatcher,
// at::_ops::NAME::call() calls the backend's kernel wrapper (at::cpu::add, ...) directly, and the
// headers include what those calls need (torchgen gen.py: static_dispatch and its helpers).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/Signatures.h"
#include "model/NativeFunction.h"
#include "support/Expected.h"

namespace opgen::dest {

// `#include <ATen/{Key}Functions.h>` for every static dispatch backend, then the four composite keys
// (nothing without static dispatch).
std::vector<std::string> staticDispatchExtraHeaders(const std::vector<model::BackendIndex>& backends);

// The `ATen/ops/{root}_{key}_dispatch.h` headers f's static dispatch calls into, one per line (possibly
// empty); nullopt for a function with manual kernel registration.
std::optional<std::string> staticDispatchOpsHeader(const model::NativeFunction& f,
                                                   const std::vector<model::BackendIndex>& backends);

// The body of at::_ops::NAME::call() for f under static dispatch (`sig` is f's dispatcher signature):
// a direct call when one backend has the kernel, else a switch on the arguments' dispatch key with a
// composite (or failing) fallback. Empty without backends or for manual kernel registration. An error
// when an argument cannot be translated.
support::Expected<std::string> staticDispatchBody(const api::DispatcherSignature& sig, const model::NativeFunction& f,
                                                  const std::vector<model::BackendIndex>& backends);

}  // namespace opgen::dest
