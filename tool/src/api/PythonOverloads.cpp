// Overload grouping and ordering for the Python argument parser (torchgen's group_overloads and
// sort_overloads in gen_python_functions.py).
#include <algorithm>
#include <map>
#include <set>

#include "api/Python.h"

namespace opgen::api::python {

using support::Expected;
using support::makeError;

namespace {

// t1 < t2: the parser should try t2 first (see torchgen's Note[Order of overloads matters]).
bool isArgSmaller(const std::string& t1, const std::string& t2) {
  return (t1 == "Scalar" && t2 == "Tensor") || (t1 == "Scalar?" && t2 == "Tensor?") ||
         (t1 == "int[]" && (t2 == "int" || t2 == "int?")) ||
         (t1 == "Tensor[]" && t2.find("[]") != std::string::npos) || (t1 == "SymInt[]" && t2 == "int[]") ||
         ((t1 == "SymInt" || t1 == "int") && t2 == "Tensor");
}

bool isSmaller(const PythonSignature& s1, const PythonSignature& s2) {
  const auto args1 = s1.arguments(true), args2 = s2.arguments(true);
  if (args1.size() != args2.size()) return false;
  bool equal = true, smallerOrEqual = true;
  for (size_t i = 0; i < args1.size(); ++i) {
    const std::string t1 = args1[i]->type.str(), t2 = args2[i]->type.str();
    if (!(args1[i]->type == args2[i]->type)) equal = false;
    if (t1 != t2 && !isArgSmaller(t1, t2)) smallerOrEqual = false;
  }
  return smallerOrEqual && !equal;
}

// Sorted by signature, then topologically by the partial order above.
Expected<std::vector<SignatureGroup>> sortOverloads(std::vector<SignatureGroup> groups, bool symint) {
  std::vector<std::string> keys;
  std::vector<size_t> order(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    keys.push_back(groups[i].signature.str(false, symint));
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<SignatureGroup> sorted;
  for (size_t i : order) sorted.push_back(std::move(groups[i]));

  const size_t n = sorted.size();
  std::map<size_t, std::set<size_t>> largerThan;
  for (size_t i1 = 0; i1 < n; ++i1)
    for (size_t i2 = 0; i2 < n; ++i2)
      if (isSmaller(sorted[i1].signature, sorted[i2].signature)) largerThan[i1].insert(i2);
  if (largerThan.empty()) return sorted;

  std::vector<size_t> ids;
  for (size_t i = 0; i < n; ++i)
    if (!largerThan.count(i)) ids.push_back(i);
  for (size_t idx = 0; idx < n; ++idx) {
    if (idx >= ids.size()) return makeError("the overloads of " + sorted[0].signature.name + " cannot be ordered");
    const size_t i = ids[idx];
    std::vector<size_t> snapshot;
    for (const auto& [j, larger] : largerThan) snapshot.push_back(j);
    for (size_t j : snapshot) {
      std::set<size_t>& larger = largerThan[j];
      larger.erase(i);
      if (larger.empty()) {
        largerThan.erase(j);
        ids.push_back(j);
      }
    }
  }
  std::vector<SignatureGroup> result;
  for (size_t i : ids) result.push_back(std::move(sorted[i]));
  return result;
}

}  // namespace

Expected<std::vector<SignatureGroup>> groupOverloads(const std::vector<const SignaturePair*>& overloads, bool symint) {
  // By signature without out arguments, in first-seen order.
  std::vector<std::pair<std::string, const SignaturePair*>> bases;
  std::map<std::string, const SignaturePair*> outplaces;
  std::map<std::string, size_t> baseIndex;
  for (const SignaturePair* overload : overloads) {
    std::string sig = overload->signature.str(true, symint);
    const bool out = overload->function->func.isOutFn();
    const SignaturePair* existing = nullptr;
    if (out) {
      auto [it, inserted] = outplaces.emplace(sig, overload);
      if (!inserted) existing = it->second;
    } else if (auto [it, inserted] = baseIndex.emplace(sig, bases.size()); inserted) {
      bases.emplace_back(sig, overload);
    } else {
      existing = bases[it->second].second;
    }
    if (existing)
      return makeError("Found duplicated function definition: " + overload->function->func.str() +
                       ". Existing definition: " + existing->function->func.str() + ".");
  }
  for (const auto& [sig, out] : outplaces) {
    if (baseIndex.count(sig)) continue;
    std::string candidates;
    for (const SignaturePair* o : overloads)
      if (o->function->func.name.name.str() == out->function->func.name.name.str() && !o->function->func.isOutFn() &&
          !o->signature.deprecated)
        candidates += (candidates.empty() ? "" : "; ") + o->signature.str(true, symint);
    return makeError("While identifying overloads, we found an out schema " + out->signature.str(false, symint) +
                     " without a corresponding non-out variant. We expected the non-out variant to have schema: " +
                     sig + " (candidates: " + candidates + ")");
  }
  std::vector<SignatureGroup> grouped;
  for (const auto& [sig, base] : bases) {
    auto out = outplaces.find(sig);
    if (out == outplaces.end()) {
      grouped.push_back({base->signature, base->function, nullptr});
    } else {
      PythonSignature s = out->second->signature;
      s.tensorOptionsArgs = base->signature.tensorOptionsArgs;  // out= C++ overloads take no TensorOptions
      grouped.push_back({std::move(s), base->function, out->second->function});
    }
  }
  return sortOverloads(std::move(grouped), symint);
}

}  // namespace opgen::api::python
