// The functionalization pass's view metadata (ViewMeta specializations and view inverses): torchgen's
// api/functionalization.py. These follow the dispatcher convention, with a few fixed extra bindings.
#pragma once

#include <string>
#include <vector>

#include "api/Types.h"
#include "support/Expected.h"

namespace opgen::api::functionalization {

// The fixed bindings: `const at::Tensor & base`, `bool has_symbolic_inputs`,
// `const at::Tensor & mutated_view`, `int64_t out_index`, `bool reapply_views`,
// `at::functionalization::InverseReturnMode inverse_return_mode`.
const Binding& baseBinding();
const Binding& hasSymbolicInputsBinding();
const Binding& mutatedViewBinding();
const Binding& outIndexBinding();
const Binding& reapplyViewsBinding();
const Binding& inverseReturnModeBinding();
inline constexpr BaseCppType InverseReturnModeT{"at::functionalization", "InverseReturnMode"};

// "transpose_int_ViewMeta" (with "at::functionalization::" when withNamespace).
std::string classname(const model::FunctionSchema& func, bool withNamespace = false);

// The op the forward function calls: at::_ops::{view or view_copy}::call. The group needs a view_copy.
std::string forwardName(const model::NativeFunctionsViewGroup& g, bool reapplyViews);
// The view inverse: "NAME_inverse", or with include_namespace
// "at::functionalization::FunctionalInverses::NAME_inverse".
std::string reverseName(const model::NativeFunction& f, bool includeNamespace);

// Always at::Tensor (every output is tracked on its own); every return of a view is tensor-like.
CType returnsType(const model::FunctionSchema& func);
// More than one return, or a list return.
bool isMultiOutput(const model::FunctionSchema& func);

// The ViewMeta constructor's base parameters: has_symbolic_inputs (and out_index for multi-output views).
std::vector<Binding> baseCtorArguments(const model::FunctionSchema& func);
// The specialization's own constructor parameters: its attributes, non-owning.
std::vector<Binding> extraCtorArguments(const model::FunctionSchema& func, const Options& options);
// The specialization's data members: reapply_views, inverse_return_mode and the view's arguments
// after self, owning (::std::vector<int64_t>, not IntArrayRef) unless owning is false.
std::vector<Binding> attributes(const model::FunctionSchema& func, const Options& options, bool owning = true);
// The arguments of the op the forward (base, args after self) or reverse (base, mutated_view,
// inverse_return_mode, [out_index,] args after self) function calls. The first argument of func must
// be a Tensor.
std::vector<Binding> opArguments(const model::FunctionSchema& func, bool isReverse, const Options& options);

// torchgen's emit_expr_has_symbolic_values: a C++ condition that `expr` (of `type`: a SymInt, an
// optional one or a list of them) holds a symbolic SymInt; an error for any other type.
support::Expected<std::string> hasSymbolicValues(const std::string& expr, const CType& type);

}  // namespace opgen::api::functionalization
