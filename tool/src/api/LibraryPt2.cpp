#include "api/LibraryPt2.h"

#include <algorithm>
#include <map>

#include "model/Loader.h"
#include "support/Strings.h"

namespace opgen::api {

namespace {

// at::Tag of PyTorch 1.13.1 (/usr/include/ATen/core/enum_tag.h of Debian 12's libtorch-dev).
constexpr std::string_view kTags1[] = {"data_dependent_output", "dynamic_output_shape", "generated", "inplace_view",
                                       "nondeterministic_bitwise", "nondeterministic_seeded", "view_copy"};
// at::Tag of PyTorch 2.14.1 (torch/headeronly/core/enum_tag.h of Debian sid's libtorch-dev). Other 2.x
// releases have fewer (2.6.0: 13, without inplace, out, cudagraph_unsafe, ...): the probed facts of the
// found libtorch are to replace this table.
constexpr std::string_view kTags2[] = {
    "core", "cudagraph_unsafe", "data_dependent_output", "dynamic_output_shape", "flexible_layout", "generated",
    "inplace", "inplace_view", "maybe_aliasing_or_mutating", "needs_contiguous_strides", "needs_exact_strides",
    "needs_fixed_stride_order", "nondeterministic_bitwise", "nondeterministic_seeded", "out", "out_variant",
    "pointwise", "pt2_compliant_tag", "reduction", "view_copy"};

// Whether f is an in-place overload as the `inplace` tag means it: it mutates its plain Tensor self
// and returns it.
bool isInplaceOverload(const model::NativeFunction& f) {
  return f.func.kind() == model::SchemaKind::Inplace && f.func.arguments.selfArg &&
         f.func.arguments.selfArg->type.isBase(model::BaseTy::Tensor) && f.func.returns.size() == 1;
}

support::SourceLoc tagLoc(const model::NativeFunction& f, const std::string& tag) {
  const auto it = f.tagLocs.find(tag);
  return it != f.tagLocs.end() ? it->second.sourceLoc() : f.loc.sourceLoc();
}

}  // namespace

const std::vector<std::string_view>& libtorchTags(Libtorch libtorch) {
  static const std::vector<std::string_view> v1(std::begin(kTags1), std::end(kTags1));
  static const std::vector<std::string_view> v2(std::begin(kTags2), std::end(kTags2));
  return libtorch == Libtorch::V1 ? v1 : v2;
}

bool libtorchHasTag(Libtorch libtorch, std::string_view tag) {
  const std::vector<std::string_view>& tags = libtorchTags(libtorch);
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

bool libtorchDefTakesTags(Libtorch) { return true; }

bool libtorchHasSetPythonModule(Libtorch libtorch) { return libtorch != Libtorch::V1; }

std::vector<std::string> libraryTags(const model::NativeFunction& f, const LibraryPt2Options& options) {
  std::set<std::string> tags;
  for (const std::string& t : f.tags)  // (the loader adds inplace and out when tags.yaml declares them)
    if ((t != "inplace" && t != "out") || f.tagLocs.count(t) > 0) tags.insert(t);
  tags.insert(options.defaultTags.begin(), options.defaultTags.end());
  if (isInplaceOverload(f) && libtorchHasTag(options.libtorch, "inplace")) tags.insert("inplace");
  if (f.func.isOutFn() && libtorchHasTag(options.libtorch, "out")) tags.insert("out");
  return {tags.begin(), tags.end()};
}

bool checkLibraryTags(const model::Operators& ops, const LibraryPt2Options& options, support::Diagnostics& diags) {
  const int errorsBefore = diags.errorCount();
  const auto unknown = [&](const std::string& tag) {
    return "tag '" + tag + "' is not a tag of the PyTorch the library is generated for (" +
           (options.libtorch == Libtorch::V1 ? "1.x" : "2.x") + "): at::Tag has " +
           support::join(std::vector<std::string>(libtorchTags(options.libtorch).begin(), libtorchTags(options.libtorch).end()), ", ");
  };
  for (const std::string& tag : options.defaultTags) {
    if (!libtorchHasTag(options.libtorch, tag)) diags.error({}, "default tag: " + unknown(tag));
    else if (tag == "inplace" || tag == "out")
      diags.error({}, "default tag: '" + tag + "' is given to the " + (tag == "out" ? "out=" : "in-place") +
                          " overloads by opgen; it cannot be every operator's");
  }
  for (const model::NativeFunction* f : ops.functions()) {
    if (f->generated()) continue;  // its tags are its origin's, checked there
    for (const auto& [tag, loc] : f->tagLocs) {  // (those the entry names; libraryTags adds inplace and out)
      if (!libtorchHasTag(options.libtorch, tag)) {
        diags.errorAbout(tagLoc(*f, tag), f->func.name.str(), unknown(tag));
      } else if (tag == "inplace" && !isInplaceOverload(*f)) {
        diags.errorAbout(tagLoc(*f, tag), f->func.name.str(),
                         "tag 'inplace' is for in-place overloads, which mutate their first argument `Tensor(a!) "
                         "self` and return it (`-> Tensor(a!)`), named with a trailing '_'");
      } else if (tag == "out" && !f->func.isOutFn()) {
        diags.errorAbout(tagLoc(*f, tag), f->func.name.str(),
                         "tag 'out' is for out= overloads, whose keyword-only `Tensor(a!) out` arguments are "
                         "returned");
      }
    }
  }
  return diags.errorCount() == errorsBefore;
}

LibraryAutograd libraryAutogradOf(const model::NativeFunction& f, bool hasFormulas, bool nonDifferentiable) {
  if (f.hasCompositeImplicitAutogradKernel) return LibraryAutograd::Composite;
  if (hasFormulas) return LibraryAutograd::Formulas;
  if (nonDifferentiable) return LibraryAutograd::NonDifferentiable;
  return LibraryAutograd::NotImplemented;
}

bool libraryNeedsInplaceOrView(const model::NativeFunction& f) {
  bool aliases = false;
  f.func.arguments.anyOf([&](const model::Argument& a) {
    aliases = aliases || a.annotation.has_value();
    return aliases;
  });
  return aliases;
}

void warnWithoutFakeKernels(const model::Operators& ops, support::Diagnostics& diags) {
  for (const model::NativeFunction* f : ops.functions()) {
    if (f->generated() || f->hasCompositeKernel() || f->partOfStructuredGroup()) continue;
    // torchgen gives an in-place operator a Meta kernel of its own (it returns self)
    if (f->func.kind() == model::SchemaKind::Inplace && f->func.returns.size() == 1) continue;
    std::vector<std::string> devices;
    bool meta = false;
    for (const model::BackendIndex& index : ops.backendIndices()) {
      if (!index.has(f->func.name)) continue;
      const model::DispatchKey key = index.dispatchKey();
      if (key == model::DispatchKey::Meta) meta = true;
      else if (!model::isGenericDispatchKey(key)) devices.emplace_back(model::dispatchKeyName(key));
    }
    if (devices.empty() || meta) continue;
    diags.warning(f->loc.sourceLoc(),
                  support::aboutOperator(f->func.name.str(),
                                         "it has a " + support::join(devices, "/") +
                                             " kernel and no Meta kernel: torch.compile and torch.export cannot run "
                                             "it on fake tensors (\"Operator does not support running with fake "
                                             "tensors\"); give it `Meta: KERNEL` in `dispatch:` (computing the "
                                             "outputs' shapes from sym_sizes()), or make it structured"));
  }
}

}  // namespace opgen::api
