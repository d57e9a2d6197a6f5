// The stable-ABI calling convention of an operator library (add_operator_library(... STABLE_ABI X.Y),
// `opgen library --stable-abi X.Y`): PyTorch's stable C ABI (torch/csrc/stable/, from 2.10), through
// which one binary serves every PyTorch from X.Y on. Kernels take and return the stable types
// (torch::stable::Tensor, std::optional, torch::headeronly::ScalarType, int64_t, double, bool, ...),
// in schema order, and are registered boxed (TORCH_BOX); the C++ API calls the operators through the
// dispatcher's stable entry point (torch_call_dispatcher). What the stable ABI of release X.Y cannot
// pass is refused here, with the type and the release, before any code is generated: the rules are
// read from PyTorch's headers (stableivalue_conversions.h, library.h, c/shim.h), each with the
// release that brought it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/NativeFunction.h"
#include "support/Diagnostics.h"
#include "support/Expected.h"

namespace opgen::api {

// The release whose stable ABI a library targets (its TORCH_TARGET_VERSION): major.minor.
struct StableAbi {
  int major = 2, minor = 10;

  // "X.Y" with X.Y at least 2.10 (the first release with the stable ABI's registration and dispatcher
  // shims, torch_library_impl and torch_call_dispatcher); else the error says why not.
  static support::Expected<StableAbi> parse(std::string_view text);
  bool atLeast(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
  std::string str() const;
  // TORCH_TARGET_VERSION's value for the release (torch/csrc/stable/version.h: the major in the top
  // byte, the minor in the next): "0x020a000000000000" for 2.10.
  std::string targetVersion() const;
  // The compile definition every source of the library (and its users) gets: TORCH_TARGET_VERSION=...,
  // so that any API newer than the release fails to compile.
  std::string compileDefinition() const;
  bool operator==(const StableAbi&) const = default;
};

// Why the stable ABI of `abi` cannot pass a value of schema type `t` (as an argument, or a return
// with `isReturn`); nullopt when it can. Names the type and the release.
std::optional<std::string> stableTypeProblem(const model::Type& t, StableAbi abi, bool isReturn = false);

// A kernel's or the C++ API's parameter on the stable ABI.
struct StableParameter {
  std::string type;  // "const torch::stable::Tensor&", "int64_t", ...
  std::string name;
};

// An operator's signature on the stable ABI: every argument in schema order (the boxed stack's
// order, out= arguments last), and its return: void, one type, or a std::tuple.
struct StableSignature {
  std::vector<StableParameter> parameters;
  std::vector<std::string> returns;  // each return's type
  std::string returnType;            // "void", returns[0], or "std::tuple<...>"

  // "RET NAME(TYPE name, ...)"
  std::string declaration(std::string_view name) const;
};
// Errors name the first type the stable ABI cannot pass (stableTypeProblem).
support::Expected<StableSignature> stableSignature(const model::FunctionSchema& func, StableAbi abi);

// Why the stable C++ API has no function for an operator, or nullopt when it has one. PyTorch's
// torch_call_dispatcher (2.10 to 2.14 at least) converts each return with the type of the return
// at the mirrored position, so that returns of different types (`-> (Tensor, int)`) fail at the
// call; the operator itself works (from Python, and through the dispatcher from other libraries).
std::optional<std::string> stableCallProblem(const model::FunctionSchema& func);
// One warning at each operator entry whose C++ API function is left out (stableCallProblem).
void warnStableCallGaps(const std::vector<const model::NativeFunction*>& functions, support::Diagnostics& diags);

// The name of an operator's function in the stable C++ API (NS::NAME): torchgen's C++ name, with the
// faithful one (NAME_outf, arguments in schema order) for out= overloads.
std::string stableFunctionName(const model::FunctionSchema& func);

}  // namespace opgen::api
