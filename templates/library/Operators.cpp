// ${generated_comment}
//
// The entry points of ${namespace}::_ops: each operator's typed handle, looked up once.

#include <${namespace}/Operators.h>

#include <ATen/core/dispatch/Dispatcher.h>

namespace ${namespace} {
namespace _ops {
${definitions}
} // namespace _ops
} // namespace ${namespace}
