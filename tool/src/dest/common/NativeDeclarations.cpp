#include "dest/common/NativeDeclarations.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <unordered_set>

#include "api/Signatures.h"
#include "api/Structured.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

constexpr std::string_view kDefaultKernelNamespace = "at::native";
constexpr std::string_view kMetaNamespace = "at::meta";
// torchgen's NamespaceHelper(max_level=4) for kernel namespaces.
constexpr std::size_t kMaxNamespaceLevels = 4;

// Legend: $name$ the meta name (add_Tensor), $parent$ the base class, $precomputed$ the
// precompute_out template (or nothing), $typedef$ the meta_return_ty alias (or nothing), $return$
// meta()'s return type, $args$ meta()'s parameters.
constexpr std::string_view kMetaStruct = R"txt(struct TORCH_API structured_$name$ : public $parent$ {
    $precomputed$
    $typedef$
    $return$ meta($args$);
};
)txt";

// Legend: $template$ the template head, $setters$ the setter methods, $members$ the members'
// declarations joined by ";\n".
constexpr std::string_view kPrecomputeOut = R"txt(
                $template$
                struct TORCH_API precompute_out {
                    $setters$
                    $members$;
            };)txt";

// Legend: $signature$ the setter's head, $param$ the template parameter it sets, $elem$ the member's
// name, $construction$ the statements that build the result.
constexpr std::string_view kPrecomputeSetter = R"txt(
                    $signature$ {
                        static_assert($param$ == false, "$elem$ already set");
                        $construction$
                    }
                )txt";

// Legend: $prefix$ "TORCH_API " (nothing for external backends), $kernel$ the kernel's name, $meta_ns$
// the meta classes' namespace, $meta$ the meta name, $args$ impl()'s parameters.
constexpr std::string_view kStructuredKernel = R"txt(struct $prefix$structured_$kernel$ : public $meta_ns$::structured_$meta$ {
void impl($args$);
};
)txt";

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

// The precompute_out<...> template and the meta_return_ty alias for the precomputed elements.
std::pair<std::string, std::string> precomputeOut(const model::Precompute& precomputed, const api::Spelling& spelling) {
  std::vector<const model::Argument*> elems;
  for (const auto& [name, replacement] : precomputed.replace)
    for (const model::Argument& a : replacement) elems.push_back(&a);
  for (const model::Argument& a : precomputed.add) elems.push_back(&a);

  std::vector<std::string> params, types, defaults, members;
  for (const model::Argument* a : elems) {
    params.push_back(upper(a->name));
    types.push_back(api::structured::argumentType(*a, a->name).cppType(/*stripRef=*/true, spelling));
    defaults.push_back("bool " + params.back() + " = false");
    members.push_back(types.back() + " " + a->name);
  }
  std::vector<std::string> setters;
  for (std::size_t i = 0; i < elems.size(); ++i) {
    std::vector<std::string> templateArgs = params;
    templateArgs[i] = "true";
    const std::string returnType = "precompute_out<" + support::join(templateArgs, ", ") + ">";
    std::string construction = returnType + " ret;";
    for (std::size_t j = 0; j < elems.size(); ++j) {
      const std::string& n = elems[j]->name;
      construction += i == j ? "\nret." + n + " = value;" : "\nret." + n + " = this->" + n + ";";
    }
    construction += "\nreturn ret;";
    setters.push_back(support::fillSnippet(kPrecomputeSetter,
                                  {{"signature", returnType + " set_" + elems[i]->name + "(" + types[i] + " value)"},
                                   {"param", params[i]},
                                   {"elem", elems[i]->name},
                                   {"construction", construction}}));
  }
  std::string decl = support::fillSnippet(kPrecomputeOut, {{"template", "template <" + support::join(defaults, ", ") + ">"},
                                                  {"setters", support::join(setters, "\n")},
                                                  {"members", support::join(members, ";\n")}});
  std::vector<std::string> allTrue(elems.size(), "true");
  return {std::move(decl), "using meta_return_ty = precompute_out <" + support::join(allTrue, ", ") + ">;"};
}

const model::NativeFunction& primary(const model::NativeFunctionsGroup& g, const model::BackendIndex& index) {
  return index.useOutAsPrimary() ? *g.out : *g.functional;
}

// How the declarations find a function's kernel in an index (by a precomputed name, or not).
using KernelOf = std::function<const model::BackendMetadata*(const model::BackendIndex&, const model::NativeFunction&)>;

// torchgen's gen_unstructured: the prototype of f's kernel for this backend, if it has one.
support::Expected<std::optional<std::string>> unstructuredKernel(const model::NativeFunction& f,
                                                                 const model::BackendIndex& index,
                                                                 const KernelOf& kernelOf, const api::LibtorchFacts& libtorch) {
  const model::BackendMetadata* m = kernelOf(index, f);
  if (m == nullptr || support::contains(m->kernel, "legacy::")) return std::optional<std::string>();
  support::Expected<api::KernelSignature> sig = api::kernelSignature(f, index, api::Options::of(f, libtorch));
  if (!sig) return sig.error();
  const char* prefix = index.external() ? "static " : "TORCH_API ";
  return std::optional<std::string>(prefix + sig->decl({.name = m->kernel}) + ";");
}

// torchgen's compute_native_function_declaration.
support::Expected<std::vector<std::string>> declarationsFor(const model::FunctionOrGroup& item,
                                                            const model::BackendIndex& index,
                                                            const KernelOf& kernelOf, std::string_view metaNamespace,
                                                            const api::LibtorchFacts& libtorch = {}) {
  std::vector<std::string> out;
  auto addUnstructured = [&](const model::NativeFunction& f) -> std::optional<support::Error> {
    auto decl = unstructuredKernel(f, index, kernelOf, libtorch);
    if (!decl) return decl.error();
    if (*decl) out.push_back(std::move(**decl));
    return std::nullopt;
  };
  if (const auto* f = std::get_if<const model::NativeFunction*>(&item)) {
    if (auto e = addUnstructured(**f)) return *e;
    return out;
  }
  const model::NativeFunctionsGroup& g = std::get<model::NativeFunctionsGroup>(item);
  const model::BackendMetadata* m = kernelOf(index, primary(g, index));
  if (m != nullptr && m->structured) {
    // torchgen refuses structured external kernels ("not implemented yet"); opgen declares them as
    // gen_structured would, without TORCH_API (a member of the backend's class).
    out.push_back(support::fillSnippet(kStructuredKernel, {{"prefix", index.external() ? "" : "TORCH_API "},
                                                  {"kernel", m->kernel},
                                                  {"meta_ns", metaNamespace},
                                                  {"meta", api::meta::name(g)},
                                                  {"args", api::joinDecls(api::structured::implArguments(g),
                                                                          api::Spelling::of(libtorch))}}));
    return out;
  }
  for (const model::NativeFunction* f : g.functions())
    if (auto e = addUnstructured(*f)) return *e;
  return out;
}

// torchgen's NamespaceHelper prologue and epilogue.
std::pair<std::string, std::string> namespaceBraces(std::string_view ns) {
  std::vector<std::string_view> parts = support::split(ns, "::");
  std::string open, close;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) open += '\n';
    open.append("namespace ").append(parts[i]).append(" {");
  }
  for (std::size_t i = parts.size(); i-- > 0;) {
    if (i + 1 != parts.size()) close += '\n';
    close.append("} // namespace ").append(parts[i]);
  }
  return {open, close};
}

}  // namespace

support::Expected<std::string> metaFunctionDeclaration(const model::NativeFunctionsGroup& g, const api::LibtorchFacts& libtorch) {
  const api::Spelling& spelling = api::Spelling::of(libtorch);
  if (std::optional<std::string> problem = api::structured::checkSupported(g)) return support::makeError(*problem);
  const model::NativeFunction& out = *g.out;
  std::string precomputed, typedefLine, metaReturn = "void";
  if (out.precomputed) {
    std::tie(precomputed, typedefLine) = precomputeOut(*out.precomputed, spelling);
    metaReturn = "meta_return_ty";
  }
  return support::fillSnippet(kMetaStruct, {{"name", api::meta::name(g)},
                                   {"parent", out.structuredInherits ? *out.structuredInherits : "at::impl::MetaBase"},
                                   {"precomputed", precomputed},
                                   {"typedef", typedefLine},
                                   {"return", metaReturn},
                                   {"args", api::joinDecls(api::structured::metaArguments(g), spelling)}});
}

std::vector<std::string> metaFunctionDeclarations(const std::vector<const model::NativeFunctionsGroup*>& groups,
                                                  support::Diagnostics& diags, const api::LibtorchFacts& libtorch) {
  std::vector<std::string> out;
  for (const model::NativeFunctionsGroup* g : groups)
    if (g->structured()) out.push_back(valueOrReport(metaFunctionDeclaration(*g, libtorch), *g->out, diags));
  return out;
}

support::Expected<std::vector<std::string>> nativeFunctionDeclarations(const model::FunctionOrGroup& item,
                                                                       const model::BackendIndex& index,
                                                                       std::string_view metaNamespace,
                                                                       const api::LibtorchFacts& libtorch) {
  return declarationsFor(
      item, index, [](const model::BackendIndex& i, const model::NativeFunction& f) { return i.find(f.func.name); },
      metaNamespace, libtorch);
}

std::vector<std::string> NativeDeclarations::lines(const std::vector<const model::FunctionOrGroup*>& items,
                                                   support::Diagnostics& diags) const {
  // Namespaces in order of first use, each with its kernels' declarations.
  std::vector<std::pair<std::string, std::vector<std::string>>> byNamespace;
  std::map<std::string, std::size_t, std::less<>> slot;
  std::map<std::string, const model::NativeFunction*, std::less<>> firstUser;
  auto kernelsOf = [&](std::string_view ns, const model::NativeFunction& user) -> std::vector<std::string>& {
    auto it = slot.find(ns);
    if (it == slot.end()) {
      it = slot.emplace(std::string(ns), byNamespace.size()).first;
      byNamespace.emplace_back(std::string(ns), std::vector<std::string>{});
      firstUser.emplace(std::string(ns), &user);
    }
    return byNamespace[it->second].second;
  };

  const KernelOf kernelOf = [this](const model::BackendIndex& index, const model::NativeFunction& f) {
    const model::BackendIndex* first = backends_.data();
    const bool inTable = std::less_equal<>()(first, &index) && std::less<>()(&index, first + backends_.size());
    auto it = rows_.find(&f);
    if (!inTable || it == rows_.end()) return index.find(f.func.name);
    return kernels_[it->second * backends_.size() + static_cast<std::size_t>(&index - first)];
  };
  for (const model::FunctionOrGroup* item : items) {
    const model::NativeFunction& where = model::representative(*item);
    const auto* group = std::get_if<model::NativeFunctionsGroup>(item);
    std::vector<std::string> namespaces;  // of the kernels found so far
    bool reported = false;
    for (const model::BackendIndex& index : backends_) {
      const model::NativeFunction& f = group ? primary(*group, index) : where;
      const model::BackendMetadata* m = kernelOf(index, f);
      std::string_view ns = kDefaultKernelNamespace;
      if (m != nullptr) {
        ns = m->cppNamespace;
        if (std::find(namespaces.begin(), namespaces.end(), ns) == namespaces.end()) namespaces.emplace_back(ns);
        if (namespaces.size() > 1 && !reported) {
          model::reportError(
              diags, where,
              "Codegen only supports one namespace per operator, got {" + support::join(namespaces, ", ") + "}");
          reported = true;
        }
      }
      support::Expected<std::vector<std::string>> decls = declarationsFor(*item, index, kernelOf, kMetaNamespace);
      std::vector<std::string>& kernels = kernelsOf(ns, where);
      if (!decls) {
        model::reportError(diags, where, decls.error().message);
        continue;
      }
      for (std::string& d : *decls) kernels.push_back(std::move(d));
    }
    if (extraEmptyIndex_) kernelsOf(kDefaultKernelNamespace, where);
  }

  std::vector<std::string> out;
  for (const auto& [ns, kernels] : byNamespace) {
    if (support::split(ns, "::").size() > kMaxNamespaceLevels) {
      model::reportError(diags, *firstUser.find(ns)->second,
                          "Codegen doesn't support more than 4 level(s) of custom namespace. Got " + ns + ".");
      continue;
    }
    // Backends may repeat kernel names: each declaration once, in order of first appearance.
    std::unordered_set<std::string_view> seen;
    std::string block = "\n";
    const auto [open, close] = namespaceBraces(ns);
    block += open;
    block += '\n';
    bool first = true;
    for (const std::string& k : kernels) {
      if (!seen.insert(k).second) continue;
      if (!first) block += '\n';
      block += k;
      first = false;
    }
    block += '\n';
    block += close;
    block += "\n        ";
    for (std::string_view line : support::split(block, "\n")) out.emplace_back(line);
  }
  return out;
}

NativeDeclarations::NativeDeclarations(const model::Operators& ops, const std::vector<model::BackendIndex>& backends,
                                       bool extraEmptyIndex)
    : backends_(backends), extraEmptyIndex_(extraEmptyIndex) {
  // The kernel table: one row per function, one column per index, filled from the indices' entries.
  std::unordered_map<std::string, std::size_t> rowOfName;
  rowOfName.reserve(ops.functions().size());
  rows_.reserve(ops.functions().size());
  for (const model::NativeFunction* f : ops.functions()) {
    rowOfName.emplace(f->func.name.str(), rows_.size());
    rows_.emplace(f, rows_.size());
  }
  kernels_.assign(rows_.size() * backends_.size(), nullptr);
  for (std::size_t column = 0; column < backends_.size(); ++column) {
    for (const auto& [name, metadata] : backends_[column].entries()) {
      auto it = rowOfName.find(name);
      if (it != rowOfName.end()) kernels_[it->second * backends_.size() + column] = &metadata;
    }
  }
}

bool nativeDeclarationsSeeEmptyIndex(const EmitContext& ctx) {
  auto missing = [&](model::DispatchKey k) { return ctx.backendIndex(k).size() == 0; };
  for (const model::BackendIndex& index : ctx.staticDispatchIndices)
    if (index.size() == 0) return true;
  return ctx.generatesSources && std::any_of(ctx.dispatchKeys.begin(), ctx.dispatchKeys.end(), missing);
}

}  // namespace opgen::dest
