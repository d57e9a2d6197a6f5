// The function-schema language of native_functions.yaml: types, alias annotations, arguments,
// returns, operator names and whole schemas. Every class parses from text and prints back exactly
// the same text (parse(s).str() == s); a text that would not print back is rejected.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/Expected.h"

namespace opgen::model {

using support::Expected;

// ---------------------------------------------------------------------------------------------
// Types

enum class BaseTy {
  Generator, ScalarType, Tensor, Int, DimVector, Float, Str, Bool, Layout, Device, DeviceIndex,
  Scalar, MemoryFormat, QScheme, Storage, Stream, SymInt, SymBool, GraphModule,
  // Accepted for older inputs (PyTorch 1.x); torchgen 2.14.1 itself no longer knows it.
  Dimname,
};

std::string_view baseTyName(BaseTy t);
std::optional<BaseTy> parseBaseTy(std::string_view name);

// A schema type: a base type, T?, T[] / T[N], or a custom class (__torch__.torch.classes.X).
class Type {
 public:
  enum class Kind { Base, Optional, List, CustomClass };

  static Type base(BaseTy t);
  static Type optional(Type elem);
  static Type list(Type elem, std::optional<int> size);
  static Type customClass(std::string className);
  static Expected<Type> parse(std::string_view text);

  Kind kind() const { return kind_; }
  bool isBase() const { return kind_ == Kind::Base; }
  bool isOptional() const { return kind_ == Kind::Optional; }
  bool isList() const { return kind_ == Kind::List; }
  bool isBase(BaseTy t) const { return kind_ == Kind::Base && base_ == t; }
  BaseTy baseTy() const { return base_; }          // Kind::Base only
  const Type& elem() const { return *elem_; }      // Optional and List only
  std::optional<int> size() const { return size_; }  // List only
  const std::string& className() const { return className_; }

  // torchgen's loose predicates: does the innermost element have this base type, ...
  bool isBaseTyLike(BaseTy t) const;
  bool isTensorLike() const { return isBaseTyLike(BaseTy::Tensor); }
  bool isGeneratorLike() const { return isBaseTyLike(BaseTy::Generator); }
  bool isSymIntLike() const;
  bool isNullable() const;
  // The list type itself, looking through one optional (int[]? -> int[]); nullptr otherwise.
  const Type* listLike() const;

  std::string str() const;
  void appendTo(std::string& out) const;  // str() at the end of `out`
  bool operator==(const Type& o) const;

 private:
  Kind kind_ = Kind::Base;
  BaseTy base_ = BaseTy::Tensor;
  std::shared_ptr<const Type> elem_;
  std::optional<int> size_;
  std::string className_;
};

// ---------------------------------------------------------------------------------------------
// Alias annotations: a, a!, a|b, a -> *, a! -> a|b

struct Annotation {
  std::vector<std::string> aliasSet;
  bool isWrite = false;
  std::vector<std::string> aliasSetAfter;

  static Expected<Annotation> parse(std::string_view text);
  std::string str() const;
  void appendTo(std::string& out) const;  // str() at the end of `out`
  bool operator==(const Annotation&) const = default;
};

struct Argument {
  std::string name;
  Type type;
  std::optional<std::string> defaultValue;
  std::optional<Annotation> annotation;

  static Expected<Argument> parse(std::string_view text);
  bool isWrite() const { return annotation && annotation->isWrite; }
  std::string str() const;
  void appendTo(std::string& out) const;  // str() at the end of `out`
  bool operator==(const Argument&) const = default;
};

struct Return {
  std::optional<std::string> name;
  Type type;
  std::optional<Annotation> annotation;

  static Expected<Return> parse(std::string_view text);
  bool isWrite() const { return annotation && annotation->isWrite; }
  std::string str() const;
  void appendTo(std::string& out) const;  // str() at the end of `out`
  bool operator==(const Return&) const = default;
};

// dtype, layout, device, pin_memory: grouped because the C++ API folds them into TensorOptions.
struct TensorOptionsArguments {
  Argument dtype, layout, device, pinMemory;
  std::array<const Argument*, 4> all() const { return {&dtype, &layout, &device, &pinMemory}; }
  bool operator==(const TensorOptionsArguments&) const = default;
};

// The parts of an argument list, in schema order: the positional arguments (pre-self, self,
// post-self), the keyword-only ones (pre-tensor-options, the tensor options, post-tensor-options),
// the out ones. (Outside Arguments: a nested class's member initializers cannot serve a default
// argument of the enclosing class, which clang enforces.)
struct ArgumentParts {
  bool positional = true;
  bool kwargOnly = true;
  bool out = true;
};

// The argument list in torchgen's canonical shape. Out arguments (mutable keyword-only ones) are
// kept apart from the other keyword-only arguments.
struct Arguments {
  std::vector<Argument> preSelfPositional;
  std::optional<Argument> selfArg;
  std::vector<Argument> postSelfPositional;
  std::vector<Argument> preTensorOptionsKwargOnly;
  std::optional<TensorOptionsArguments> tensorOptions;
  std::vector<Argument> postTensorOptionsKwargOnly;
  std::vector<Argument> out;

  static Expected<Arguments> parse(std::string_view text);

  std::vector<const Argument*> flatPositional() const;
  std::vector<const Argument*> flatKwargOnly() const;  // excludes out
  std::vector<const Argument*> flatNonOut() const;
  std::vector<const Argument*> flatAll() const;
  using Parts = ArgumentParts;
  // Calls fn(const Argument&) for each argument of `parts` in schema order (every flat list and the
  // printed schema follow it), without making a list; stops at the first call that returns true,
  // and returns whether one did.
  template <class Fn>
  bool anyOf(Fn fn, Parts parts = {}) const {
    if (parts.positional) {
      for (const Argument& a : preSelfPositional)
        if (fn(a)) return true;
      if (selfArg && fn(*selfArg)) return true;
      for (const Argument& a : postSelfPositional)
        if (fn(a)) return true;
    }
    if (parts.kwargOnly) {
      for (const Argument& a : preTensorOptionsKwargOnly)
        if (fn(a)) return true;
      if (tensorOptions)
        for (const Argument* a : tensorOptions->all())
          if (fn(*a)) return true;
      for (const Argument& a : postTensorOptionsKwargOnly)
        if (fn(a)) return true;
    }
    if (parts.out)
      for (const Argument& a : out)
        if (fn(a)) return true;
    return false;
  }
  std::vector<const Argument*> postSelfPositionalMutable() const;
  std::vector<std::string> mutableArgNames() const;

  bool hasTensorArg() const;
  bool hasSymIntArg() const;
  bool hasGeneratorArg() const;

  // Annotations and (optionally) defaults removed, tensor options and out arguments dropped.
  Arguments signature(bool stripDefault = false) const;
  Arguments withoutSelfAnnotation() const;
  Arguments withOutArgs(std::vector<Argument> outs) const;

  std::string str() const;
  void appendTo(std::string& out) const;  // str() at the end of `out`
  bool operator==(const Arguments&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Names

struct BaseOperatorName {
  std::string base;
  bool inplace = false;
  bool dunderMethod = false;
  // foo_functional: the functional twin of a mutable operator (see torchgen's note on
  // "Overload Ambiguity With Functional Variants").
  bool functionalOverload = false;
  std::string ns;  // rarely set: "ns::name"

  static Expected<BaseOperatorName> parse(std::string_view text);
  std::string str() const;
  void appendTo(std::string& out) const;  // str() at the end of `out`
  bool operator==(const BaseOperatorName&) const = default;
};

struct OperatorName {
  BaseOperatorName name;
  std::string overloadName;

  static Expected<OperatorName> parse(std::string_view text);
  std::string str() const;
  void appendTo(std::string& out) const;  // str() at the end of `out`
  // "op" or "op_overload": the name used for per-operator structs.
  std::string unambiguousName() const;
  OperatorName removeInplace() const;
  OperatorName withOverload(std::string overload) const;
  bool operator==(const OperatorName&) const = default;

 private:
  std::string joined(char separator) const;  // the name, then `separator` and the overload if any
  void appendJoined(std::string& out, char separator) const;  // joined() at the end of `out`
};

enum class SchemaKind { Functional, Inplace, Out, Mutable, Scratch };
std::string_view schemaKindName(SchemaKind k);

// ---------------------------------------------------------------------------------------------

class FunctionSchema {
 public:
  OperatorName name;
  Arguments arguments;
  std::vector<Return> returns;

  // Parses and checks torchgen's schema invariants (out arguments match returns, in-place naming
  // rules, ...). Error offsets point into `text`.
  static Expected<FunctionSchema> parse(std::string_view text);
  // The invariants alone, for schemas built in code.
  std::optional<std::string> validate() const;

  std::string str() const;
  void appendTo(std::string& out) const;  // str() at the end of `out`
  SchemaKind kind() const;
  bool isOutFn() const { return !arguments.out.empty(); }
  bool isFunctionalFn() const;
  bool isMutable() const;
  bool hasSymInt() const { return arguments.hasSymIntArg(); }
  bool modifiesArguments() const;
  std::vector<const Argument*> schemaOrderArguments() const;
  // For each return, the name of the argument it aliases, if any.
  std::vector<std::optional<std::string>> aliasedReturnNames() const;

  struct SignatureOptions {
    bool stripDefault = false;
    bool stripViewCopyName = false;
    bool keepReturnNames = false;
  };
  // The "core" signature shared by the functional, in-place, out and mutable variants of an
  // operator; used to group them.
  FunctionSchema signature(SignatureOptions options) const;
  FunctionSchema signature() const { return signature(SignatureOptions{}); }
  FunctionSchema viewSignature() const { return signature(SignatureOptions{.stripViewCopyName = true}); }
  // Whether stripViewCopyName renames this operator ("..._copy", "..._scatter"); if not,
  // viewSignature() is signature().
  bool viewSignatureRenames() const;
  FunctionSchema withName(OperatorName n) const;

  bool operator==(const FunctionSchema&) const = default;
};

// torchgen's cpp.name(func): the C++ API name of an operator ("add", "add_", "add_out").
std::string cppName(const FunctionSchema& func, bool faithfulNameForOutOverloads = false,
                    bool symintOverload = false);

}  // namespace opgen::model
