#include "model/Derivatives.h"

#include <algorithm>

#include "support/Strings.h"

namespace opgen::model {

std::string nodeNamePrefix(std::string_view name) {
  const std::string camel = support::titledParts(name);
  return support::replaceAll(camel + "Backward", "ForwardBackward", "Backward");
}

const Argument& Derivative::argument(std::string_view name) const {
  const Argument* found = nullptr;
  function->func.arguments.anyOf([&](const Argument& a) {
    if (a.name == name) found = &a;
    return found != nullptr;
  });
  return *found;
}

std::size_t Derivative::returnIndex(std::string_view name) const {
  return static_cast<std::size_t>(std::find(returnNames.begin(), returnNames.end(), name) - returnNames.begin());
}

const Derivative* Derivatives::find(const NativeFunction& f) const {
  for (const Derivative& d : entries_)
    if (d.function == &f) return &d;
  return nullptr;
}

}  // namespace opgen::model
