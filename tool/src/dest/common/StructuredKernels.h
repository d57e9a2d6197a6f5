// The kernels of a structured group for one dispatch key: torchgen's StructuredRegisterDispatchKey
// (dest/register_dispatch_key.py). For each function of the group (functional, out=, in-place) the
// anonymous definitions are a class deriving from the group's meta class (at::meta::structured_NAME)
// or the backend's structured kernel class, whose set_output_* create, resize or check the outputs
// (with a device guard on devices that need one), and a wrapper that runs meta() then impl() (or, for
// CompositeExplicitAutogradNonFunctional, the out= function) and returns the outputs.
#pragma once

#include <string>
#include <vector>

#include "dest/common/RegisterDispatchKey.h"
#include "support/Expected.h"

namespace opgen::dest {

class StructuredKernelEmitter {
 public:
  // `base` is the key's emitter (its index, targets and shared pieces); `g` a structured group.
  StructuredKernelEmitter(const RegisterDispatchKeyEmitter& base, const model::NativeFunctionsGroup& g)
      : base_(base), g_(g) {}

  // Appends what f, a function of the group, contributes (torchgen's gen_one).
  void emit(const model::NativeFunction& f, KernelCode& out) const;

 private:
  struct ClassNames {
    std::string name;    // structured_KERNEL_functional, ...
    std::string parent;  // at::meta::structured_NAME or NS::structured_KERNEL
  };
  support::Expected<ClassNames> classNames(model::SchemaKind kind) const;
  // `sig` is the wrapper's signature without a prefix, `name` the wrapper's name.
  support::Expected<std::string> anonymousDefinition(const FunctionApi& api, const NativeWrapper& sig,
                                                     const std::string& name) const;
  support::Expected<std::string> wrapperBody(const FunctionApi& api, const NativeWrapper& sig, const std::string& name,
                                             const std::string& className) const;
  support::Expected<std::string> classDefinition(const model::NativeFunction& f, model::SchemaKind kind,
                                                 const ClassNames& names) const;
  // The parts of wrapperBody's statements that do not depend on the key.
  support::Expected<StructuredWrapperParts> wrapperParts(const model::NativeFunction& f, const NativeWrapper& sig) const;
  support::Expected<std::vector<std::string>> setOutputFunctions(model::SchemaKind kind) const;
  support::Expected<std::string> setOutputBody(model::SchemaKind kind, bool createProxy) const;

  const RegisterDispatchKeyEmitter& base_;
  const model::NativeFunctionsGroup& g_;
};

}  // namespace opgen::dest
