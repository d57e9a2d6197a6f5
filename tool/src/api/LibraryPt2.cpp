#include "api/LibraryPt2.h"

#include <algorithm>
#include <map>

#include "api/Functionalization.h"
#include "model/Loader.h"
#include "support/Strings.h"

namespace opgen::api {

namespace {

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

std::vector<std::string> libraryTags(const model::NativeFunction& f, const LibraryPt2Options& options) {
  std::set<std::string> tags;
  for (const std::string& t : f.tags)  // (the loader adds inplace and out when tags.yaml declares them)
    if (((t != "inplace" && t != "out") || f.tagLocs.count(t) > 0) && options.torchHasTag(t)) tags.insert(t);
  for (const std::string& t : options.defaultTags)
    if (options.torchHasTag(t)) tags.insert(t);
  if (isInplaceOverload(f) && options.torchHasTag("inplace")) tags.insert("inplace");
  if (f.func.isOutFn() && options.torchHasTag("out")) tags.insert("out");
  return {tags.begin(), tags.end()};
}

bool checkLibraryTags(const model::Operators& ops, const LibraryPt2Options& options, support::Diagnostics& diags,
                      bool warn) {
  const int errorsBefore = diags.errorCount();
  const auto leftOut = [&](const std::string& tag) {
    const std::string release = options.torchRelease.empty() ? "the PyTorch in use" : "PyTorch " + options.torchRelease;
    return "tag '" + tag + "' is not a tag of " + release + " (its ATen/core/enum_tag.h): left out of this build; " +
           "at::Tag has " + support::join(options.torchTags, ", ");
  };
  for (const std::string& tag : options.defaultTags) {
    if (!options.torchHasTag(tag)) {
      if (warn) diags.warning({}, "default tag: " + leftOut(tag));
    } else if (tag == "inplace" || tag == "out")
      diags.error({}, "default tag: '" + tag + "' is given to the " + (tag == "out" ? "out=" : "in-place") +
                          " overloads by opgen; it cannot be every operator's");
  }
  for (const model::NativeFunction* f : ops.functions()) {
    if (f->generated()) continue;  // its tags are its origin's, checked there
    for (const auto& [tag, loc] : f->tagLocs) {  // (those the entry names; libraryTags adds inplace and out)
      if (!options.torchHasTag(tag)) {
        if (warn) diags.warning(tagLoc(*f, tag), support::aboutOperator(f->func.name.str(), leftOut(tag)));
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

LibraryFakePath libraryFakePathOf(const model::NativeFunction& f, const model::Operators& ops, bool stableAbi) {
  if (f.hasCompositeKernel()) return LibraryFakePath::Composite;
  if (f.partOfStructuredGroup()) return LibraryFakePath::Structured;
  // torchgen gives an in-place operator a Meta kernel of its own (it returns self); not on the stable
  // ABI, whose library has only the kernels of `dispatch:`
  if (!stableAbi && f.func.kind() == model::SchemaKind::Inplace && f.func.returns.size() == 1)
    return LibraryFakePath::InplaceMeta;
  bool device = false;
  for (const model::BackendIndex& index : ops.backendIndices()) {
    if (!index.has(f.func.name)) continue;
    const model::DispatchKey key = index.dispatchKey();
    if (key == model::DispatchKey::Meta) return LibraryFakePath::Meta;
    device = device || !model::isGenericDispatchKey(key);
  }
  return device ? LibraryFakePath::Device : LibraryFakePath::Nothing;
}

void warnWithoutFakeKernels(const model::Operators& ops, support::Diagnostics& diags, bool stableAbi) {
  for (const model::NativeFunction* f : ops.functions()) {
    if (f->generated() || f->pythonFake || libraryFakePathOf(*f, ops, stableAbi) != LibraryFakePath::Device) continue;
    std::vector<std::string> devices;
    for (const model::BackendIndex& index : ops.backendIndices())
      if (index.has(f->func.name) && !model::isGenericDispatchKey(index.dispatchKey()))
        devices.emplace_back(model::dispatchKeyName(index.dispatchKey()));
    diags.warning(f->loc.sourceLoc(),
                  support::aboutOperator(f->func.name.str(),
                                         "it has a " + support::join(devices, "/") +
                                             " kernel and no Meta kernel: torch.compile and torch.export cannot run "
                                             "it on fake tensors (\"Operator does not support running with fake "
                                             "tensors\"); give it `Meta: KERNEL` in `dispatch:` " +
                                             (stableAbi ? std::string("(making the outputs without reading sizes, "
                                                                      "which may be symbolic: the stable ABI cannot "
                                                                      "read those)")
                                                        : std::string("(computing the outputs' shapes from "
                                                                      "sym_sizes()), or make it structured")) +
                                             ", or give it a Python fake kernel (`fake: python`, with PYTHON_FAKES)"));
  }
}

bool checkPythonFakes(const model::Operators& ops, const LibraryPt2Options& options, support::Diagnostics& diags) {
  const int errorsBefore = diags.errorCount();
  bool anyDeclared = false;
  for (const model::NativeFunction* f : ops.functions()) {
    if (!f->pythonFake) continue;
    anyDeclared = true;
    const auto error = [&](const std::string& message) {
      diags.errorAbout(f->fakeLoc.sourceLoc(), f->func.name.str(), "`fake: python`: " + message);
    };
    if (!options.pythonFakes) {
      error("the library has no Python fake kernels file to register it: add_operator_library(... PYTHON_MODULE "
            "PYTHON_FAKES fake.py) (opgen library --python-fakes FILE)");
      continue;
    }
    switch (libraryFakePathOf(*f, ops)) {
      case LibraryFakePath::Device: break;
      case LibraryFakePath::Meta:
        error("it has a Meta kernel, which runs on fake tensors; PyTorch refuses a Python fake kernel beside it "
              "(remove one of them)");
        break;
      case LibraryFakePath::Composite:
        error("it has a composite kernel, which runs on fake tensors through the operators it calls; it needs no "
              "fake kernel (PyTorch refuses one beside a CompositeImplicitAutograd kernel)");
        break;
      case LibraryFakePath::Structured:
        error("it is structured: its meta function is its Meta kernel, and PyTorch refuses a Python fake kernel "
              "beside one");
        break;
      case LibraryFakePath::InplaceMeta:
        error("it is an in-place operator without a Meta kernel: opgen gives it torchgen's (it returns self), and "
              "PyTorch refuses a Python fake kernel beside one");
        break;
      case LibraryFakePath::Nothing:
        error("it has no kernel to run on real tensors (a `dispatch:` entry for CPU, CUDA, ...)");
        break;
    }
  }
  if (options.pythonFakes && !anyDeclared && diags.errorCount() == errorsBefore)
    diags.warning(support::SourceLoc{*options.pythonFakes, 1, 1},
                  "no operator of the library says `fake: python`: the package imports this file, and a fake kernel "
                  "it registers for an operator whose entry does not say so is an error at import");
  return diags.errorCount() == errorsBefore;
}

namespace {

// Why opgen generates no Functionalize kernel for view group g ("" when it does).
std::string unsupportedView(const model::NativeFunctionsViewGroup& g, bool stableAbi) {
  const model::FunctionSchema& func = g.view->func;
  if (stableAbi) return "the stable ABI registers no Functionalize kernels";
  if (g.viewCopy == nullptr) return "it has no view_copy variant (" + model::viewCopyName(*g.view).str() + ")";
  if (func.returns.size() != 1 || func.returns[0].type.listLike() != nullptr)
    return "it returns more than one tensor (opgen functionalizes views with one output)";
  const auto args = func.arguments.flatAll();
  if (args.empty() || !args[0]->type.isBase(model::BaseTy::Tensor) || !args[0]->annotation)
    return "its output does not alias its first argument, a Tensor";
  for (size_t i = 1; i < args.size(); ++i)
    if (args[i]->type.isTensorLike() || args[i]->annotation)
      return "it has a tensor argument besides its first (opgen functionalizes views of one tensor)";
  return {};
}

}  // namespace

std::vector<LibraryView> libraryViews(const model::Operators& ops, bool stableAbi) {
  std::vector<LibraryView> views;
  for (const model::NativeFunctionsViewGroup* g : ops.viewGroups())
    if (!g->composite()) views.push_back({g, unsupportedView(*g, stableAbi)});
  return views;
}

void warnUnfunctionalizedViews(const model::Operators& ops, support::Diagnostics& diags, bool stableAbi) {
  const std::string fails =
      ": torch.compile and AOTAutograd, which functionalize, refuse it (\"Found a custom (non-ATen) operator whose "
      "output has alias annotations\")";
  for (const LibraryView& v : libraryViews(ops, stableAbi)) {
    if (!v.unsupported.empty())
      diags.warning(v.group->view->loc.sourceLoc(),
                    support::aboutOperator(v.group->view->func.name.str(),
                                           "opgen generates no Functionalize kernel for this view operator: " +
                                               v.unsupported + fails));
    if (const model::NativeFunction* inplace = v.group->viewInplace)
      diags.warning(inplace->loc.sourceLoc(),
                    support::aboutOperator(inplace->func.name.str(),
                                           "opgen generates no Functionalize kernel for an in-place view operator" + fails));
  }
}

std::string libraryViewInverseName(const model::NativeFunction& view) {
  return functionalization::reverseName(view, /*includeNamespace=*/false);
}

std::vector<Binding> libraryViewInverseArguments(const model::NativeFunction& view, const LibtorchFacts& libtorch) {
  std::vector<Binding> args = functionalization::opArguments(view.func, /*isReverse=*/true, Options::of(view, libtorch));
  for (Binding& b : args)
    if (b.name == functionalization::inverseReturnModeBinding().name)
      b.nctype = NamedCType{b.nctype.name, CType::base(LibraryInverseReturnModeT)};
  return args;
}

}  // namespace opgen::api
