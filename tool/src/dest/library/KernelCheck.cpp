#include "dest/library/KernelCheck.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "api/LibraryPt2.h"
#include "api/Signatures.h"
#include "api/Structured.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

// Namespaces whose kernels libtorch defines: not the library's to define.
constexpr std::string_view kTorchNamespaces[] = {"at::", "c10::", "torch::"};

bool inTorchNamespace(std::string_view qualified) {
  return std::any_of(std::begin(kTorchNamespaces), std::end(kTorchNamespaces),
                     [&](std::string_view ns) { return support::startsWith(qualified, ns); });
}

// Collects the kernels, each (name, definition) once, the keys that use it listed together.
class KernelList {
 public:
  void add(const model::NativeFunction& f, std::string kind, std::string name, std::string key, std::string qualified,
           std::string expected, std::vector<std::string> parameterTypes) {
    if (inTorchNamespace(qualified)) return;
    const auto [it, fresh] = index_.try_emplace(qualified + '\n' + expected, kernels_.size());
    if (fresh) {
      kernels_.push_back(LibraryKernel{&f, "", std::move(qualified), std::move(expected), std::move(parameterTypes)});
      names_.push_back({std::move(kind), std::move(name), {}});
    }
    std::vector<std::string>& keys = names_[it->second].keys;
    if (!key.empty() && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  }

  std::vector<LibraryKernel> take() {
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
      const Name& n = names_[i];
      kernels_[i].what = n.kind + " '" + n.name + "'";
      if (!n.keys.empty()) kernels_[i].what += " (" + support::join(n.keys, ", ") + ")";
    }
    return std::move(kernels_);
  }

 private:
  struct Name {
    std::string kind, name;
    std::vector<std::string> keys;
  };
  std::vector<LibraryKernel> kernels_;
  std::vector<Name> names_;
  std::unordered_map<std::string, std::size_t> index_;
};

// The C++ types of a signature's parameters.
std::vector<std::string> typesOf(const std::vector<api::Binding>& bindings, const api::LibtorchFacts& libtorch) {
  std::vector<std::string> types;
  for (const api::Binding& b : bindings) types.push_back(b.type(api::Spelling::of(libtorch)));
  return types;
}

// The kernels of one item in one backend index (NativeDeclarations' declarationsFor, as symbols).
void addKernels(const EmitContext& ctx, const model::FunctionOrGroup& item, const model::BackendIndex& index,
                KernelList& out) {
  const api::LibtorchFacts& libtorch = ctx.libtorch();
  const std::string key(model::dispatchKeyName(index.dispatchKey()));
  auto addUnstructured = [&](const model::NativeFunction& f) {
    // The kernels of the variants autogen: adds are opgen's, in src/AutogenKernels.cpp.
    if (f.generated()) return;
    const model::BackendMetadata* m = index.find(f.func.name);
    if (m == nullptr || support::contains(m->kernel, "legacy::")) return;
    support::Expected<api::KernelSignature> sig = api::kernelSignature(f, index, api::Options::of(f, libtorch));
    if (!sig) {
      model::reportError(ctx.diags, f, sig.error().message);
      return;
    }
    const std::string qualified = m->cppNamespace + "::" + m->kernel;
    out.add(f, "kernel", m->kernel, key, qualified, sig->defn({.name = qualified}), typesOf(sig->arguments(), libtorch));
  };
  if (const auto* f = std::get_if<const model::NativeFunction*>(&item)) {
    addUnstructured(**f);
    return;
  }
  const model::NativeFunctionsGroup& g = std::get<model::NativeFunctionsGroup>(item);
  const model::NativeFunction& primary = index.useOutAsPrimary() ? *g.out : *g.functional;
  const model::BackendMetadata* m = index.find(primary.func.name);
  if (m != nullptr && m->structured) {
    const api::StructuredImplSignature impl(g, m->kernel, libtorch);
    out.add(*g.out, "structured kernel", m->kernel, key, m->cppNamespace + "::structured_" + m->kernel + "::impl",
            impl.defn() + " in namespace " + m->cppNamespace, typesOf(impl.arguments(), libtorch));
    return;
  }
  for (const model::NativeFunction* f : g.functions()) addUnstructured(*f);
}

// The meta function of a structured group (TORCH_META_FUNC).
void addMeta(const EmitContext& ctx, const model::NativeFunctionsGroup& g, KernelList& out) {
  const std::string name = api::meta::name(g);
  const std::vector<api::Binding> args = api::structured::metaArguments(g);
  const char* macro = g.out->precomputed ? "TORCH_PRECOMPUTE_META_FUNC(" : "TORCH_META_FUNC(";
  out.add(*g.out, "meta function", name, "", ctx.metaNamespace + "::structured_" + name + "::meta",
          macro + name + ")(" + api::joinDefns(args, api::Spelling::of(ctx.libtorch())) + ") in namespace " +
              ctx.metaNamespace,
          typesOf(args, ctx.libtorch()));
}

// What kind of value a C++ parameter type holds, coarsely, whoever spells it (opgen's
// `const at::Tensor &` and `::std::optional<int64_t>`, or a demangler's `at::Tensor const&` and
// `std::optional<long>`): enough to tell apart the kernels of operator overloads that share a name and
// a number of parameters, whose schemas differ in their argument types.
std::string typeKind(std::string_view type) {
  std::string t(type);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto has = [&](std::string_view word) { return t.find(word) != std::string::npos; };
  std::string kind = "other";
  if (has("tensor")) kind = "tensor";
  else if (has("scalartype")) kind = "scalartype";
  else if (has("scalar")) kind = "scalar";
  else if (has("string")) kind = "str";
  else if (has("layout") || has("device") || has("memoryformat") || has("generator") || has("dimname") ||
           has("storage") || has("stream"))
    kind = "object";
  else if (has("double") || has("float")) kind = "float";
  else if (has("bool")) kind = "bool";
  else if (has("long") || has("int")) kind = "int";
  if (has("arrayref") || has("list") || has("array<") || has("vector")) kind += "[]";
  if (has("optional")) kind += "?";
  return kind;
}

bool sameKinds(const std::vector<std::string>& expected, const std::vector<std::string>& demangled) {
  if (expected.size() != demangled.size()) return false;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (typeKind(expected[i]) != typeKind(demangled[i])) return false;
  return true;
}

// The mangled form of an identifier, "<length><name>": a cheap test of whether a symbol may name it.
std::string mangledIdentifier(const std::string& name) { return std::to_string(name.size()) + name; }

// What the files define (or keep local) under the kernel's base name, other than what the objects
// refer to: "found instead" candidates, demangled, sorted.
std::vector<std::string> definedInstead(const std::string& base,
                                        const std::vector<SymbolFile>& files,
                                        const std::unordered_set<std::string>& referenced) {
  const std::string needle = mangledIdentifier(base);
  std::set<std::string> found;
  auto consider = [&](const std::string& mangled, const std::string* localTo) {
    if (mangled.find(needle) == std::string::npos || referenced.count(mangled)) return;
    std::optional<std::string> text = support::demangle(mangled);
    if (!text) return;
    std::optional<support::DemangledFunction> f = support::parseDemangledFunction(*text);
    if (!f || f->base != base) return;
    found.insert(localTo ? *text + " (local to " + *localTo + ")" : *text);
  };
  for (const SymbolFile& file : files) {
    for (const std::string& s : file.symbols.defined) consider(s, nullptr);
    for (const support::ObjectSymbols::Local& l : file.symbols.localFunctions) consider(l.name, &l.object);
  }
  return {found.begin(), found.end()};
}

}  // namespace

std::vector<LibraryKernel> libraryKernels(const EmitContext& ctx) {
  KernelList list;
  for (const model::FunctionOrGroup& item : ctx.ops.grouped()) {
    if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item); g && g->structured()) addMeta(ctx, *g, list);
    for (const model::BackendIndex& index : ctx.ops.backendIndices()) addKernels(ctx, item, index, list);
  }
  // The inverses of the views the library functionalizes (dest/library/Functionalize.h).
  for (const api::LibraryView& v : api::libraryViews(ctx.ops)) {
    if (!v.unsupported.empty()) continue;
    const model::NativeFunction& view = *v.group->view;
    const std::string name = api::libraryViewInverseName(view);
    const std::string qualified = view.ns + "::native::" + name;
    const std::vector<api::Binding> args = api::libraryViewInverseArguments(view, ctx.libtorch());
    list.add(view, "view inverse", name, "", qualified,
             "at::Tensor " + qualified + "(" + api::joinDecls(args, api::Spelling::of(ctx.libtorch())) + ")",
             typesOf(args, ctx.libtorch()));
  }
  return list.take();
}

std::vector<LibraryKernel> libraryStableKernels(const EmitContext& ctx, api::StableAbi abi) {
  KernelList list;
  for (const model::NativeFunction* f : ctx.ops.functions()) {
    for (const model::BackendIndex& index : ctx.ops.backendIndices()) {
      const model::BackendMetadata* m = index.find(f->func.name);
      if (m == nullptr || m->kernel.empty()) continue;
      support::Expected<api::StableSignature> sig = api::stableSignature(f->func, abi);
      if (!sig) {
        model::reportError(ctx.diags, *f, sig.error().message);
        break;
      }
      const std::string qualified = m->cppNamespace.empty() ? m->kernel : m->cppNamespace + "::" + m->kernel;
      std::vector<std::string> types;
      for (const api::StableParameter& p : sig->parameters) types.push_back(p.type);
      list.add(*f, "kernel", m->kernel, std::string(model::dispatchKeyName(index.dispatchKey())), qualified,
               sig->declaration(qualified), std::move(types));
    }
  }
  return list.take();
}

void checkLibraryKernels(const std::vector<LibraryKernel>& kernels, const std::vector<SymbolFile>& files,
                         const support::SourceLoc& yaml, support::Diagnostics& diags) {
  std::vector<const SymbolFile*> unreadable;
  for (const SymbolFile& f : files)
    if (f.symbols.unreadable) unreadable.push_back(&f);
  if (!unreadable.empty()) {
    std::string message = "the kernels are not checked: " + *unreadable[0]->symbols.unreadable;
    if (unreadable.size() > 1) message += " (and " + std::to_string(unreadable.size() - 1) + " more such files)";
    diags.warning(yaml, message);
    return;
  }
  std::unordered_set<std::string> defined, referenced;
  for (const SymbolFile& f : files) {
    defined.insert(f.symbols.defined.begin(), f.symbols.defined.end());
    referenced.insert(f.symbols.undefined.begin(), f.symbols.undefined.end());
  }
  std::unordered_map<std::string, std::vector<std::size_t>> byName;  // qualified name -> kernels
  for (std::size_t i = 0; i < kernels.size(); ++i) byName[kernels[i].qualified].push_back(i);

  // The unresolved references to kernels, by kernel. Overloads of one name (kernels of several
  // operators) are told apart by the kinds of their parameters, then by their number; when that is
  // not enough, the reference goes to the first of them without one, and the expectation is the
  // compiler's spelling, naming the operators whose kernel it may be.
  std::vector<std::vector<support::DemangledFunction>> missing(kernels.size());
  std::vector<std::string> ambiguous(kernels.size());
  std::set<std::string> seen;
  for (const SymbolFile& f : files) {
    for (const std::string& symbol : f.symbols.undefined) {
      if (defined.count(symbol) || !seen.insert(symbol).second) continue;
      std::optional<std::string> text = support::demangle(symbol);
      if (!text) continue;
      std::optional<support::DemangledFunction> fn = support::parseDemangledFunction(*text);
      if (!fn) continue;
      auto it = byName.find(fn->qualified);
      if (it == byName.end()) continue;
      std::vector<std::size_t> candidates, sameArity;
      for (std::size_t k : it->second) {
        if (sameKinds(kernels[k].parameterTypes, fn->parameterTypes)) candidates.push_back(k);
        if (static_cast<int>(kernels[k].parameterTypes.size()) == fn->arity()) sameArity.push_back(k);
      }
      if (candidates.empty()) candidates = sameArity.empty() ? it->second : sameArity;
      auto free = std::find_if(candidates.begin(), candidates.end(), [&](std::size_t k) { return missing[k].empty(); });
      const std::size_t k = free == candidates.end() ? candidates.front() : *free;
      if (candidates.size() > 1)
        ambiguous[k] = *text + " (the overload, among those of " + support::joinMapped(candidates, ", ", [&](std::size_t c) {
                         return "'" + kernels[c].function->func.name.str() + "'";
                       }) + ", that the objects call)";
      missing[k].push_back(*fn);
    }
  }
  bool any = false;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    if (missing[k].empty()) continue;
    any = true;
    const LibraryKernel& kernel = kernels[k];
    std::string message = kernel.what + " is declared but not defined; expected: " +
                          (ambiguous[k].empty() ? kernel.expected : ambiguous[k]);
    const std::vector<std::string> instead = definedInstead(missing[k].front().base, files, referenced);
    if (!instead.empty()) message += "; found instead: " + support::join(instead, ", and ");
    model::reportError(diags, *kernel.function, message);
  }
  if (any)
    diags.note(yaml, "opgen looked for the kernels in " + std::to_string(files.size()) +
                         (files.size() == 1 ? " file" : " files") + " (the library's objects and the libraries of its project that it links); kernels "
                         "defined elsewhere: set the library's target property OPGEN_CHECK_KERNELS to OFF");
}

}  // namespace opgen::dest
