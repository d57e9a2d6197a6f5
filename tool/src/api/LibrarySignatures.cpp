#include "api/LibrarySignatures.h"

#include <map>
#include <optional>

#include "api/Cpp.h"
#include "api/Signatures.h"
#include "api/Structured.h"
#include "api/Translate.h"

namespace opgen::api {

namespace {

// The argument's type as written, annotation included ("Tensor(a!)?").
std::string writtenType(const model::Argument& a) {
  const std::string s = a.str();
  return s.substr(0, s.rfind(" " + a.name));
}

// A reference held inside a container (an optional, a list, an array): C++ has none of these
// (::std::optional<const T &> fails a static assertion; ArrayRef<const T &> does not compile).
bool holdsReference(const CType& t, bool inContainer = false) {
  switch (t.kind()) {
    case CType::Kind::Base: return false;
    case CType::Kind::ConstRef:
    case CType::Kind::MutRef: return inContainer || holdsReference(t.elem(), false);
    case CType::Kind::Tuple:
      for (const CType& e : t.elems())
        if (holdsReference(e, false)) return true;
      return false;
    default: return holdsReference(t.elem(), true);
  }
}

// Whether `base` appears anywhere in t.
bool mentions(const CType& t, const BaseCppType& base) {
  switch (t.kind()) {
    case CType::Kind::Base: return t.baseType() == base;
    case CType::Kind::Tuple:
      for (const CType& e : t.elems())
        if (mentions(e, base)) return true;
      return false;
    default: return mentions(t.elem(), base);
  }
}

// A calling convention's parameters, and who has them (for the messages: "the kernel").
struct Convention {
  std::string owner;
  const std::vector<Binding>* bindings;
};

class Checker {
 public:
  Checker(const model::NativeFunction& f, const model::NativeFunctionsGroup* structured, const LibtorchFacts& libtorch)
      : f_(f), structured_(structured), libtorch_(libtorch), options_(Options::of(f, libtorch)) {}

  std::vector<SignatureProblem> run() {
    f_.func.arguments.anyOf([&](const model::Argument& a) {
      if (auto why = cpp::checkSupported(a.type)) report(a.name, *why);
      const model::Type& t = a.type.isOptional() ? a.type.elem() : a.type;
      if (t.isList() && (t.elem().isOptional() ? t.elem().elem() : t.elem()).isList())
        report(a.name, "a list of lists has no C++ type that PyTorch's dispatcher can pass to a kernel (it cannot "
                       "unbox an at::ArrayRef of lists)");
      return false;
    });
    std::vector<SignatureProblem> returns;
    for (size_t i = 0; i < f_.func.returns.size(); ++i) {
      const model::Type& t = f_.func.returns[i].type;
      if (auto why = cpp::checkSupported(f_.func.returns[i])) {
        returns.push_back({nullptr, i, *why});
      } else if (t.isList() && t.elem().isBase(model::BaseTy::Scalar)) {
        // (c10's make_boxed_from_unboxed_functor asserts: a kernel may return List<int64_t>, List<double>...)
        returns.push_back({nullptr, i, "type '" + t.str() + "' is not supported: PyTorch cannot register a kernel "
                                       "returning a list of Scalars (::std::vector<at::Scalar>)"});
      }
    }
    // Without a C++ type for every argument and return, the signatures below are not meaningful.
    if (returns.empty() && byName_.empty()) checkSignatures();
    std::vector<SignatureProblem> ordered;
    f_.func.arguments.anyOf([&](const model::Argument& a) {
      if (auto it = byName_.find(a.name); it != byName_.end()) ordered.push_back({&a, 0, it->second});
      return false;
    });
    ordered.insert(ordered.end(), returns.begin(), returns.end());
    return ordered;
  }

 private:
  void checkSignatures() {
    const CppSignatureGroup cppGroup =
        CppSignatureGroup::fromNativeFunction(f_, {.method = false, .fallbackBinding = f_.manualCppBinding}, options_);
    const DispatcherSignature dispatcher = DispatcherSignature::fromSchema(f_.func, options_);
    const NativeSignature native(f_.func, /*symint=*/false, options_);
    const NativeSignature nativeSymInt(f_.func, /*symint=*/true, options_);
    const Convention theDispatcher{"the dispatcher", &dispatcher.arguments()};
    const Convention theKernel{"the kernel", &native.arguments()};
    const Convention theSymIntKernel{"the SymInt kernel", &nativeSymInt.arguments()};
    std::vector<Convention> cppApi;
    for (const CppSignature* s : cppGroup.signatures())
      cppApi.push_back({"the C++ API (" + f_.ns + "::" + s->name() + ")", &s->arguments()});

    // Every parameter has a C++ type that compiles.
    for (const Convention& c : cppApi) checkTypes(c);
    for (const Convention* c : {&theDispatcher, &theKernel, &theSymIntKernel}) checkTypes(*c);
    // The C++ API calls the dispatcher, whose wrapper calls the kernel.
    for (const Convention& c : cppApi) checkTranslation(c, theDispatcher);
    checkTranslation(theDispatcher, theKernel);
    checkTranslation(theDispatcher, theSymIntKernel);
    checkBoxedReturn(dispatcher);
    for (const Convention& c : cppApi) checkDefaultsLast(c);
    checkDefaultsLast(theKernel);

    if (structured_ == nullptr) return;
    // A structured operator: the wrappers of the group's functions call its meta function, then its
    // impl function.
    inStructured_ = true;
    if (std::optional<std::string> why = structured::checkSupported(*structured_)) {
      if (const auto& options = f_.func.arguments.tensorOptions)
        report(options->dtype.name, "structured kernels do not take tensor options (dtype, layout, device and "
                                    "pin_memory together)");
      return;
    }
    const std::vector<Binding> meta = structured::metaArguments(*structured_);
    std::vector<Binding> impl;
    for (Binding& b : structured::implArguments(*structured_))
      if (!isOut(b.name)) impl.push_back(std::move(b));
    const Convention theMeta{"the meta function", &meta};
    const Convention theImpl{"the impl function", &impl};
    checkTypes(theMeta);
    checkTypes(theImpl);
    structured_->forEachFunction([&](const model::NativeFunction& member) {
      const NativeSignature wrapper(member.func, /*symint=*/false, Options::of(member, libtorch_));
      const Convention theWrapper{"the wrapper", &wrapper.arguments()};
      checkTranslation(theWrapper, theMeta);
      checkTranslation(theWrapper, theImpl);
    });
  }

  // An operator returning one mutable tensor (at::Tensor &) returns, when the dispatcher calls a boxed
  // kernel (c10's BoxedKernelWrapper), its first argument if that is a mutable tensor, else its last:
  // it must be the one the schema returns (an in-place operator's self, an out= operator's out).
  void checkBoxedReturn(const DispatcherSignature& dispatcher) {
    const CType tensorRef = CType::mutRef(CType::base(tensorT));
    const std::vector<Binding>& args = dispatcher.arguments();
    if (!(dispatcher.returnsType() == tensorRef) || args.empty()) return;
    const model::SchemaKind kind = f_.func.kind();
    std::string returned;
    if (kind == model::SchemaKind::Inplace && f_.func.arguments.selfArg) returned = f_.func.arguments.selfArg->name;
    else if (kind == model::SchemaKind::Out && f_.func.arguments.out.size() == 1) returned = f_.func.arguments.out[0].name;
    const Binding& boxed = args.front().nctype.type == tensorRef ? args.front() : args.back();
    if (returned.empty() || boxed.name == returned) return;
    reportAs(returned, "it must be the operator's first argument: PyTorch's dispatcher returns the first argument "
                       "of an operator returning Tensor(a!), or its last when the first is not a mutable tensor (here '" +
                       boxed.name + "'; the generated code does not compile)");
  }

  // C++ gives defaults to the last parameters only: after one with a default, each needs one (the
  // schema parser asks that of positional arguments only).
  void checkDefaultsLast(const Convention& c) {
    const Binding* defaulted = nullptr;
    for (const Binding& b : *c.bindings) {
      if (b.defaultValue) {
        defaulted = &b;
      } else if (defaulted != nullptr && b.schemaArgument() != nullptr) {
        reportAs(b.name, "it has no default but follows '" + defaulted->name + "', which has one: in " + c.owner +
                             " the parameters with a default must come last, or the generated C++ does not compile "
                             "(give it a default, or declare it before '" + defaulted->name + "')");
        return;
      }
    }
  }

  bool isOut(const std::string& name) const {
    for (const model::Argument& a : f_.func.arguments.out)
      if (a.name == name) return true;
    return false;
  }

  void checkTypes(const Convention& c) {
    for (const Binding& b : *c.bindings)
      if (holdsReference(b.nctype.type))
        // (the functions of a structured operator take tensor lists as at::ITensorListRef)
        report(b.name, inStructured_ || (options_.ilistRefForTensorLists && mentions(b.nctype.type, iTensorListRefT)), "its type in " + c.owner + " would be '" + spell(b.nctype.type) +
                           "', which does not compile (C++ has no optional, list or array of references)");
  }

  // Each of `to`'s parameters made from `from`'s (the translation of the call from one to the other).
  void checkTranslation(const Convention& from, const Convention& to) {
    const TranslateOptions options{.libtorch = libtorch_};
    for (const Binding& goal : *to.bindings) {
      if (byName_.count(goal.name) || !goal.schemaArgument()) continue;
      if (translate(*from.bindings, std::vector<Binding>{goal}, options)) continue;
      std::string source = from.owner + "'s parameters";
      for (const Binding& b : *from.bindings)
        if (b.name == goal.name) source = from.owner + "'s '" + spell(b.nctype.type) + "'";
      const model::Argument* a = goal.schemaArgument();
      const bool mutableOptionalTensor = a->isWrite() && a->type.isOptional() && a->type.elem().isBase(model::BaseTy::Tensor);
      report(goal.name, to.owner + "'s parameter '" + spell(goal.nctype.type) + "' cannot be made from " + source +
                            " (torchgen has no conversion for it)" +
                            (mutableOptionalTensor ? "; with `use_const_ref_for_mutable_tensors: True` every convention "
                                                     "takes it as a const reference to an optional"
                                                   : ""));
    }
  }

  std::string spell(const CType& t) const { return t.cppType(false, Spelling::of(libtorch_)); }

  // The first problem of the argument named `name` (of f: the group's functions share the names).
  void report(const std::string& name, const std::string& why) { report(name, inStructured_, why); }
  void report(const std::string& name, bool structured, const std::string& why) {
    const model::Argument* a = argument(name);
    if (a == nullptr || byName_.count(name)) return;
    std::string message = "type '" + writtenType(*a) + "' is not supported";
    if (structured) message += " in a structured operator";
    message += ": " + why;
    if (structured) message += "; declare the operator without `structured: True`";
    byName_.emplace(name, std::move(message));
  }

  // A problem that is not the type's.
  void reportAs(const std::string& name, std::string message) {
    if (argument(name) != nullptr && !byName_.count(name)) byName_.emplace(name, std::move(message));
  }

  const model::Argument* argument(const std::string& name) const {
    const model::Argument* a = nullptr;
    f_.func.arguments.anyOf([&](const model::Argument& x) {
      if (x.name == name) a = &x;
      return a != nullptr;
    });
    return a;
  }

  const model::NativeFunction& f_;
  const model::NativeFunctionsGroup* structured_;
  LibtorchFacts libtorch_;
  Options options_;
  bool inStructured_ = false;  // checking the structured kernel's functions
  std::map<std::string, std::string> byName_;
};

}  // namespace

std::vector<SignatureProblem> librarySignatureProblems(const model::NativeFunction& f,
                                                       const model::NativeFunctionsGroup* structured,
                                                       const LibtorchFacts& libtorch) {
  return Checker(f, structured, libtorch).run();
}

}  // namespace opgen::api
