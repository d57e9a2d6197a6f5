// The link-time check of an operator library's kernels (`opgen library --check-kernels`, run by
// add_operator_library before the library is linked): every kernel that the generated registration
// calls must be defined by the library's objects (or by what else is given), else the build stops
// with one error per kernel at its YAML entry, instead of a library with undefined symbols.
//
// The objects themselves say what is missing: a kernel's call in Register{Key}.o is an undefined
// symbol, spelled by the compiler that compiled the kernels (whatever the libtorch and the compiler
// call the types: `long` or `long long` for int64_t, c10::optional or std::optional), and a
// definition resolves it only when the mangled names are equal, which is the linker's own rule. opgen
// only maps each unresolved symbol back to its kernel, by its demangled name, and says what the
// definition should be (the signature NativeFunctions.h declares) and what was defined instead
// under that name.
#pragma once

#include <string>
#include <vector>

#include "api/LibraryStable.h"
#include "dest/common/Emit.h"
#include "support/ObjectSymbols.h"

namespace opgen::dest {

// A kernel of the library as a symbol its registration refers to.
struct LibraryKernel {
  const model::NativeFunction* function = nullptr;  // the YAML entry that names it
  std::string what;       // "kernel 'nms_cpu' (CPU)", "meta function 'scale_add'"
  std::string qualified;  // the demangled name without parameters: "vision::native::nms_cpu"
  std::string expected;   // the definition's head to write, with its namespace
  std::vector<std::string> parameterTypes;  // as the expectation spells them
};

// Every kernel the library's NativeFunctions.h declares (each once, the dispatch keys that use it
// joined), in the YAML's order, except those in PyTorch's own namespaces (at::, c10::, torch::),
// which libtorch defines, and those of the variants `autogen:` adds, which the library's generated
// src/AutogenKernels.cpp defines. Errors (a kernel without a signature) are reported.
std::vector<LibraryKernel> libraryKernels(const EmitContext& ctx);
// The same for a library on the stable ABI of `abi` (api/LibraryStable.h): the kernels on the stable
// types, as its NativeFunctions.h declares them.
std::vector<LibraryKernel> libraryStableKernels(const EmitContext& ctx, api::StableAbi abi);

// A file's symbols (support::readObjectSymbols) and its path.
struct SymbolFile {
  std::string path;
  support::ObjectSymbols symbols;
};

// Reports, at its entry, each kernel that some object refers to and no file defines:
//   FILE:LINE:COL: error: in 'OP': kernel 'K' (KEY) is declared but not defined; expected: DEFINITION[; found instead: ...]
// "found instead": the functions of that name the files define (or keep to one object) with other
// parameters. After any error, a note at `yaml` says where opgen looked. When a file's symbols
// cannot be known (LTO objects), nothing is checked and one warning says why.
void checkLibraryKernels(const std::vector<LibraryKernel>& kernels, const std::vector<SymbolFile>& files,
                         const support::SourceLoc& yaml, support::Diagnostics& diags);

}  // namespace opgen::dest
