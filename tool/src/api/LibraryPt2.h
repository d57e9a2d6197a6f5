// What PyTorch 2's compiler (torch.compile, torch.export) and its test of a custom operator
// (torch.library.opcheck) need of an operator library, decided once for the library emitters: the tags
// registered with each schema, what the Autograd key does with each operator, and the keys a library
// always registers. What the libtorch in use has is asked of its facts (api::LibtorchFacts), never of a
// version number.
#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/Types.h"
#include "model/Operators.h"
#include "support/Diagnostics.h"

namespace opgen::api {

struct LibraryPt2Options {
  LibtorchFacts libtorch;  // what the libtorch has (api/Types.h): set_python_module, fake tensors
  // at::Tag's enumerators in that libtorch, sorted (api::LibtorchChoice::tags), and its release
  // ("1.13": what a warning about a tag it lacks names).
  std::vector<std::string> torchTags;
  std::string torchRelease;
  bool torchHasTag(std::string_view tag) const {
    return std::binary_search(torchTags.begin(), torchTags.end(), tag);
  }
  // Tags every operator is registered with (add_operator_library's DEFAULT_TAGS, --default-tag).
  std::vector<std::string> defaultTags;
  // The library's Python fake kernels file (add_operator_library's PYTHON_FAKES, --python-fakes), if any.
  std::optional<std::string> pythonFakes;
};

// The tags registered with f's schema, sorted: those of its `tags:` (an `autogen:` variant: its
// origin's that torchgen passes on, and `generated`) and the library's default tags that at::Tag has
// (the others are left out of this build, see checkLibraryTags), and torchgen's `inplace` (an in-place
// overload: Tensor(a!) self, returned) and `out` (an out= overload) where at::Tag has them (PyTorch
// 2.13 functionalizes custom in-place and out= operators only with them).
std::vector<std::string> libraryTags(const model::NativeFunction& f, const LibraryPt2Options& options);

// Every tag the library names keeps its contract (`inplace`: an in-place overload; `out`: an out=
// overload): else one error at the tag in the YAML (the default tags: without a location, naming the
// option). A tag that at::Tag lacks (declared by the library's tags.yaml, as the loader checks, but
// newer than the PyTorch in use: pt2_compliant_tag on 1.13) is left out of this build, one ops.yaml
// serving every release: with `warn`, a warning at the tag naming the release (the step before the
// link checks again without). Returns false after reporting an error.
bool checkLibraryTags(const model::Operators& ops, const LibraryPt2Options& options, support::Diagnostics& diags,
                      bool warn = true);

// What the Autograd key does with an operator.
enum class LibraryAutograd {
  Composite,          // CompositeImplicitAutograd: differentiated through the ATen calls of its kernel
  Formulas,           // derivatives.yaml formulas (dest/library/Autograd.h)
  NotImplemented,     // a kernel of its own and no formulas: it runs below autograd, and a gradient that
                      // reaches it at backward is an error naming it (PyTorch's not-implemented fallback)
  NonDifferentiable,  // declared so (a derivatives.yaml entry whose inputs are all non_differentiable):
                      // it runs below autograd; its outputs do not require grad
};
// `hasFormulas`: the derivatives register an Autograd kernel for f (its entry's, an in-place or out=
// overload of it); `nonDifferentiable`: its entry declares every input non_differentiable.
LibraryAutograd libraryAutogradOf(const model::NativeFunction& f, bool hasFormulas, bool nonDifferentiable);
// Whether an operator without formulas also needs an ADInplaceOrView kernel (it mutates or aliases an
// argument): PyTorch's fallback then bumps version counters and makes views.
bool libraryNeedsInplaceOrView(const model::NativeFunction& f);

// How an operator runs on fake tensors (the tensors torch.compile and torch.export trace with) without
// a Python fake kernel: through a composite kernel, a structured operator's meta function, torchgen's
// in-place Meta kernel (not on the stable ABI, whose library has only the kernels of `dispatch:`), or
// its own Meta kernel; Device: it has a device kernel (CPU, CUDA, ...) and none of these; Nothing:
// neither (no kernel at all).
enum class LibraryFakePath { Composite, Structured, InplaceMeta, Meta, Device, Nothing };
LibraryFakePath libraryFakePathOf(const model::NativeFunction& f, const model::Operators& ops, bool stableAbi = false);

// Operators with a device kernel and no way to run on fake tensors (LibraryFakePath::Device) that do
// not say `fake: python`: one warning each at its YAML entry, as torch.compile and torch.export would
// fail on them ("Operator does not support running with fake tensors"). `stableAbi`: the library is
// on the stable ABI (api/LibraryStable.h), which has no generated kernels.
void warnWithoutFakeKernels(const model::Operators& ops, support::Diagnostics& diags, bool stableAbi = false);

// `fake: python` (a Python fake kernel, registered by the library's Python fake kernels file): an
// error at the `fake:` value where there is no such file, or where the operator already runs on fake
// tensors (PyTorch refuses a Python fake kernel beside a Meta or CompositeImplicitAutograd kernel, and
// would not use one beside a composite or structured kernel). A fake kernels file that no operator
// needs: a warning at the file. Returns false after an error.
bool checkPythonFakes(const model::Operators& ops, const LibraryPt2Options& options, support::Diagnostics& diags);

// The view operators of a library (torchgen's view groups: an output that aliases `self`, not written
// to) under functionalization, which torch.compile and AOTAutograd apply: PyTorch's Functionalize
// fallback refuses a custom operator with an aliased output, so a view needs a Functionalize kernel of
// its own, as torchgen generates for ATen's views: it runs the view (or, without reapplied views, its
// view_copy variant), and records how to replay it on a new base (forward) and how to write a mutated
// view back into its base (reverse: the view's inverse, a function the library writes).
struct LibraryView {
  const model::NativeFunctionsViewGroup* group = nullptr;
  // Empty: opgen generates its Functionalize kernel (dest/library/Functionalize.h); else why not
  // (the operator is then refused under functionalization, as before).
  std::string unsupported;
};
// The library's view groups, in the YAML's order, but those of CompositeImplicitAutograd views, which
// are functionalized through the operators they call. `stableAbi`: the library is on the stable ABI,
// which registers no Functionalize kernels.
std::vector<LibraryView> libraryViews(const model::Operators& ops, bool stableAbi = false);
// One warning at the entry of each view whose Functionalize kernel opgen does not generate (and of each
// in-place view), saying why and what fails: torch.compile and AOTAutograd refuse it.
void warnUnfunctionalizedViews(const model::Operators& ops, support::Diagnostics& diags, bool stableAbi = false);

// The view inverse a library writes for a view it functionalizes, in NS::native (beside the kernels
// NativeFunctions.h declares): "VIEW_inverse" (torchgen's FunctionalInverses names, after the view's
// unambiguous name).
std::string libraryViewInverseName(const model::NativeFunction& view);
// Its parameters (torchgen's FunctionalInverses signature): `const at::Tensor & base` (the view's base,
// as it was), `const at::Tensor & mutated_view` (the view, mutated), `InverseReturnMode
// inverse_return_mode` (the library's enum: whether the result may be a view of mutated_view), then
// the view's arguments after `self`, in the dispatcher's convention (SymInt as c10::SymInt).
std::vector<Binding> libraryViewInverseArguments(const model::NativeFunction& view, const LibtorchFacts& libtorch);
// The library's InverseReturnMode: an enum of NS::native that NativeFunctions.h declares, with the
// values of at::functionalization::InverseReturnMode (which only some libtorch headers declare).
inline constexpr BaseCppType LibraryInverseReturnModeT{"", "InverseReturnMode"};

}  // namespace opgen::api
