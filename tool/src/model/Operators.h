// Everything a native_functions.yaml declares, after loading: the native functions in torchgen's
// order (entries of the file, then autogen-made ones), one BackendIndex per dispatch key, and the
// functions grouped by operator and by view. Immutable once built; groups point into the object.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/Groups.h"
#include "model/NativeFunction.h"

namespace opgen::model {

class Operators {
 public:
  Operators(std::vector<std::unique_ptr<const NativeFunction>> functions,
            std::vector<BackendIndex> backendIndices, std::set<std::string> validTags);
  // Groups the functions (torchgen's get_grouped_native_functions and
  // get_grouped_by_view_native_functions) and checks the groups; false on error.
  bool buildGroups(support::Diagnostics& diags);

  const std::vector<const NativeFunction*>& functions() const { return view_; }
  // In the order keys first received a kernel.
  const std::vector<BackendIndex>& backendIndices() const { return indices_; }
  // The index of a key; when no kernel uses the key, torchgen's default: an empty index whose
  // dispatch key is Undefined (backend_indices is a defaultdict).
  const BackendIndex& index(DispatchKey key) const;
  const std::set<std::string>& validTags() const { return validTags_; }
  const NativeFunction* find(const OperatorName& name) const;
  const std::vector<FunctionOrGroup>& grouped() const { return grouped_; }
  const std::vector<FunctionOrViewGroup>& groupedByView() const { return groupedByView_; }
  // The groups among grouped() (torchgen's structured_native_functions: every group, structured or
  // not) and the view groups among groupedByView() (torchgen's view_groups), in order.
  const std::vector<const NativeFunctionsGroup*>& groups() const { return groups_; }
  const std::vector<const NativeFunctionsViewGroup*>& viewGroups() const { return viewGroups_; }

 private:
  std::vector<std::unique_ptr<const NativeFunction>> owned_;
  std::vector<const NativeFunction*> view_;
  std::unordered_map<std::string, const NativeFunction*> byName_;
  std::vector<BackendIndex> indices_;
  std::set<std::string> validTags_;
  std::vector<FunctionOrGroup> grouped_;
  std::vector<FunctionOrViewGroup> groupedByView_;
  std::vector<const NativeFunctionsGroup*> groups_;
  std::vector<const NativeFunctionsViewGroup*> viewGroups_;
};

}  // namespace opgen::model
