// Grouping of related native functions: the functional / in-place / mutable / out= variants of
// one operator (torchgen's NativeFunctionsGroup) and a view with its in-place and copy variants
// (NativeFunctionsViewGroup). Groups point into an Operators object that outlives them.
#pragma once

#include <optional>
#include <variant>
#include <vector>

#include "model/NativeFunction.h"
#include "support/Diagnostics.h"

namespace opgen::model {

struct NativeFunctionsGroup {
  const NativeFunction* functional = nullptr;
  const NativeFunction* inplace = nullptr;  // may be null
  const NativeFunction* mutableFn = nullptr;  // may be null
  const NativeFunction* out = nullptr;

  bool structured() const { return out->structured; }
  FunctionSchema signature() const { return out->func.signature(); }
  // functional, out, inplace, mutable (those that exist), torchgen's order.
  std::vector<const NativeFunction*> functions() const;
  // Calls fn(const NativeFunction&) for each of functions(), in its order, without making the list.
  template <class Fn>
  void forEachFunction(Fn fn) const {
    fn(*functional);
    fn(*out);
    if (inplace) fn(*inplace);
    if (mutableFn) fn(*mutableFn);
  }
  std::string rootName() const { return functional->rootName(); }
};

struct NativeFunctionsViewGroup {
  const NativeFunction* view = nullptr;
  const NativeFunction* viewCopy = nullptr;     // may be null
  const NativeFunction* viewInplace = nullptr;  // may be null

  // view, view_inplace, view_copy (those that exist).
  std::vector<const NativeFunction*> functions(bool includeCopy = true) const;
  std::string rootName() const { return view->rootName(); }
  bool composite() const { return view->hasCompositeImplicitAutogradKernel; }
};

using FunctionOrGroup = std::variant<const NativeFunction*, NativeFunctionsGroup>;
using FunctionOrViewGroup = std::variant<const NativeFunction*, NativeFunctionsViewGroup>;

// The function that stands for an item in errors and in sharding: the function itself, or a group's
// functional function.
const NativeFunction& representative(const FunctionOrGroup& item);
// Reports an error about an item at its representative's entry, naming it.
void reportError(support::Diagnostics& diags, const FunctionOrGroup& item, std::string_view message);

// Functions with the same signature() (their signatureString), each with its schema kind, in order
// of first appearance.
using Family = std::vector<std::pair<SchemaKind, const NativeFunction*>>;
std::optional<std::vector<Family>> preGroupBySignature(const std::vector<const NativeFunction*>& functions,
                                                       support::Diagnostics& diags);

// torchgen's get_grouped_native_functions, with NativeFunctionsGroup's checks.
std::optional<std::vector<FunctionOrGroup>> groupNativeFunctions(const std::vector<const NativeFunction*>& functions,
                                                                 support::Diagnostics& diags);
// torchgen's get_grouped_by_view_native_functions, with NativeFunctionsViewGroup's checks.
std::optional<std::vector<FunctionOrViewGroup>> groupByView(const std::vector<const NativeFunction*>& functions,
                                                            support::Diagnostics& diags);

// Whether a view operator gets a generated {view}_copy variant, and its name.
bool getsGeneratedViewCopy(const NativeFunction& f);
OperatorName viewCopyName(const NativeFunction& f);

}  // namespace opgen::model
