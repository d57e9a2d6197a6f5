#pragma once
// ${generated_comment}
//
// The operators of namespace ${namespace} as the dispatcher sees them: one struct per operator with
// its schema type and the entry points call() and redispatch(). Code that uses the operators wants
// <${namespace}/Functions.h>.

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
