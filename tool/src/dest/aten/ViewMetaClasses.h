// ViewMetaClasses.h / .cpp: the functionalization pass's view metadata (torchgen's
// gen_functionalization_type.py, the parts about views), one ViewMeta specialization per
// non-composite view (and in-place view): the state a functional tensor needs to replay the view
// (forward) and to propagate a mutation of the view back to its base (reverse, which calls the
// inverses of dest/aten/FunctionalInverses.h).
// RegisterFunctionalization.cpp (dest/aten/RegisterFunctionalization) creates these specializations.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/Types.h"
#include "dest/common/Emit.h"
#include "support/Expected.h"

namespace opgen::dest {

// The ViewMeta specialization of `f`, the view or the in-place view of `g` (torchgen's
// ViewMetaSpecialization). Uses f's api options (torchgen enters native_function_manager(f)).
class ViewMetaSpecialization {
 public:
  ViewMetaSpecialization(const model::NativeFunctionsViewGroup& g, const model::NativeFunction& f);

  // "NAME_ViewMeta" (with "at::functionalization::" when withNamespace).
  std::string classname(bool withNamespace = false) const;
  // f returns several tensors (or a list): the specialization knows which one it stands for.
  bool isMultiOutput() const;

  // "std::make_shared<at::functionalization::NAME_ViewMeta>(ARGS)": the constructor's parameters by
  // name, with `outIndex` for out_index.
  std::string newExpr(std::string_view outIndex = "0") const;
  // The struct's declaration (one element of ViewMetaClasses.h's view_meta_declarations).
  support::Expected<std::string> decl() const;
  // The definitions of forward, reverse and (multi-output) to_out_index. Needs g's view_copy.
  support::Expected<std::vector<std::string>> impl() const;

 private:
  // The call of the view (or view_copy) in forward, or of the view inverse in reverse.
  support::Expected<std::string> opCall(bool isReverse, bool reapplyViews) const;

  const model::NativeFunctionsViewGroup* g_;
  const model::NativeFunction* f_;
  api::Options options_;
};

// The #includes of the per-operator headers a view group's functionalization code needs (torchgen's
// gen_op_headers for a view group): _native.h and _ops.h of the view and of its copy.
std::vector<std::string> viewGroupOpHeaders(const model::NativeFunctionsViewGroup& g);

// Errors for a view whose first argument is not a plain Tensor (torchgen asserts it wherever a view's
// arguments after self are taken apart): "" when it is one.
support::Expected<std::string> checkFirstArgumentIsTensor(const model::FunctionSchema& func);

// ViewMetaClasses.h and ViewMetaClasses.cpp (empty for a selective build).
void emitViewMetaClasses(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
