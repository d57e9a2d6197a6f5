// The public C++ API as inline wrappers around the ATen Operators API (at::_ops): the functions
// (at::add, and at::symint::add<T> for SymInt overloads), the Tensor methods (Tensor::add), and the
// redispatch functions (at::redispatch::add). torchgen gen.py: ComputeFunction, ComputeTensorMethod,
// ComputeRedispatchFunction; the files core/TensorBody.h and RedispatchFunctions.h.
#pragma once

#include <string>
#include <vector>

#include "dest/Emit.h"
#include "support/Expected.h"
#include "support/OnceMap.h"

namespace opgen::dest {

// What f's at:: and at::redispatch:: functions have in common: its C++ API overloads (not methods)
// and, for each, the arguments of at::_ops::NAME::call in terms of the overload's. Computed once per
// function when a CallApiCache is given; the families run on several threads.
class CallApiCache {
 public:
  struct Overload {
    std::string decl;               // sig.decl()
    std::string declWithoutSuffix;  // sig.decl({.suppressSymintSuffix = true}), for SymInt functions
    std::string redispatchDecl;     // sig.decl({.isRedispatchingFn = true})
    bool symint = false;
    support::Expected<std::string> args;  // the dispatcher's arguments, or why they cannot be made
  };
  struct Entry {
    explicit Entry(const model::NativeFunction& f);
    support::Expected<std::string> check;  // checkCppApi: an error when f has no C++ API
    std::vector<Overload> overloads;
  };
  const Entry& get(const model::NativeFunction& f) { return entries_.get(&f, f); }

 private:
  support::OnceMap<const model::NativeFunction*, Entry> entries_;
};

// f's at:: functions (for every C++ API overload; only the symint:: templates when f is not a
// function variant). Empty when there is nothing to define.
support::Expected<std::string> functionDefinitions(const model::NativeFunction& f, CallApiCache* cache = nullptr);

// The Tensor method declarations (inside class Tensor) and inline definitions of a method variant
// (an error for an out= function or one without self).
support::Expected<std::string> tensorMethodDeclarations(const model::NativeFunction& f);
support::Expected<std::string> tensorMethodDefinitions(const model::NativeFunction& f);

// f's at::redispatch:: functions (always generated, methods included).
support::Expected<std::string> redispatchDefinitions(const model::NativeFunction& f, CallApiCache* cache = nullptr);

// functionDefinitions of every function, in order (errors reported at each function).
std::vector<std::string> functionDefinitionList(const std::vector<const model::NativeFunction*>& functions,
                                                support::Diagnostics& diags, CallApiCache* cache = nullptr);

// core/TensorBody.h: the Tensor class with its method declarations and definitions.
void emitTensorBody(const EmitContext& ctx, const Writers& out);
// RedispatchFunctions.h.
void emitRedispatchFunctions(const EmitContext& ctx, const Writers& out);

}  // namespace opgen::dest
