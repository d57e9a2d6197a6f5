#pragma once
// ${generated_comment}
//
// What the kernels of namespace ${namespace} implement: the declaration of every kernel that a
// `dispatch:` entry names (an entry without a namespace is in ${namespace}::native), and for each
// structured operator its meta class in ${meta_namespace} (TORCH_META_FUNC) and its kernel's impl
// class (TORCH_IMPL_FUNC).

#include <ATen/TensorMeta.h>
#include <ATen/core/ATen_fwd.h>
#include <ATen/core/Generator.h>
#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/Optional.h>
#include <c10/util/string_view.h>

#include <tuple>
#include <vector>

namespace ${meta_namespace} {
${meta_declarations}
} // namespace ${meta_namespace}

${kernel_declarations}
