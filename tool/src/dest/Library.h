// The files of an operator library (`opgen library`, what add_operator_library builds), rendered from
// the plugin's own templates (templates/library/):
//
//   include/NS/Operators.h        NS::_ops::OP structs (LibraryApi.h)
//   include/NS/Functions.h        NS::op(...), the C++ API through the dispatcher
//   include/NS/NativeFunctions.h  the kernels every `dispatch:` entry names (torchgen's native API, in
//                                 the kernel's namespace, NS::native by default), the NS::meta
//                                 classes of structured operators and their impl classes
//   src/Operators.cpp             the structs' call()/redispatch()
//   src/RegisterSchema.cpp        TORCH_LIBRARY(NS, m): every schema
//   src/Register{Key}.cpp         for every registered key (sharded as Register{Key}_{i}.cpp): the
//                                 kernels' wrappers (torchgen's RegisterDispatchKey: device checks and
//                                 guards, structured kernels) and TORCH_LIBRARY_IMPL(NS, Key, m)
//   python/NS/__init__.py{,i}     with --python-module: the typed Python package (LibraryPython.h)
//
// Registration files also define an anchor symbol that RegisterSchema.cpp references, so that linking
// the library pulls in every registration (also from a static archive; see libraryAnchorSymbol).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dest/Emit.h"

namespace opgen::dest {

struct LibrarySpec {
  std::string ns;                             // the operators' namespace
  std::vector<model::DispatchKey> registered;  // keys that get a Register{Key} file, in order
  int shards = 1;                             // Register{Key} files per key
  bool pythonModule = false;                  // also python/NS/__init__.py{,i} (dest/LibraryPython.h)
  std::optional<std::string> pythonLibraryPath;  // the library the Python package loads on import
};

// Where a library's files go: headers under include/NS, sources under src.
struct LibraryWriters {
  Writer& headers;
  Writer& sources;
  Writer* python = nullptr;  // python/NS/ (spec.pythonModule)
};

// The keys a library registers: the composite keys (always: operators without `dispatch:` are
// CompositeImplicitAutograd) and then the backends asked for, without repeats.
std::vector<model::DispatchKey> libraryRegisteredKeys(const std::vector<model::DispatchKey>& backends);

// Every file's path below the output directory ("include/NS/Functions.h", "src/RegisterCPU.cpp").
std::vector<std::string> libraryOutputs(const LibrarySpec& spec);

// The symbol (extern "C") whose reference pulls every registration of the library into a link.
std::string libraryAnchorSymbol(const std::string& ns);

// Renders every file of libraryOutputs(spec). Errors are reported to ctx.diags.
void emitLibrary(const EmitContext& ctx, const LibrarySpec& spec, const LibraryWriters& out);

}  // namespace opgen::dest
