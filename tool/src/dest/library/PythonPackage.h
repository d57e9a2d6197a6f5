// The Python package of an operator library (`opgen library --python-module`), rendered from
// templates/library/python_init.py and python_init.pyi:
//
//   python/NS/__init__.py   one typed function per operator (api/LibraryPython.h) calling
//                           torch.ops.NS, load_library(path), and loading the library on import from
//                           $OPGEN_<NS>_LIBRARY or the path given at generation time
//   python/NS/__init__.pyi  the functions' stubs, for editors and type checkers
//   python/NS/fake.py       with Python fake kernels (--python-fakes): the user's file, as written;
//                           __init__.py imports it once the library is loaded (on a PyTorch with
//                           fake tensors), and checks that the operators whose entry says
//                           `fake: python` got a fake kernel from it, and no other operator did
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dest/common/Emit.h"

namespace opgen::dest {

// The package's files, in its folder (python/NS/, dest/library/Library.h); `fakes`: with the Python
// fake kernels file.
std::vector<std::string> libraryPythonFiles(bool fakes);

// The Python module that registers the fake kernels of the operators whose entry says `fake: python`
// ("NS.fake"): the registration names it (set_python_module), and PyTorch checks that their
// torch.library.register_fake calls come from it.
std::string libraryPythonFakesModule(const std::string& ns);

// The environment variable that names the library to load on import: OPGEN_<NS upper-cased>_LIBRARY.
std::string libraryPythonEnvironmentVariable(const std::string& ns);

// Renders the files through `out`, a writer rooted at the package's folder. `libraryPath`: the shared
// library that `import NS` loads when the environment does not name one; `fakes`: the text of the
// Python fake kernels file, if any. Errors go to ctx.diags.
void emitLibraryPython(const EmitContext& ctx, const std::string& ns, const std::optional<std::string>& libraryPath,
                       const std::optional<std::string>& fakes, Writer& out);

}  // namespace opgen::dest
