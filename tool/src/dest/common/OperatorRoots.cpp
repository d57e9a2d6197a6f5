#include "dest/common/OperatorRoots.h"

#include <map>

namespace opgen::dest {

std::vector<OperatorRoot> operatorRoots(const model::Operators& ops) {
  std::vector<OperatorRoot> roots;
  std::map<std::string, std::size_t, std::less<>> slot;
  for (const model::NativeFunction* f : ops.functions()) {
    auto [it, added] = slot.emplace(f->rootName(), roots.size());
    if (added) roots.push_back({it->first, {}, {}});
    roots[it->second].functions.push_back(f);
  }
  for (const model::FunctionOrGroup& item : ops.grouped()) {
    auto it = slot.find(model::representative(item).rootName());
    if (it != slot.end()) roots[it->second].items.push_back(&item);
  }
  return roots;
}

}  // namespace opgen::dest
