// torchgen's api/translate.py: given the bindings (or expressions) in scope, synthesize expressions for
// the arguments of another API. E.g. inside `at::Tensor add(const at::Tensor & self, ...)` find what to
// pass to at::_ops::add_Tensor::call(...): trivial when names and types agree, otherwise through a
// fixed set of rules (TensorOptions <-> dtype/layout/device/pin_memory, SymInt <-> int64_t, IntArrayRef
// <-> SymIntArrayRef, optional tensor/scalar references, const_cast of tensors, ...).
#pragma once

#include <vector>

#include "api/Types.h"
#include "support/Expected.h"

namespace opgen::api {

struct TranslateOptions {
  // Inside a Tensor method: `self` is available as const_cast<Tensor&>(*this).
  bool method = false;
  // Also convert reference types into owning ones (IntArrayRef -> ::std::vector<int64_t>, ...), for
  // lambda captures; these conversions copy.
  bool allowExpensiveConversions = false;
  // How the expressions spell nullopt, make_optional and the IntArrayRef conversions.
  LibtorchFacts libtorch = {};
};

// One expression per goal, in order; an error (torchgen's UnsatError, with the context listed) when a
// goal cannot be synthesized. Later bindings with the same name and type shadow earlier ones.
support::Expected<std::vector<Expr>> translate(const std::vector<Expr>& bindings, const std::vector<NamedCType>& goals,
                                               const TranslateOptions& options = {});
support::Expected<std::vector<Expr>> translate(const std::vector<Binding>& bindings, const std::vector<Binding>& goals,
                                               const TranslateOptions& options = {});
support::Expected<std::vector<Expr>> translate(const std::vector<Expr>& bindings, const std::vector<Binding>& goals,
                                               const TranslateOptions& options = {});

std::vector<Expr> toExprs(const std::vector<Binding>& bindings);
std::vector<NamedCType> toGoals(const std::vector<Binding>& bindings);

}  // namespace opgen::api
