#pragma once
// ${generated_comment}
//
// The dispatcher's view of ${namespace}::${operator} (its overloads, in-place and out= variants): one
// struct per overload with its schema type and the entry points call() and redispatch(). Code that
// calls the operator wants <${namespace}/ops/${operator}.h>.

#include <ATen/core/ATen_fwd.h>
#include <ATen/core/Generator.h>
#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/core/Scalar.h>
#include <c10/util/Optional.h>
#include <c10/util/string_view.h>

#include <tuple>
#include <vector>

namespace ${namespace} {
namespace _ops {
${declarations}
} // namespace _ops
} // namespace ${namespace}
