#include "model/Groups.h"

#include <algorithm>
#include <unordered_map>

#include "support/Strings.h"

namespace opgen::model {

namespace {

void fail(support::Diagnostics& diags, const NativeFunction& f, const std::string& message) { reportError(diags, f, message); }

// The rules of NativeFunctionsGroup.__post_init__ (the members share a signature by construction).
bool checkGroup(const NativeFunctionsGroup& g, support::Diagnostics& diags) {
  for (const NativeFunction* f : g.functions()) {
    if (g.structured() != f->partOfStructuredGroup()) {
      fail(diags, *f, "the group of " + g.out->func.name.str() + " mixes structured and unstructured functions (" +
                          g.out->func.name.str() + " and " + f->func.name.str() + ")");
      return false;
    }
    if (f->ns != g.functional->ns) {
      fail(diags, *f, "variants of one operator must share a namespace (" + f->ns + " != " + g.functional->ns + ")");
      return false;
    }
  }
  if (g.mutableFn && !g.functional->func.name.name.functionalOverload) {
    fail(diags, *g.mutableFn, "an operator with a mutable variant needs its functional variant named " +
                                  g.functional->func.name.name.base + "_functional");
    return false;
  }
  if (g.structured()) {
    if (g.out->hasCompositeImplicitAutogradKernel || g.out->hasCompositeImplicitAutogradNestedTensorKernel) {
      fail(diags, *g.out, "structured composite kernels are not supported");
      return false;
    }
    for (const NativeFunction* f : {g.functional, g.inplace}) {
      if (f && (!f->structuredDelegate || *f->structuredDelegate != g.out->func.name)) {
        fail(diags, *f, "delegates to " + (f->structuredDelegate ? f->structuredDelegate->str() : std::string("nothing")) +
                            " but its actual delegate is " + g.out->func.name.str());
        return false;
      }
    }
  }
  std::vector<std::string> generated, expected;
  for (const NativeFunction* f : g.functions()) {
    if (f->generated()) generated.push_back(f->func.name.str());
    for (const auto& op : f->autogen)
      if (std::find(expected.begin(), expected.end(), op.str()) == expected.end()) expected.push_back(op.str());
  }
  std::sort(generated.begin(), generated.end());
  std::sort(expected.begin(), expected.end());
  // Reported at the autogen: line that is wrong (or missing: at the functional entry).
  const NativeFunction* declaring = g.functional;
  for (const NativeFunction* f : g.functions())
    if (!f->autogen.empty()) {
      declaring = f;
      break;
    }
  auto failAutogen = [&](const std::string& message) {
    diags.errorAbout(autogenSourceLoc(*declaring), declaring->func.name.str(), message);
  };
  const std::string generatedStr = support::join(generated, ", ");
  const std::string expectedStr = support::join(expected, ", ");
  if (expected.empty() && !generated.empty()) {
    failAutogen("the codegen expects to be able to generate '" + generatedStr +
                                   "'; to generate them, call them out explicitly: add an 'autogen: " + generatedStr +
                                   "' line to the entry");
    return false;
  }
  if (expectedStr != generatedStr) {
    failAutogen("the codegen expects to be able to generate '" + generatedStr +
                                   "'; to do so, it expects a line 'autogen: " + generatedStr + "', but found 'autogen: " +
                                   expectedStr + "'");
    return false;
  }
  return true;
}

// The rules of NativeFunctionsViewGroup.__post_init__.
bool checkViewGroup(const NativeFunctionsViewGroup& g, support::Diagnostics& diags) {
  if (!g.view->isViewOp()) {
    fail(diags, *g.view, "is not a view op");
    return false;
  }
  if (!g.viewCopy) {
    if (getsGeneratedViewCopy(*g.view)) {
      fail(diags, *g.view, "appears to be a new operator that aliases its inputs; the codegen expects a corresponding "
                           "operator in native_functions.yaml: " + viewCopyName(*g.view).str() +
                           " (see torchgen's note [view_copy NativeFunctions])");
      return false;
    }
  } else {
    const std::string& base = g.viewCopy->func.name.name.base;
    if (!support::endsWith(base, "_copy") && !support::endsWith(base, "_scatter")) {
      fail(diags, *g.viewCopy, "view_copy name must end with '_copy' or '_scatter'");
      return false;
    }
    const std::string viewSig = g.view->func.signature().str();
    const std::string copySig = g.viewCopy->func.signature({.stripViewCopyName = true}).str();
    if (viewSig != copySig) {
      fail(diags, *g.viewCopy, "view and view_copy signatures don't match: " + viewSig + " != " + copySig);
      return false;
    }
    if (!g.viewCopy->tags.count("view_copy")) {
      fail(diags, *g.viewCopy, "appears to be a view_copy operator; the codegen expects view_copy operators to be "
                               "annotated with the 'view_copy' tag in native_functions.yaml");
      return false;
    }
  }
  if (g.viewInplace) {
    const std::string viewSig = g.view->func.signature().str();
    const std::string inplaceSig = g.viewInplace->func.signature().str();
    if (viewSig != inplaceSig) {
      fail(diags, *g.viewInplace, "view and view_inplace signatures don't match: " + viewSig + " != " + inplaceSig);
      return false;
    }
    if (g.view->hasCompositeImplicitAutogradKernel && !g.viewInplace->hasCompositeImplicitAutogradKernel) {
      fail(diags, *g.viewInplace, g.view->func.name.str() + " and " + g.viewInplace->func.name.str() +
                                      " must either both have CompositeImplicitAutograd kernels, or both not have composite kernels");
      return false;
    }
    if (g.view->hasCompositeImplicitAutogradNestedTensorKernel &&
        !g.viewInplace->hasCompositeImplicitAutogradNestedTensorKernel) {
      fail(diags, *g.viewInplace, g.view->func.name.str() + " and " + g.viewInplace->func.name.str() +
                                      " must either both have CompositeImplicitAutogradNestedTensor kernels, or both not have composite kernels");
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<const NativeFunction*> NativeFunctionsGroup::functions() const {
  std::vector<const NativeFunction*> r;
  r.reserve(4);
  forEachFunction([&r](const NativeFunction& f) { r.push_back(&f); });
  return r;
}

std::vector<const NativeFunction*> NativeFunctionsViewGroup::functions(bool includeCopy) const {
  std::vector<const NativeFunction*> r{view};
  if (viewInplace) r.push_back(viewInplace);
  if (viewCopy && includeCopy) r.push_back(viewCopy);
  return r;
}

std::optional<std::vector<Family>> preGroupBySignature(const std::vector<const NativeFunction*>& functions,
                                                       support::Diagnostics& diags) {
  std::vector<Family> families;
  std::unordered_map<std::string_view, size_t> bySignature;  // views of the functions' signatureString
  bySignature.reserve(functions.size());
  bool ok = true;
  for (const NativeFunction* f : functions) {
    auto [it, added] = bySignature.emplace(f->signatureString, families.size());
    if (added) families.emplace_back();
    Family& family = families[it->second];
    SchemaKind kind = f->func.kind();
    auto dup = std::find_if(family.begin(), family.end(), [&](const auto& p) { return p.first == kind; });
    if (dup != family.end()) {
      fail(diags, *f, "has the same signature and schema kind (" + std::string(schemaKindName(kind)) + ") as " +
                          dup->second->func.name.str());
      ok = false;
      continue;
    }
    family.emplace_back(kind, f);
  }
  if (!ok) return std::nullopt;
  return families;
}

std::optional<std::vector<FunctionOrGroup>> groupNativeFunctions(const std::vector<const NativeFunction*>& functions,
                                                                 support::Diagnostics& diags) {
  auto families = preGroupBySignature(functions, diags);
  if (!families) return std::nullopt;
  const int errorsBefore = diags.errorCount();
  std::vector<FunctionOrGroup> result;
  for (const Family& family : *families) {
    auto ungrouped = [&] {
      for (const auto& [kind, f] : family) {
        if (f->generated())
          fail(diags, *f, "generated native functions should have been grouped into a NativeFunctionsGroup");
        result.emplace_back(f);
      }
    };
    if (family.size() == 1) {
      ungrouped();
      continue;
    }
    NativeFunctionsGroup g;
    bool unexpected = false;
    for (const auto& [kind, f] : family) {
      switch (kind) {
        case SchemaKind::Functional: g.functional = f; break;
        case SchemaKind::Inplace: g.inplace = f; break;
        case SchemaKind::Mutable: g.mutableFn = f; break;
        case SchemaKind::Out: g.out = f; break;
        case SchemaKind::Scratch: unexpected = true; fail(diags, *f, "a scratch variant cannot be grouped with other variants"); break;
      }
    }
    if (unexpected) continue;
    if (!g.functional) {
      fail(diags, *family.front().second, "variants of an operator were found without a functional variant");
      continue;
    }
    if (!g.out) {
      ungrouped();
      continue;
    }
    if (checkGroup(g, diags)) result.emplace_back(g);
  }
  if (diags.errorCount() > errorsBefore) return std::nullopt;
  return result;
}

std::optional<std::vector<FunctionOrViewGroup>> groupByView(const std::vector<const NativeFunction*>& functions,
                                                            support::Diagnostics& diags) {
  // Per view signature: the aliasing view, its in-place view, and the non-aliasing functions by kind.
  struct Slot {
    const NativeFunction* view = nullptr;
    const NativeFunction* viewInplace = nullptr;
    std::vector<std::pair<int, const NativeFunction*>> order;  // insertion order; -1/-2 for view/view_inplace
  };
  std::vector<Slot> slots;
  std::unordered_map<std::string, size_t> bySignature;
  bySignature.reserve(functions.size());
  const int errorsBefore = diags.errorCount();
  for (const NativeFunction* f : functions) {
    std::string key = f->func.viewSignatureRenames() ? f->func.viewSignature().str() : f->signatureString;
    auto [it, added] = bySignature.emplace(std::move(key), slots.size());
    if (added) slots.emplace_back();
    Slot& slot = slots[it->second];
    if (!f->isViewOp()) {
      int kind = static_cast<int>(f->func.kind());
      for (const auto& [k, other] : slot.order)
        if (k == kind) fail(diags, *f, "has the same view signature and schema kind as " + other->func.name.str());
      slot.order.emplace_back(kind, f);
    } else if (f->func.name.name.inplace) {
      if (!f->tags.count("inplace_view")) fail(diags, *f, "inplace_view tag missing");
      if (slot.viewInplace) fail(diags, *f, "has the same view signature as the in-place view " + slot.viewInplace->func.name.str());
      slot.viewInplace = f;
      slot.order.emplace_back(-2, f);
    } else {
      if (slot.view) fail(diags, *f, "has the same view signature as the view " + slot.view->func.name.str());
      slot.view = f;
      slot.order.emplace_back(-1, f);
    }
  }
  if (diags.errorCount() > errorsBefore) return std::nullopt;

  std::vector<FunctionOrViewGroup> result;
  for (const Slot& slot : slots) {
    const NativeFunction* copy = nullptr;
    if (slot.view) {
      for (const auto& [k, f] : slot.order)
        if (k == static_cast<int>(SchemaKind::Functional)) copy = f;
      NativeFunctionsViewGroup g{slot.view, copy, slot.viewInplace};
      if (checkViewGroup(g, diags)) result.emplace_back(g);
    }
    for (const auto& [k, f] : slot.order) {
      bool inGroup = slot.view && (k == -1 || k == -2 || f == copy);
      if (!inGroup) result.emplace_back(f);
    }
  }
  if (diags.errorCount() > errorsBefore) return std::nullopt;
  return result;
}

bool getsGeneratedViewCopy(const NativeFunction& f) {
  return f.isViewOp() && !f.hasCompositeImplicitAutogradKernel && !f.tags.count("inplace_view") &&
         !support::endsWith(f.func.name.name.base, "_inverse");
}

OperatorName viewCopyName(const NativeFunction& f) {
  return OperatorName{BaseOperatorName{f.func.name.name.base + "_copy", false, f.func.name.name.dunderMethod, false, ""},
                      f.func.name.overloadName};
}

const NativeFunction& representative(const FunctionOrGroup& item) {
  if (const auto* f = std::get_if<const NativeFunction*>(&item)) return **f;
  return *std::get<NativeFunctionsGroup>(item).functional;
}

void reportError(support::Diagnostics& diags, const FunctionOrGroup& item, std::string_view message) {
  reportError(diags, representative(item), message);
}

}  // namespace opgen::model
