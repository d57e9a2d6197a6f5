// Whole C++ signatures, each rendering its declaration, definition head and types from one object so
// they cannot drift apart: torchgen's api/types/signatures.py.
//
//   CppSignature / CppSignatureGroup   the public C++ API (at::add, Tensor::add)
//   DispatcherSignature                the dispatcher's convention (at::_ops::add_Tensor::call)
//   NativeSignature                    in-tree kernels (at::native::add)
//   kernelSignature()                  which of the last two a backend's kernels follow
//   StructuredImplSignature            TORCH_IMPL_FUNC(...) of structured kernels
//   ViewInverseSignature               the functionalization pass's view inverses
//
// A signature refers to the schema it was made from (the model must outlive it) and computes its
// bindings once, when it is made, with the Options given (see Options in Types.h).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "api/Cpp.h"
#include "api/Translate.h"
#include "api/Types.h"
#include "support/Expected.h"

namespace opgen::api {

// How to render a declaration or definition head.
struct DeclOptions {
  std::optional<std::string> name{};  // the function's name; default: prefix + the signature's name
  std::string prefix{};               // prepended to the signature's own name ("Tensor::")
  bool isRedispatchingFn = false;     // first parameter `c10::DispatchKeySet dispatchKeySet`
  bool suppressSymintSuffix = false;  // CppSignature: name without "_symint" (the symint:: templates)
};

// One overload of the public C++ API.
class CppSignature {
 public:
  CppSignature(const model::FunctionSchema& func, const cpp::Flavor& flavor,
               const std::set<std::string>& cppNoDefaultArgs, bool fallbackBinding, const Options& options);

  const model::FunctionSchema& func() const { return *func_; }
  bool method() const { return flavor_.method; }
  bool faithful() const { return flavor_.faithful; }
  // SymInt arguments as c10::SymInt; the overload is named NAME_symint.
  bool symint() const { return flavor_.symint; }
  // A manual_cpp_binding function's generated binding, named __dispatch_NAME.
  bool fallbackBinding() const { return fallbackBinding_; }

  const std::vector<Binding>& arguments() const { return arguments_; }
  const CType& returnsType() const { return returnsType_; }
  std::string name(bool suppressSymintSuffix = false) const;
  // "RET NAME(ARGS WITH DEFAULTS)"
  std::string decl(const DeclOptions& o = {}) const;
  // "RET NAME(ARGS)"
  std::string defn(const DeclOptions& o = {}) const;
  std::string ptrType() const;  // "RET (*)(TYPES)"
  std::string type() const;     // "RET (TYPES)"

 private:
  const model::FunctionSchema* func_;
  cpp::Flavor flavor_;
  bool fallbackBinding_;
  const Spelling* spelling_;
  std::vector<Binding> arguments_;
  CType returnsType_;
};

// The C++ API overloads of one function: the convenience signature (TensorOptions, out arguments
// first), the faithful one when it differs (tensor options or out arguments), and their SymInt
// variants when the schema has SymInts.
class CppSignatureGroup {
 public:
  struct Spec {
    bool method = false;           // Tensor::NAME
    bool fallbackBinding = false;  // torchgen passes f.manual_cpp_binding for the public API
  };
  static CppSignatureGroup fromNativeFunction(const model::NativeFunction& f, const Spec& spec, const Options& options);

  const model::FunctionSchema& func() const { return signature_.func(); }
  const CppSignature& signature() const { return signature_; }
  const std::optional<CppSignature>& faithfulSignature() const { return faithful_; }
  const std::optional<CppSignature>& symintSignature() const { return symint_; }
  const std::optional<CppSignature>& symintFaithfulSignature() const { return symintFaithful_; }
  const CppSignature& mostFaithfulSignature() const { return faithful_ ? *faithful_ : signature_; }
  // signature, faithful, then (with symint) the SymInt ones: those that exist.
  std::vector<const CppSignature*> signatures(bool symint = true) const;

 private:
  CppSignatureGroup(CppSignature s, std::optional<CppSignature> f, std::optional<CppSignature> si,
                    std::optional<CppSignature> sf)
      : signature_(std::move(s)), faithful_(std::move(f)), symint_(std::move(si)), symintFaithful_(std::move(sf)) {}

  CppSignature signature_;
  std::optional<CppSignature> faithful_, symint_, symintFaithful_;
};

// The dispatcher's calling convention.
class DispatcherSignature {
 public:
  static DispatcherSignature fromSchema(const model::FunctionSchema& func, const Options& options,
                                        std::string prefix = "", bool symint = true);

  const model::FunctionSchema& func() const { return *func_; }
  const std::string& prefix() const { return prefix_; }
  bool symint() const { return symint_; }

  const std::vector<Binding>& arguments() const { return arguments_; }
  const CType& returnsType() const { return returnsType_; }
  std::string name() const;  // prefix + "add" / "add_out" ...
  std::string decl(const DeclOptions& o = {}) const;
  std::string defn(const DeclOptions& o = {}) const;
  std::vector<Expr> exprs() const;  // the arguments by name
  std::string ptrType() const;
  std::string type() const;

 private:
  DispatcherSignature(const model::FunctionSchema& func, const Options& options, std::string prefix, bool symint);

  const model::FunctionSchema* func_;
  std::string prefix_;
  bool symint_;
  const Spelling* spelling_;
  std::vector<Binding> arguments_;
  CType returnsType_;
};

// An in-tree (at::native::) kernel.
class NativeSignature {
 public:
  NativeSignature(const model::FunctionSchema& func, bool symint, const Options& options, std::string prefix = "");

  const model::FunctionSchema& func() const { return *func_; }
  bool symint() const { return symint_; }
  const std::string& prefix() const { return prefix_; }

  const std::vector<Binding>& arguments() const { return arguments_; }
  const CType& returnsType() const { return returnsType_; }
  std::string name() const;  // prefix + native::name
  std::string decl(const DeclOptions& o = {}) const;
  std::string defn(const DeclOptions& o = {}) const;
  std::string ptrType() const;  // "RET (*)(ARGS)", with the parameters' names
  // The dispatcher's arguments expressed with this signature's bindings.
  support::Expected<std::vector<Expr>> dispatcherExprs() const;

 private:
  const model::FunctionSchema* func_;
  bool symint_;
  std::string prefix_;
  Options options_;
  std::vector<Binding> arguments_;
  CType returnsType_;
};

// The signature of a backend's kernel: in-tree backends follow the native convention, external ones
// the dispatcher's (torchgen's note "External Backends Follow Dispatcher API").
class KernelSignature {
 public:
  explicit KernelSignature(NativeSignature s) : sig_(std::move(s)) {}
  explicit KernelSignature(DispatcherSignature s) : sig_(std::move(s)) {}

  const NativeSignature* native() const { return std::get_if<NativeSignature>(&sig_); }
  const DispatcherSignature* dispatcher() const { return std::get_if<DispatcherSignature>(&sig_); }

  const std::vector<Binding>& arguments() const;
  const CType& returnsType() const;
  bool symint() const;
  std::string name() const;
  std::string decl(const DeclOptions& o = {}) const;
  std::string defn(const DeclOptions& o = {}) const;
  std::string ptrType() const;

 private:
  std::variant<NativeSignature, DispatcherSignature> sig_;
};

// The kernel signature of f for a backend (SymInt-aware when the backend's kernel name says
// "_symint"); an error when such a kernel is declared for a schema without SymInt.
support::Expected<KernelSignature> kernelSignature(const model::NativeFunction& f, const model::BackendIndex& index,
                                                   const Options& options, std::string prefix = "");
// Why `index`'s kernel of f, SymInt or not (`symint`), has no signature, if it has none (kernelSignature's
// error, for callers that build the signature themselves).
std::optional<std::string> kernelSignatureProblem(const model::NativeFunction& f, const model::BackendIndex& index,
                                                  bool symint);

// TORCH_IMPL_FUNC(NAME)(impl arguments) of a structured group.
class StructuredImplSignature {
 public:
  StructuredImplSignature(const model::NativeFunctionsGroup& g, std::string name, const LibtorchFacts& libtorch = {});
  const std::string& name() const { return name_; }
  const std::vector<Binding>& arguments() const { return arguments_; }
  std::string defn() const;

 private:
  std::string name_;
  LibtorchFacts libtorch_;
  std::vector<Binding> arguments_;
};

// The declaration of a view's inverse (at::functionalization::FunctionalInverses::NAME_inverse).
class ViewInverseSignature {
 public:
  ViewInverseSignature(const model::NativeFunctionsViewGroup& g, const Options& options);
  std::string name() const;
  std::string decl() const;  // "static at::Tensor NAME(ARGS);"

 private:
  const model::NativeFunctionsViewGroup* g_;
  Options options_;
};

}  // namespace opgen::api
