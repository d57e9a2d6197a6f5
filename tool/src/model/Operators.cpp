#include "model/Operators.h"

#include <thread>

namespace opgen::model {

Operators::Operators(std::vector<std::unique_ptr<const NativeFunction>> functions,
                     std::vector<BackendIndex> backendIndices, std::set<std::string> validTags)
    : owned_(std::move(functions)), indices_(std::move(backendIndices)), validTags_(std::move(validTags)) {
  view_.reserve(owned_.size());
  for (const auto& f : owned_) {
    view_.push_back(f.get());
    byName_.emplace(f->func.name.str(), f.get());
  }
}

const BackendIndex& Operators::index(DispatchKey key) const {
  for (const auto& i : indices_)
    if (i.dispatchKey() == key) return i;
  static const BackendIndex kEmpty(DispatchKey::Undefined, /*useOutAsPrimary=*/true, /*deviceGuard=*/false,
                                   /*external=*/false);
  return kEmpty;
}

const NativeFunction* Operators::find(const OperatorName& name) const {
  auto it = byName_.find(name.str());
  return it == byName_.end() ? nullptr : it->second;
}

}  // namespace opgen::model

namespace opgen::model {

bool Operators::buildGroups(support::Diagnostics& diags) {
  // The two groupings are independent: the one by view runs on another thread, reporting to its own
  // diagnostics, appended after the other's (the order of a sequential run).
  support::Diagnostics viewDiags;
  std::optional<std::vector<FunctionOrViewGroup>> byView;
  std::thread viewWorker([&] { byView = groupByView(view_, viewDiags); });
  auto grouped = groupNativeFunctions(view_, diags);
  viewWorker.join();
  diags.append(viewDiags);
  if (!grouped || !byView) return false;
  grouped_ = std::move(*grouped);
  groupedByView_ = std::move(*byView);
  for (const FunctionOrGroup& item : grouped_)
    if (const auto* g = std::get_if<NativeFunctionsGroup>(&item)) groups_.push_back(g);
  for (const FunctionOrViewGroup& item : groupedByView_)
    if (const auto* g = std::get_if<NativeFunctionsViewGroup>(&item)) viewGroups_.push_back(g);
  return true;
}

}  // namespace opgen::model
