// Everything a native_functions.yaml declares, after loading: the native functions in torchgen's
// order (entries of the file, then autogen-made ones) and one BackendIndex per dispatch key.
// Immutable once built.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/NativeFunction.h"

namespace opgen::model {

class Operators {
 public:
  Operators(std::vector<std::unique_ptr<const NativeFunction>> functions,
            std::vector<BackendIndex> backendIndices, std::set<std::string> validTags);

  const std::vector<const NativeFunction*>& functions() const { return view_; }
  // In the order keys first received a kernel.
  const std::vector<BackendIndex>& backendIndices() const { return indices_; }
  // The index of a key; an empty one (torchgen's default) when the key has no kernels.
  const BackendIndex& index(DispatchKey key) const;
  const std::set<std::string>& validTags() const { return validTags_; }
  const NativeFunction* find(const OperatorName& name) const;

 private:
  std::vector<std::unique_ptr<const NativeFunction>> owned_;
  std::vector<const NativeFunction*> view_;
  std::vector<BackendIndex> indices_;
  std::vector<BackendIndex> emptyIndices_;
  std::set<std::string> validTags_;
};

}  // namespace opgen::model
