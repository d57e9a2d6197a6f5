// What an operator library's reading of derivatives.yaml adds to torchgen's rules
// (DerivativesOptions::libraryNamespace, api/DifferentiabilityInfo.h): the checks of what torchgen
// leaves to PyTorch's C++ compiler and reviewers, and of what the library's emitter does not support
// yet, each a located error. Used by the one reader (api/DifferentiabilityInfo.cpp) alone.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/DifferentiabilityInfo.h"

namespace opgen::api::autograd::derivatives {

// A problem that stops an entry (torchgen raises), with where it is.
struct Failure {
  support::SourceLoc loc;
  std::string message;
};

// A tensor list argument (torchgen's "at::TensorList" / "const at::ITensorListRef &" bindings).
bool isTensorListBinding(const Binding& b);

// A key (at `at`) that names no return of f for a forward formula (`returns`: as formulas name them).
Failure noMatchingOutput(const model::NativeFunction& f, const support::SourceLoc& at, const std::vector<std::string>& returns,
                         const std::string& name);

// The entry of f (`e`, in the file `path`) as a whole: not for an out= or CompositeImplicitAutograd
// operator, nor a view operator of several outputs; no per-dispatch-key formulas.
std::optional<Failure> libraryEntryChecks(const model::NativeFunction& f, const model::Operators& ops,
                                          const support::YamlNode& e, const std::string& path);
// A key (at `at`, with its `names`; its formula `nonDifferentiable` or not): it names arguments (each
// once, only tensors, optional tensors and tensor lists having gradients) or returns (each once).
std::optional<Failure> libraryKeyChecks(const model::NativeFunction& f, const support::SourceLoc& at,
                                        const std::vector<std::string>& names, bool nonDifferentiable,
                                        const std::vector<std::string>& allArgNames,
                                        const std::vector<std::string>& returns, const DifferentiabilityInfo& info,
                                        const std::set<std::string>& withDerivatives);
// A backward formula (at `at`) names no gradient but the returns'.
std::optional<Failure> libraryUnknownGradients(const std::string& formula, const DifferentiabilityInfo& info,
                                               const support::SourceLoc& at);
// Every Tensor argument has a formula or is non_differentiable.
std::optional<Failure> libraryCoverage(const model::NativeFunction& f, const DifferentiabilityInfo& info,
                                       const support::SourceLoc& at);
// A forward formula, expanded (at `at`), names the tangents and values of differentiable inputs only,
// original_self_* only in an in-place operator's, no `grad`, and uses a tangent.
std::optional<Failure> libraryForwardChecks(const model::NativeFunction& f, const DifferentiabilityInfo& info,
                                            const ForwardDerivative& fw, const std::vector<std::string>& allArgNames,
                                            const support::SourceLoc& at);
// With forward formulas (at `forwardLocs`), every differentiable output has exactly one.
std::optional<Failure> libraryForwardOutputs(const DifferentiabilityInfo& info, const std::vector<std::string>& returns,
                                             const std::vector<support::SourceLoc>& forwardLocs,
                                             const support::SourceLoc& at);

}  // namespace opgen::api::autograd::derivatives
