#pragma once
// ${generated_comment}
//
// The C++ API of ${namespace}::${operator} alone (what <${namespace}/Functions.h> has for it): a
// source that calls only this operator includes this header, and recompiles only when it changes.

#include <${namespace}/ops/${operator}_ops.h>

#include <c10/core/SymIntArrayRef.h>
#include <c10/core/TensorOptions.h>

namespace ${namespace} {
${definitions}
} // namespace ${namespace}
