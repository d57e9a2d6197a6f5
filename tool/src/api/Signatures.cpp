#include "api/Signatures.h"

#include "api/Dispatcher.h"
#include "api/Functionalization.h"
#include "api/Native.h"
#include "api/Structured.h"
#include "api/Translate.h"

namespace opgen::api {

namespace {

constexpr std::string_view kDispatchKeySetParam = "c10::DispatchKeySet dispatchKeySet";

// "RET NAME(P1, P2, ...)" where render(binding, s) appends each parameter to s.
template <class Render>
std::string head(const CType& ret, const std::string& name, const std::vector<Binding>& args, bool redispatching,
                 const Spelling& spelling, Render render) {
  std::string s = ret.cppType(false, spelling);
  s.append(" ").append(name).append("(");
  bool first = true;
  if (redispatching) {
    s.append(kDispatchKeySetParam);
    first = false;
  }
  for (const Binding& b : args) {
    if (!first) s.append(", ");
    render(b, s);
    first = false;
  }
  s += ')';
  return s;
}

std::string decls(const CType& ret, const std::string& name, const std::vector<Binding>& args, bool redispatching,
                  const Spelling& spelling) {
  return head(ret, name, args, redispatching, spelling,
              [&](const Binding& b, std::string& s) { b.appendDecl(s, spelling); });
}

std::string defns(const CType& ret, const std::string& name, const std::vector<Binding>& args, bool redispatching,
                  const Spelling& spelling) {
  return head(ret, name, args, redispatching, spelling,
              [&](const Binding& b, std::string& s) { b.appendDefn(s, spelling); });
}

std::string functionType(const CType& ret, const std::vector<Binding>& args, bool pointer, const Spelling& spelling) {
  return ret.cppType(false, spelling) + (pointer ? " (*)(" : " (") + joinTypes(args, spelling) + ")";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// CppSignature

CppSignature::CppSignature(const model::FunctionSchema& func, const cpp::Flavor& flavor,
                           const std::set<std::string>& cppNoDefaultArgs, bool fallbackBinding, const Options& options)
    : func_(&func),
      flavor_(flavor),
      fallbackBinding_(fallbackBinding),
      spelling_(&options.spelling()),
      arguments_(cpp::arguments(func.arguments, flavor, cppNoDefaultArgs, options)),
      returnsType_(cpp::returnsType(func.returns, options)) {}

std::string CppSignature::name(bool suppressSymintSuffix) const {
  std::string n = cpp::name(*func_, flavor_.faithful, suppressSymintSuffix ? false : flavor_.symint);
  if (fallbackBinding_) n = "__dispatch_" + n;
  return n;
}

std::string CppSignature::decl(const DeclOptions& o) const {
  return decls(returnsType_, o.name ? *o.name : o.prefix + name(o.suppressSymintSuffix), arguments_,
               o.isRedispatchingFn, *spelling_);
}

std::string CppSignature::defn(const DeclOptions& o) const {
  return defns(returnsType_, o.name ? *o.name : o.prefix + name(o.suppressSymintSuffix), arguments_,
               o.isRedispatchingFn, *spelling_);
}

std::string CppSignature::ptrType() const { return functionType(returnsType_, arguments_, true, *spelling_); }
std::string CppSignature::type() const { return functionType(returnsType_, arguments_, false, *spelling_); }

// ---------------------------------------------------------------------------------------------
// CppSignatureGroup

CppSignatureGroup CppSignatureGroup::fromNativeFunction(const model::NativeFunction& f, const Spec& spec,
                                                        const Options& options) {
  const model::FunctionSchema& func = f.func;
  auto make = [&](bool faithful, bool symint) {
    return CppSignature(func, cpp::Flavor{faithful, symint, spec.method}, f.cppNoDefaultArgs, spec.fallbackBinding,
                        options);
  };
  const bool hasFaithful = func.arguments.tensorOptions.has_value() || !func.arguments.out.empty();
  auto faithful = [&](bool symint) {
    return hasFaithful ? std::optional<CppSignature>(make(true, symint)) : std::nullopt;
  };
  std::optional<CppSignature> symint, symintFaithful;
  if (func.hasSymInt()) {
    symint = make(false, true);
    symintFaithful = faithful(true);
  }
  return CppSignatureGroup(make(false, false), faithful(false), std::move(symint), std::move(symintFaithful));
}

std::vector<const CppSignature*> CppSignatureGroup::signatures(bool symint) const {
  std::vector<const CppSignature*> r{&signature_};
  if (faithful_) r.push_back(&*faithful_);
  if (symint) {
    if (symint_) r.push_back(&*symint_);
    if (symintFaithful_) r.push_back(&*symintFaithful_);
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// DispatcherSignature

DispatcherSignature::DispatcherSignature(const model::FunctionSchema& func, const Options& options, std::string prefix,
                                         bool symint)
    : func_(&func),
      prefix_(std::move(prefix)),
      symint_(symint),
      spelling_(&options.spelling()),
      arguments_(dispatcher::arguments(func, options, symint)),
      returnsType_(dispatcher::returnsType(func.returns, options)) {}

DispatcherSignature DispatcherSignature::fromSchema(const model::FunctionSchema& func, const Options& options,
                                                    std::string prefix, bool symint) {
  return DispatcherSignature(func, options, std::move(prefix), symint);
}

std::string DispatcherSignature::name() const { return prefix_ + dispatcher::name(*func_); }

std::string DispatcherSignature::decl(const DeclOptions& o) const {
  return decls(returnsType_, o.name ? *o.name : o.prefix + name(), arguments_, o.isRedispatchingFn, *spelling_);
}

std::string DispatcherSignature::defn(const DeclOptions& o) const {
  return defns(returnsType_, o.name ? *o.name : o.prefix + name(), arguments_, o.isRedispatchingFn, *spelling_);
}

std::vector<Expr> DispatcherSignature::exprs() const { return toExprs(arguments_); }
std::string DispatcherSignature::ptrType() const { return functionType(returnsType_, arguments_, true, *spelling_); }
std::string DispatcherSignature::type() const { return functionType(returnsType_, arguments_, false, *spelling_); }

// ---------------------------------------------------------------------------------------------
// NativeSignature

NativeSignature::NativeSignature(const model::FunctionSchema& func, bool symint, const Options& options,
                                 std::string prefix)
    : func_(&func),
      symint_(symint),
      prefix_(std::move(prefix)),
      options_(options),
      arguments_(native::arguments(func, symint, options)),
      returnsType_(native::returnsType(func.returns, options)) {}

std::string NativeSignature::name() const { return prefix_ + native::name(*func_); }

std::string NativeSignature::decl(const DeclOptions& o) const {
  return decls(returnsType_, o.name ? *o.name : o.prefix + name(), arguments_, o.isRedispatchingFn, options_.spelling());
}

std::string NativeSignature::defn(const DeclOptions& o) const {
  return defns(returnsType_, o.name ? *o.name : o.prefix + name(), arguments_, o.isRedispatchingFn, options_.spelling());
}

std::string NativeSignature::ptrType() const {
  // Parameter names included (but never defaults), as torchgen does.
  const Spelling& spelling = options_.spelling();
  return returnsType_.cppType(false, spelling) + " (*)(" + joinDefns(arguments_, spelling) + ")";
}

support::Expected<std::vector<Expr>> NativeSignature::dispatcherExprs() const {
  return translate(arguments_, dispatcher::arguments(*func_, options_), TranslateOptions{.libtorch = options_.libtorch});
}

// ---------------------------------------------------------------------------------------------
// KernelSignature

const std::vector<Binding>& KernelSignature::arguments() const {
  return std::visit([](const auto& s) -> const std::vector<Binding>& { return s.arguments(); }, sig_);
}
const CType& KernelSignature::returnsType() const {
  return std::visit([](const auto& s) -> const CType& { return s.returnsType(); }, sig_);
}
bool KernelSignature::symint() const {
  return std::visit([](const auto& s) { return s.symint(); }, sig_);
}
std::string KernelSignature::name() const {
  return std::visit([](const auto& s) { return s.name(); }, sig_);
}
std::string KernelSignature::decl(const DeclOptions& o) const {
  return std::visit([&](const auto& s) { return s.decl(o); }, sig_);
}
std::string KernelSignature::defn(const DeclOptions& o) const {
  return std::visit([&](const auto& s) { return s.defn(o); }, sig_);
}
std::string KernelSignature::ptrType() const {
  return std::visit([](const auto& s) { return s.ptrType(); }, sig_);
}

support::Expected<KernelSignature> kernelSignature(const model::NativeFunction& f, const model::BackendIndex& index,
                                                   const Options& options, std::string prefix) {
  const model::BackendMetadata* meta = index.find(f.func.name);
  const bool symint = meta != nullptr && meta->supportsSymInt();
  if (std::optional<std::string> problem = kernelSignatureProblem(f, index, symint))
    return support::makeError(std::move(*problem));
  if (index.external())
    return KernelSignature(DispatcherSignature::fromSchema(f.func, options, std::move(prefix), symint));
  return KernelSignature(NativeSignature(f.func, symint, options, std::move(prefix)));
}

std::optional<std::string> kernelSignatureProblem(const model::NativeFunction& f, const model::BackendIndex& index,
                                                  bool symint) {
  if (symint && !f.func.hasSymInt())
    return "attempted to define symint kernel for " + std::string(model::dispatchKeyName(index.dispatchKey())) +
           " without SymInt in schema";
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// StructuredImplSignature, ViewInverseSignature

StructuredImplSignature::StructuredImplSignature(const model::NativeFunctionsGroup& g, std::string name,
                                                 const LibtorchFacts& libtorch)
    : name_(std::move(name)), libtorch_(libtorch), arguments_(structured::implArguments(g)) {}

std::string StructuredImplSignature::defn() const {
  return "TORCH_IMPL_FUNC(" + name_ + ")(" + joinDefns(arguments_, Spelling::of(libtorch_)) + ")";
}

ViewInverseSignature::ViewInverseSignature(const model::NativeFunctionsViewGroup& g, const Options& options)
    : g_(&g), options_(options) {}

std::string ViewInverseSignature::name() const { return functionalization::reverseName(*g_->view, false); }

std::string ViewInverseSignature::decl() const {
  const auto args = functionalization::opArguments(g_->view->func, true, options_);
  return "static " + functionalization::returnsType(g_->view->func).cppType() + " " + name() + "(" + joinDecls(args) +
         ");";
}

}  // namespace opgen::api
