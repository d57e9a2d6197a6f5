// The symbols of compiled code as a linker sees them, read from the files themselves (no nm): ELF
// relocatable objects (.o), ar archives of them (.a) and ELF shared objects (.so, their dynamic
// symbols); and C++ symbol names made readable (demangled) and taken apart. What the build's kernel
// check (`opgen library --check-kernels`) compares: a name the library's objects reference and none
// of the files defines is a symbol the linker would leave undefined.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/Expected.h"

namespace opgen::support {

// The symbols of one file (of every member of an archive), by mangled name, in file order.
struct ObjectSymbols {
  // A function the file keeps to itself (a `static` one, or one in an anonymous namespace), and the
  // object (or archive member) that has it.
  struct Local {
    std::string name;
    std::string object;
  };
  std::vector<std::string> defined;    // global and weak definitions (a shared object's exported ones)
  std::vector<std::string> undefined;  // references to other files (relocatable objects only)
  std::vector<Local> localFunctions;
  // Set when the file's symbols cannot be known from the file (a GCC LTO object, LLVM bitcode, a
  // thin archive): why, naming the object. The lists are then incomplete.
  std::optional<std::string> unreadable;
};

// Reads an ELF relocatable object, shared object, or an ar archive of relocatable objects. Errors
// (a missing file, a truncated or malformed one) are values, without the path; a file of another
// format is `unreadable`.
Expected<ObjectSymbols> readObjectSymbols(const std::string& path);
// The same, from the file's bytes (`path` names it in messages).
Expected<ObjectSymbols> readObjectSymbols(std::string_view bytes, const std::string& path);

// The C++ name of an Itanium-ABI mangled symbol ("_ZN6vision6native3fooEd" -> "vision::native::foo(double)"),
// or nothing when `mangled` is not a C++ name.
std::optional<std::string> demangle(const std::string& mangled);

// A demangled function's name, taken apart.
struct DemangledFunction {
  std::string qualified;   // "vision::native::foo": without return type, template arguments, parameters
  std::string base;        // "foo"
  std::string parameters;  // "(double, at::Tensor const&)"
  std::vector<std::string> parameterTypes;  // {"double", "at::Tensor const&"}
  int arity() const { return static_cast<int>(parameterTypes.size()); }
};
// Nothing when `demangled` is not a function ("vtable for X", a variable).
std::optional<DemangledFunction> parseDemangledFunction(std::string_view demangled);

}  // namespace opgen::support
