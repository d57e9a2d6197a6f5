#pragma once
// ${generated_comment}
//
// The kernels of ${namespace}::${operator} alone (what <${namespace}/NativeFunctions.h> has for it):
// a kernel source includes the headers of the operators it implements, and recompiles only when one
// of them changes.

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

${meta_declarations}
${kernel_declarations}
