// The vocabulary of the api layer (torchgen's api/types/types_base.py and types.py): C++ types as
// values (CType), C++ types that know what they stand for (NamedCType), formal parameters (Binding),
// expressions (Expr), and the explicit options that replace torchgen's thread-local `local` settings.
//
// Everything here is an immutable value. Bindings point into the model (the Argument or
// TensorOptionsArguments they come from), so a model::Operators must outlive the bindings made from it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "model/Groups.h"
#include "model/NativeFunction.h"
#include "model/Schema.h"

namespace opgen::api {

// ---------------------------------------------------------------------------------------------
// Options

// What generated code depends on in the libtorch it is compiled against: each member is one fact
// about that libtorch (a name it has, a signature it declares), decided at configure time from the
// found libtorch's headers (_opgen_torch_facts in cmake/OpGenFunctions.cmake) or, where only a version is known, from
// ofVersion's table. The api and dest layers choose the text from these facts where they make it;
// nothing asks for a version number. The default is PyTorch 2.14's libtorch (torchgen's spellings).
struct LibtorchFacts {
  // c10::optional is std::optional (c10/util/Optional.h; 2.2 on): optionals are spelled ::std::,
  // else c10:: (a class of its own, which std::optional does not convert to in signatures).
  bool stdOptional = true;
  // c10::fromIntArrayRefSlow and C10_AS_INTARRAYREF_SLOW (c10/core/SymIntArrayRef.h; 2.0 on), else
  // c10::fromIntArrayRef and c10::asIntArrayRefSlow.
  bool slowIntArrayRefNames = true;
  // Autograd graph nodes are held in c10::intrusive_ptr (torch/csrc/autograd/function.h or node.h:
  // Node derives from c10::intrusive_ptr_target; after 2.11), else in std::shared_ptr.
  bool intrusiveNodes = true;
  // as_view takes the replay as a torch::autograd::ViewFunc (torch/csrc/autograd/variable.h; 2.3 on),
  // else as a std::function.
  bool viewFuncs = true;
  // as_view takes a reverse replay (rev_view_func) before the creation meta
  // (torch/csrc/autograd/VariableTypeUtils.h; 2.3 on).
  bool reverseViewFuncs = true;
  // Named tensors: MetaBase::set_output_* take a DimnameList (ATen/TensorMeta.h; up to 2.11), whose
  // names structured kernels propagate (namedinference::, ATen/NamedTensorUtils.h), and the schema
  // parser knows the type Dimname.
  bool namedTensors = false;
  // C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED / C10_DIAGNOSTIC_POP (c10/macros/Macros.h), else the
  // pragmas themselves.
  bool diagnosticMacros = true;
  // Not in any header (the table's, from the version): libtorch registers an autograd fallthrough for
  // Meta (2.0 on; without one, operators without derivatives cannot run on meta tensors); the schema
  // parser knows the types DeviceIndex and SymBool (2.0 on).
  bool metaAutogradFallthrough = true;
  bool deviceIndexAndSymBool = true;
  // Not in any header either: the schema parser knows SymBool (2.6.0's refuses it, 2.14.1's takes it;
  // the table allows it from 2.14, the first release seen to).
  bool symBoolSchemaType = true;
  // torch::Library::set_python_module (torch/library.h; not in 1.13): a library can name the Python
  // package that holds its fake kernels.
  bool setPythonModule = true;
  // Not in any header: fake tensors, on which torch.compile and torch.export run operators (2.0 on).
  bool fakeTensors = true;
  // The stable ABI of operator libraries (torch/csrc/stable/c/shim.h declares torch_library_impl and
  // torch_call_dispatcher; 2.10 on): a library can be generated for it (api/LibraryStable.h).
  bool stableAbi = true;
  // The stable ABI passes the tags `inplace` and `out` (torch/csrc/stable/stableivalue_conversions.h
  // has a case for them in its Tag conversion; 2.14.1's has not: registering them aborts at load),
  // so that a stable-ABI library can register them.
  bool stableInplaceOutTags = false;
  // The stable ABI's own error check, STABLE_TORCH_ERROR_CODE_CHECK (torch/csrc/stable/macros.h: it
  // passes the error's message on, looking up 2.13's shims at run time for an older target), else
  // the header-only TORCH_ERROR_CODE_CHECK (2.10.0's headers have only that one).
  bool stableErrorCheck = true;
  // The functionalization pass's at::functionalization::ViewMeta is a class whose specializations
  // override forward() and reverse() (ATen/FunctionalStorageImpl.h: `virtual Tensor forward`; made
  // in shared pointers), else a struct built from two std::function replays (before 2.9).
  bool viewMetaClasses = true;
  // Its constructor takes has_symbolic_inputs (2.3 on; 1.13's takes the replays and out_idx only).
  bool viewMetaSymbolicInputs = true;

  // The facts of a PyTorch release major.minor (the table in Types.cpp; 2.14's past it).
  static LibtorchFacts ofVersion(int major, int minor);
  // Each fact's name in `opgen library/backend --torch-facts` (name=0|1), and the member it sets.
  static const std::vector<std::pair<std::string_view, bool LibtorchFacts::*>>& names();
  bool operator==(const LibtorchFacts&) const = default;
};

// What `--torch-version X[.Y]` and `--torch-facts NAME=0|1,...` choose, in either order: the facts of
// the version's row (2.14's when none is given; a major without a minor: its last release), then each
// named fact as given.
struct LibtorchChoice {
  int major = 2, minor = 14;
  std::vector<std::pair<bool LibtorchFacts::*, bool>> given;
  std::optional<std::vector<std::string>> givenTags;  // --torch-tags: at::Tag's enumerators as read

  // "" when `version` is X, X.Y or X.Y.Z... (1 <= X), else why not.
  std::string setVersion(std::string_view version);
  // "" when `list` is NAME=0|1 items, comma-separated, of LibtorchFacts::names(), else why not.
  std::string addFacts(std::string_view list);
  // "" when `list` is tag names, comma-separated, else why not.
  std::string setTags(std::string_view list);
  LibtorchFacts facts() const;
  // at::Tag's enumerators, sorted: those given, else the version's (libtorchTagsOf).
  const std::vector<std::string>& tags() const;
};

// at::Tag's enumerators in PyTorch release major.minor, sorted (its ATen/core/enum_tag.h, made from
// its tags.yaml): the tags a schema may be registered with. The rows are 1.13.1's, 2.6.0's and
// 2.14.1's headers; a release between takes the row below it (add_operator_library reads the found
// libtorch's own, `--torch-tags`).
const std::vector<std::string>& libtorchTagsOf(int major, int minor);

struct Spelling {
  std::string_view optional;             // "::std::optional", "c10::optional"
  std::string_view nullopt;              // "::std::nullopt", "c10::nullopt"
  std::string_view makeOptional;         // "::std::make_optional", "c10::make_optional"
  std::string_view fromIntArrayRefSlow;  // "c10::fromIntArrayRefSlow", "c10::fromIntArrayRef"
  std::string_view asIntArrayRefSlow;    // "C10_AS_INTARRAYREF_SLOW", "c10::asIntArrayRefSlow"
  // Autograd graph nodes (torch::autograd::Node), in intrusive or shared pointers. $node$: the node class.
  std::string_view nodePointer;          // "c10::intrusive_ptr", "std::shared_ptr"
  std::string_view newNode;              // "c10::make_intrusive<$node$>()", "std::shared_ptr<$node$>(new $node$(), ...)"
  std::string_view thisNode;             // a node's pointer to itself: "getptr()", "shared_from_this()"

  static const Spelling& of(const LibtorchFacts& libtorch);
};

// torchgen's `local.parametrize(...)` settings, passed explicitly. torchgen sets them around the
// code generation of one native function (context.native_function_manager): Options::of(f) gives the
// same values. For a group, torchgen uses the group's out= function (NativeFunctionsGroup) or its
// view (NativeFunctionsViewGroup).
struct Options {
  // Mutable tensor arguments (Tensor(a!)) are `const at::Tensor &` instead of `at::Tensor &`, and
  // mutable tensor returns too.
  bool constRefForMutableTensors = false;
  // Tensor[] arguments are `const at::ITensorListRef &` instead of `at::TensorList`.
  bool ilistRefForTensorLists = false;
  // The libtorch the code is for (not one of torchgen's settings: opgen's operator libraries).
  LibtorchFacts libtorch;

  const Spelling& spelling() const { return Spelling::of(libtorch); }
  static Options of(const model::NativeFunction& f, const LibtorchFacts& libtorch = {}) {
    return Options{f.useConstRefForMutableTensors, f.partOfStructuredGroup(), libtorch};
  }
  static Options of(const model::NativeFunctionsGroup& g, const LibtorchFacts& libtorch = {}) {
    return of(*g.out, libtorch);
  }
  static Options of(const model::NativeFunctionsViewGroup& g) { return of(*g.view); }
  bool operator==(const Options&) const = default;
};

// ---------------------------------------------------------------------------------------------
// C++ types

// A non-templated C++ type name, e.g. at::Tensor. Both parts must be string literals (or otherwise
// outlive every use); the well-known ones are the constants below.
struct BaseCppType {
  std::string_view ns;
  std::string_view name;

  std::string str() const;
  bool operator==(const BaseCppType&) const = default;
};

inline constexpr BaseCppType byteT{"", "uint8_t"};
inline constexpr BaseCppType charT{"", "int8_t"};
inline constexpr BaseCppType shortT{"", "int16_t"};
inline constexpr BaseCppType int32T{"", "int32_t"};
inline constexpr BaseCppType longT{"", "int64_t"};
inline constexpr BaseCppType doubleT{"", "double"};
inline constexpr BaseCppType floatT{"", "float"};
inline constexpr BaseCppType boolT{"", "bool"};
inline constexpr BaseCppType voidT{"", "void"};

inline constexpr BaseCppType halfT{"at", "Half"};
inline constexpr BaseCppType complexHalfT{"c10", "complex<c10::Half>"};
inline constexpr BaseCppType complexFloatT{"c10", "complex<float>"};
inline constexpr BaseCppType complexDoubleT{"c10", "complex<double>"};
inline constexpr BaseCppType bfloat16T{"at", "BFloat16"};
inline constexpr BaseCppType float8_e5m2T{"at", "Float8_e5m2"};
inline constexpr BaseCppType float8_e5m2fnuzT{"at", "Float8_e5m2fnuz"};
inline constexpr BaseCppType float8_e4m3fnT{"at", "Float8_e4m3fn"};
inline constexpr BaseCppType float8_e4m3fnuzT{"at", "Float8_e4m3fnuz"};
inline constexpr BaseCppType float8_e8m0fnuT{"at", "Float8_e8m0fnu"};
inline constexpr BaseCppType stringT{"c10", "string_view"};
inline constexpr BaseCppType generatorT{"at", "Generator"};
inline constexpr BaseCppType scalarTypeT{"at", "ScalarType"};
inline constexpr BaseCppType tensorT{"at", "Tensor"};
inline constexpr BaseCppType optionalTensorRefT{"at", "OptionalTensorRef"};
inline constexpr BaseCppType tensorListT{"at", "TensorList"};
inline constexpr BaseCppType iTensorListRefT{"at", "ITensorListRef"};
inline constexpr BaseCppType iOptTensorListRefT{"at", "IOptTensorListRef"};
inline constexpr BaseCppType dimVectorT{"at", "DimVector"};
inline constexpr BaseCppType layoutT{"at", "Layout"};
inline constexpr BaseCppType deviceT{"at", "Device"};
inline constexpr BaseCppType deviceIndexT{"at", "DeviceIndex"};
inline constexpr BaseCppType scalarT{"at", "Scalar"};
inline constexpr BaseCppType optionalScalarRefT{"at", "OptionalScalarRef"};
inline constexpr BaseCppType memoryFormatT{"at", "MemoryFormat"};
inline constexpr BaseCppType qschemeT{"at", "QScheme"};
inline constexpr BaseCppType storageT{"at", "Storage"};
inline constexpr BaseCppType streamT{"at", "Stream"};
inline constexpr BaseCppType intArrayRefT{"at", "IntArrayRef"};
inline constexpr BaseCppType optionalIntArrayRefT{"at", "OptionalIntArrayRef"};
inline constexpr BaseCppType optionalSymIntArrayRefT{"at", "OptionalSymIntArrayRef"};
inline constexpr BaseCppType tensorOptionsT{"at", "TensorOptions"};
inline constexpr BaseCppType typeAndSizeT{"torch::autograd::generated", "TypeAndSize"};
inline constexpr BaseCppType tensorGeometryT{"at", "TensorGeometry"};
inline constexpr BaseCppType SymIntT{"c10", "SymInt"};
inline constexpr BaseCppType SymBoolT{"c10", "SymBool"};
inline constexpr BaseCppType symIntArrayRefT{"c10", "SymIntArrayRef"};
// Template parameters of ufunc kernels.
inline constexpr BaseCppType scalar_t{"", "scalar_t"};
inline constexpr BaseCppType opmath_t{"", "opmath_t"};
// Only for older inputs (PyTorch 1.x's Dimname, which torchgen 2.14.1 no longer knows).
inline constexpr BaseCppType dimnameT{"at", "Dimname"};
inline constexpr BaseCppType dimnameListT{"at", "DimnameList"};

// The C++ type of a schema base type (torchgen's BaseTypeToCppMapping); nullopt for the types that
// have no such mapping (Tensor and Scalar, which depend on context, and GraphModule).
std::optional<BaseCppType> baseTypeToCpp(model::BaseTy t);

// A C++ type with its structure (what translate() reasons about). A small immutable tree; copies share it.
class CType {
 public:
  enum class Kind {
    Base,        // T
    ConstRef,    // const T &
    MutRef,      // T &
    Optional,    // ::std::optional<T>
    List,        // c10::List<T>
    ArrayRef,    // at::ArrayRef<T>
    Vector,      // ::std::vector<T>
    Array,       // ::std::array<T,N>
    Tuple,       // ::std::tuple<T1,T2,...>
    Vectorized,  // at::vec::Vectorized<T>
  };

  static CType base(BaseCppType t);
  static CType constRef(CType elem);
  static CType mutRef(CType elem);
  static CType optional(CType elem);
  static CType list(CType elem);
  static CType arrayRef(CType elem);
  static CType vector(CType elem);
  static CType array(CType elem, int size);
  static CType tuple(std::vector<CType> elems);
  static CType vectorized(CType elem);

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool isBase(const BaseCppType& t) const { return kind_ == Kind::Base && base_ == t; }
  const BaseCppType& baseType() const { return base_; }        // Kind::Base only
  const CType& elem() const { return *elem_; }                 // every kind but Base and Tuple
  const std::vector<CType>& elems() const { return *elems_; }  // Tuple
  int size() const { return size_; }                           // Array

  // The C++ spelling (torchgen's unless `spelling` says otherwise). strip_ref drops a top-level
  // reference (only there: nested types keep theirs).
  std::string cppType(bool stripRef = false, const Spelling& spelling = Spelling::of({})) const;
  void appendCppType(std::string& out, bool stripRef = false,
                     const Spelling& spelling = Spelling::of({})) const;
  // The type without its references (const T & -> T, and inside containers too).
  CType removeConstRef() const;

  bool operator==(const CType& o) const;

 private:
  CType(Kind k, BaseCppType b, int size, std::shared_ptr<const CType> elem,
        std::shared_ptr<const std::vector<CType>> elems)
      : kind_(k), base_(b), size_(size), elem_(std::move(elem)), elems_(std::move(elems)) {}
  static CType wrap(Kind k, CType elem, int size = 0);

  Kind kind_;
  BaseCppType base_;
  int size_ = 0;
  std::shared_ptr<const CType> elem_;                // every kind but Base and Tuple
  std::shared_ptr<const std::vector<CType>> elems_;  // Tuple
};

// The name of what a type stands for: usually the argument's name; torchgen's
// SpecialArgName.possibly_redundant_memory_format marks a memory_format argument of a function that
// also takes tensor options.
struct ArgName {
  enum class Special { None, PossiblyRedundantMemoryFormat };

  std::string name;  // empty when special
  Special special = Special::None;

  ArgName(std::string n) : name(std::move(n)) {}  // NOLINT: implicit by design
  ArgName(const char* n) : name(n) {}             // NOLINT
  static ArgName possiblyRedundantMemoryFormat() {
    ArgName a{std::string()};
    a.special = Special::PossiblyRedundantMemoryFormat;
    return a;
  }
  bool isSpecial() const { return special != Special::None; }
  // The name, or "SpecialArgName.possibly_redundant_memory_format" (torchgen's spelling).
  std::string str() const;
  bool operator==(const ArgName&) const = default;
  bool operator==(std::string_view s) const { return special == Special::None && name == s; }
};

// A C++ type plus what it means (torchgen's NamedCType): `bool pin_memory` is not any bool.
struct NamedCType {
  ArgName name;
  CType type;

  std::string cppType(bool stripRef = false, const Spelling& spelling = Spelling::of({})) const {
    return type.cppType(stripRef, spelling);
  }
  NamedCType removeConstRef() const { return NamedCType{name, type.removeConstRef()}; }
  NamedCType withName(std::string n) const { return NamedCType{std::move(n), type}; }
  bool operator==(const NamedCType& o) const { return name == o.name && type == o.type; }
};

// What a binding was made from: a schema argument, or the tensor options as a whole (the C++ API's
// `TensorOptions options`, and the native API's dtype/layout/device/pin_memory quadruple).
using ArgumentRef = std::variant<const model::Argument*, const model::TensorOptionsArguments*>;

// A formal parameter of some C++ API (torchgen's Binding).
struct Binding {
  std::string name;
  NamedCType nctype;
  ArgumentRef argument;
  std::optional<std::string> defaultValue;  // C++ default expression

  // The schema argument, or nullptr when the binding stands for the tensor options.
  const model::Argument* schemaArgument() const;
  // The tensor options, or nullptr when the binding stands for a schema argument.
  const model::TensorOptionsArguments* tensorOptions() const;

  std::string type(const Spelling& spelling = Spelling::of({})) const { return nctype.cppType(false, spelling); }
  // "TYPE NAME=DEFAULT"; with funcPtrCast only "TYPE".
  std::string decl(bool funcPtrCast = false, const Spelling& spelling = Spelling::of({})) const;
  // "TYPE NAME" (no default).
  std::string defn(const Spelling& spelling = Spelling::of({})) const;
  // decl() / defn() appended to `out`.
  void appendDecl(std::string& out, const Spelling& spelling = Spelling::of({})) const;
  void appendDefn(std::string& out, const Spelling& spelling = Spelling::of({})) const;
  Binding noDefault() const;
  Binding withName(std::string newName) const;  // torchgen's rename() and with_name()
};

// A C++ expression and what it provides (torchgen's Expr).
struct Expr {
  std::string expr;
  NamedCType type;

  static Expr of(const Binding& b) { return Expr{b.name, b.nctype}; }
};

// ", "-joined declarations / definitions / types / names / expressions (the usual argument lists).
std::string joinDecls(const std::vector<Binding>& bindings, const Spelling& spelling = Spelling::of({}));
std::string joinDefns(const std::vector<Binding>& bindings, const Spelling& spelling = Spelling::of({}));
std::string joinTypes(const std::vector<Binding>& bindings, const Spelling& spelling = Spelling::of({}));
std::string joinNames(const std::vector<Binding>& bindings);
std::string joinExprs(const std::vector<Expr>& exprs);

// ---------------------------------------------------------------------------------------------
// torchgen's grouped views of an argument list

// One element of torchgen's Arguments.positional / kwarg_only / non_out: a plain argument, self
// (torchgen's SelfArgument), or the tensor options (TensorOptionsArguments).
struct ArgumentItem {
  enum class Kind { Plain, Self, TensorOptions };
  Kind kind = Kind::Plain;
  const model::Argument* argument = nullptr;                     // Plain and Self
  const model::TensorOptionsArguments* tensorOptions = nullptr;  // TensorOptions
};

std::vector<ArgumentItem> positionalItems(const model::Arguments& args);
std::vector<ArgumentItem> kwargOnlyItems(const model::Arguments& args);
std::vector<ArgumentItem> nonOutItems(const model::Arguments& args);
std::vector<ArgumentItem> outItems(const model::Arguments& args);

}  // namespace opgen::api
