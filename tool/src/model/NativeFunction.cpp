#include "model/NativeFunction.h"

#include <array>

namespace opgen::model {

namespace {
constexpr std::array<std::string_view, 7> kUfuncKeyNames = {
    "CUDAFunctor", "CUDAFunctorOnOther", "CUDAFunctorOnSelf", "CPUScalar", "CPUVector", "ScalarOnly", "Generic"};
constexpr std::array<std::string_view, 18> kScalarTypeNames = {
    "Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "ComplexHalf", "ComplexFloat",
    "ComplexDouble", "Bool", "BFloat16", "Float8_e5m2", "Float8_e5m2fnuz", "Float8_e4m3fn", "Float8_e4m3fnuz",
    "Float8_e8m0fnu"};
}  // namespace

std::string_view ufuncKeyName(UfuncKey k) { return kUfuncKeyNames[static_cast<size_t>(k)]; }

std::optional<UfuncKey> parseUfuncKey(std::string_view name) {
  for (size_t i = 0; i < kUfuncKeyNames.size(); ++i)
    if (kUfuncKeyNames[i] == name) return static_cast<UfuncKey>(i);
  return std::nullopt;
}

std::string_view scalarTypeName(ScalarType t) { return kScalarTypeNames[static_cast<size_t>(t)]; }

bool NativeFunction::hasCompositeKernel() const {
  return hasCompositeImplicitAutogradKernel || hasCompositeExplicitAutogradKernel ||
         hasCompositeExplicitAutogradNonFunctionalKernel;
}

bool NativeFunction::isViewOp() const {
  for (const auto& r : func.returns)
    if (r.annotation && !r.annotation->isWrite) return true;  // a non-mutating view
  if (tags.count("inplace_view")) {
    const std::string name = func.name.str();
    if (name != "resize_" && name != "resize_as_") return true;
  }
  return func.arguments.anyOf([](const Argument& a) {  // a wildcard view
    if (a.annotation)
      for (const auto& s : a.annotation->aliasSetAfter)
        if (s.find('*') != std::string::npos) return true;
    return false;
  });
}

bool BackendIndex::add(const OperatorName& op, BackendMetadata m) {
  std::string key = op.str();
  if (byName_.count(key)) return false;
  byName_.emplace(key, order_.size());
  order_.emplace_back(std::move(key), std::move(m));
  return true;
}

const BackendMetadata* BackendIndex::find(const OperatorName& op) const { return find(std::string_view(op.str())); }

const BackendMetadata* BackendIndex::find(std::string_view opName) const {
  auto it = byName_.find(opName);
  return it == byName_.end() ? nullptr : &order_[it->second].second;
}

void reportError(support::Diagnostics& diags, const NativeFunction& f, std::string_view message) {
  diags.errorAbout(f.loc.sourceLoc(), f.func.name.str(), message);
}

support::SourceLoc autogenSourceLoc(const NativeFunction& f) {
  return f.autogenLoc.line > 0 ? f.autogenLoc.sourceLoc() : f.loc.sourceLoc();
}

}  // namespace opgen::model
