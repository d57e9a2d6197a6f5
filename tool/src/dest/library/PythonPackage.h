// The Python package of an operator library (`opgen library --python-module`), rendered from
// templates/library/python_init.py and python_init.pyi:
//
//   python/NS/__init__.py   one typed function per operator (api/LibraryPython.h) calling
//                           torch.ops.NS, load_library(path), and loading the library on import from
//                           $OPGEN_<NS>_LIBRARY or the path given at generation time
//   python/NS/__init__.pyi  the functions' stubs, for editors and type checkers
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dest/common/Emit.h"

namespace opgen::dest {

// The package's files, in its folder (python/NS/, dest/library/Library.h).
std::vector<std::string> libraryPythonFiles();

// The environment variable that names the library to load on import: OPGEN_<NS upper-cased>_LIBRARY.
std::string libraryPythonEnvironmentVariable(const std::string& ns);

// Renders both files through `out`, a writer rooted at the package's folder. `libraryPath`: the shared
// library that `import NS` loads when the environment does not name one. Errors go to ctx.diags.
void emitLibraryPython(const EmitContext& ctx, const std::string& ns, const std::optional<std::string>& libraryPath,
                       Writer& out);

}  // namespace opgen::dest
