// The public C++ API (at::add, Tensor::add): torchgen's api/cpp.py. Tensor options are folded into
// one TensorOptions argument (except in the "faithful" variant), out arguments come first (except in
// the faithful variant), and defaults live here.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/Types.h"

namespace opgen::api::cpp {

// at::NAME: "add", "add_", "add_out" / "add_outf" (faithful), "zeros_symint".
std::string name(const model::FunctionSchema& func, bool faithfulNameForOutOverloads = false,
                 bool symintOverload = false);

// The C++ type of a value type (types that look the same as arguments and returns); nullopt for the
// others (Tensor, Scalar, and lists other than bool[N]).
std::optional<NamedCType> valuetypeType(const model::Type& t, const ArgName& binds, bool symint = false);

// The C++ type of an argument type. removeNonOwningRefTypes gives owning types (::std::vector<int64_t>
// for int[], at::Tensor for Tensor) at the top level.
NamedCType argumenttypeType(const model::Type& t, bool isMutable, const ArgName& binds, const Options& options,
                            bool removeNonOwningRefTypes = false, bool symint = false);
NamedCType argumentType(const model::Argument& a, const ArgName& binds, const Options& options, bool symint = false);

// Return types. SymInt returns are always c10::SymInt (torchgen ignores `symint` for returns).
CType returntypeType(const model::Type& t, bool isMutable, const Options& options);
CType returnType(const model::Return& r, const Options& options);
// void, the single return's type, or ::std::tuple<...>.
CType returnsType(const std::vector<model::Return>& returns, const Options& options);

// The C++ names of the returns ("self" for in-place functions, the out arguments' names for out=
// functions, the schema's names, or fallbackName / fallbackName0, fallbackName1, ...).
std::vector<std::string> returnNames(const model::NativeFunction& f, std::string_view fallbackName = "result");

// The C++ expression for a schema default ("None" -> "::std::nullopt", "[1,2]" -> "{1,2}", ...).
std::string defaultExpr(std::string_view d, const model::Type& t, bool symint,
                        const Spelling& spelling = Spelling::of({}));

// Which C++ API flavour (torchgen's keyword arguments of cpp.arguments).
struct Flavor {
  bool faithful = false;  // follow the schema: no TensorOptions, out arguments last, no defaults
  bool symint = false;    // SymInt as c10::SymInt (else int64_t)
  bool method = false;    // Tensor::NAME: self is implicit
};

// The bindings of one argument item (none for self in a method, four for faithful tensor options).
std::vector<Binding> argument(const ArgumentItem& a, const Flavor& flavor,
                              const std::set<std::string>& cppNoDefaultArgs, bool hasTensorOptions,
                              const Options& options);
// One schema argument (torchgen's cpp.argument on an Argument).
Binding argument(const model::Argument& a, bool symint, const std::set<std::string>& cppNoDefaultArgs,
                 bool hasTensorOptions, const Options& options);
// Every binding of a C++ API signature.
std::vector<Binding> arguments(const model::Arguments& args, const Flavor& flavor,
                               const std::set<std::string>& cppNoDefaultArgs, const Options& options);

// What torchgen cannot translate into C++ at all (where it raises): types without a C++ spelling
// (GraphModule, custom classes, bool[] without a size), list defaults that are not lists, and returns
// that are mutable lists, fixed-size lists or optionals of non-tensors. nullopt when all is well.
// The other functions here still return something for such schemas (a type spelled
// "__unsupported__"), so callers should check first and report.
std::optional<std::string> checkSupported(const model::FunctionSchema& func);
// The same for one argument, its type alone, or one return (the message without the "argument 'NAME': "
// prefix).
std::optional<std::string> checkSupported(const model::Type& argumentType);
std::optional<std::string> checkSupported(const model::Argument& a);
std::optional<std::string> checkSupported(const model::Return& r);

}  // namespace opgen::api::cpp
