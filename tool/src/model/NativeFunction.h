// One entry of native_functions.yaml after parsing and canonicalisation (torchgen's NativeFunction),
// and the per-backend kernel tables (BackendIndex).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/DispatchKey.h"
#include "model/Schema.h"
#include "support/Diagnostics.h"

namespace opgen::model {

enum class Variant { Function, Method };
enum class DeviceCheckType { NoCheck, ExactSame };

enum class UfuncKey { CUDAFunctor, CUDAFunctorOnOther, CUDAFunctorOnSelf, CPUScalar, CPUVector, ScalarOnly, Generic };
std::string_view ufuncKeyName(UfuncKey k);
std::optional<UfuncKey> parseUfuncKey(std::string_view name);

enum class ScalarType {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble, Bool, BFloat16,
  Float8_e5m2, Float8_e5m2fnuz, Float8_e4m3fn, Float8_e4m3fnuz, Float8_e8m0fnu,
};
std::string_view scalarTypeName(ScalarType t);

struct UfuncInnerLoop {
  std::string name;
  std::vector<ScalarType> supportedDtypes;  // ordered set, in declaration order
  UfuncKey ufuncKey = UfuncKey::Generic;
};

// precomputed: kernel argument -> the precomputed elements that replace it, plus additions.
struct Precompute {
  std::vector<std::pair<std::string, std::vector<Argument>>> replace;
  std::vector<Argument> add;
};

struct BackendMetadata {
  std::string kernel;
  bool structured = false;
  std::string cppNamespace;  // "at::native" unless the dispatch entry named another namespace
  // The kernel takes SymInt arguments as c10::SymInt (LoadOptions::symintKernels), whatever its name.
  bool symint = false;

  bool supportsSymInt() const { return symint || kernel.find("_symint") != std::string::npos; }
};

// Where an entry came from: the position of its first key (1-based).
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
  // torchgen's form, FILE:LINE.
  std::string str() const { return file + ":" + std::to_string(line); }
  support::SourceLoc sourceLoc() const { return support::SourceLoc{file, line, column}; }
};

struct NativeFunction {
  std::string ns;  // "aten" unless the func: text says "myops::..."
  FunctionSchema func;
  // func.str(), computed once when the function is made (by the loader, or autogen): the output
  // families need it for every function, and printing a schema is not cheap.
  std::string schemaString;
  // func.signature().str(), computed once when the function is made (on the loader's threads):
  // grouping by signature needs it for every function, before and after autogen.
  std::string signatureString;
  // The func: text as written (namespace prefix included); empty for generated functions.
  std::string funcText;
  bool explicitNamespace = false;  // func: was written with a "ns::" prefix
  bool useConstRefForMutableTensors = false;
  bool deviceGuard = true;
  DeviceCheckType deviceCheck = DeviceCheckType::ExactSame;
  std::optional<std::string> pythonModule;
  std::optional<std::string> categoryOverride;
  std::set<Variant> variants;
  bool manualKernelRegistration = false;
  bool manualCppBinding = false;
  Location loc;
  // Where the schema text (after any "ns::") starts in the file, for errors about its parts; line 0
  // for generated functions and quoted schemas with line breaks (a plain scalar folded across lines
  // is located as if it were on its first line).
  Location schemaLoc;
  // The comment lines directly above the entry in the YAML, without their '#' and one space after it
  // (joined with newlines); empty when there are none or the function was generated.
  std::string doc;
  std::vector<OperatorName> autogen;
  // Where the autogen: value starts (line 0 without one), for errors about the generated variants.
  Location autogenLoc;
  std::map<UfuncKey, UfuncInnerLoop> ufuncInnerLoop;
  bool structured = false;
  std::optional<OperatorName> structuredDelegate;
  std::optional<std::string> structuredInherits;
  std::optional<Precompute> precomputed;
  std::set<std::string> cppNoDefaultArgs;
  bool isAbstract = false;
  bool hasCompositeImplicitAutogradKernel = false;
  bool hasCompositeImplicitAutogradNestedTensorKernel = false;
  bool hasCompositeExplicitAutogradKernel = false;
  bool hasCompositeExplicitAutogradNonFunctionalKernel = false;
  std::set<std::string> tags;
  // Where each tag the entry's `tags:` names is written (not those torchgen adds), for errors about it.
  std::map<std::string, Location> tagLocs;
  // `fake: python` (operator libraries only): its fake kernel is a Python one (torch.library.register_fake,
  // in the library's Python fake kernels file); fakeLoc: where the value is written.
  bool pythonFake = false;
  Location fakeLoc;

  bool generated() const { return tags.count("generated") != 0; }
  bool hasCompositeKernel() const;
  bool isViewOp() const;
  std::string rootName() const { return func.name.name.base; }
  bool partOfStructuredGroup() const { return structured || structuredDelegate.has_value(); }
  bool hasVariant(Variant v) const { return variants.count(v) != 0; }
};

// The kernels of one dispatch key, by operator name (in the order they were added).
class BackendIndex {
 public:
  BackendIndex() = default;
  BackendIndex(DispatchKey key, bool useOutAsPrimary, bool deviceGuard, bool external)
      : dispatchKey_(key), useOutAsPrimary_(useOutAsPrimary), deviceGuard_(deviceGuard), external_(external) {}

  DispatchKey dispatchKey() const { return dispatchKey_; }
  bool useOutAsPrimary() const { return useOutAsPrimary_; }
  bool deviceGuard() const { return deviceGuard_; }
  bool external() const { return external_; }

  // false if the operator already has a kernel for this key.
  bool add(const OperatorName& op, BackendMetadata m);
  const BackendMetadata* find(const OperatorName& op) const;
  // By the operator name's string form ("add.Tensor"), without building one.
  const BackendMetadata* find(std::string_view opName) const;
  bool has(const OperatorName& op) const { return find(op) != nullptr; }
  size_t size() const { return order_.size(); }
  // (operator name string, metadata) in insertion order.
  const std::vector<std::pair<std::string, BackendMetadata>>& entries() const { return order_; }

 private:
  DispatchKey dispatchKey_ = DispatchKey::Undefined;
  bool useOutAsPrimary_ = true;
  bool deviceGuard_ = false;
  bool external_ = false;
  std::vector<std::pair<std::string, BackendMetadata>> order_;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> byName_;
};

// Reports an error about f at its entry, naming it: "FILE:LINE:COL: error: in 'NAME': MESSAGE".
void reportError(support::Diagnostics& diags, const NativeFunction& f, std::string_view message);
// Where an error about the variants a function generates belongs: its `autogen:` value, or the
// entry when it has none.
support::SourceLoc autogenSourceLoc(const NativeFunction& f);

}  // namespace opgen::model
