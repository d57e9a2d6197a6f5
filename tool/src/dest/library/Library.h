// The files of an operator library (`opgen library`, what add_operator_library builds), rendered from
// the plugin's own templates (templates/library/):
//
//   include/NS/Operators.h        NS::_ops::OP structs (LibraryApi.h)
//   include/NS/Functions.h        NS::op(...), the C++ API through the dispatcher
//   include/NS/NativeFunctions.h  the kernels every `dispatch:` entry names (torchgen's native API, in
//                                 the kernel's namespace, NS::native by default), the NS::meta
//                                 classes of structured operators and their impl classes
//   include/NS/ops/OP{_ops,,_native}.h
//                                 with per-operator headers: what the three headers above have for
//                                 the operators of root name OP; the three then only include these
//   src/Operators.cpp             the structs' call()/redispatch()
//   src/RegisterSchema.cpp        TORCH_LIBRARY(NS, m): every schema with its tags; the Autograd (and
//                                 ADInplaceOrView) registrations of operators without formulas
//                                 (api/LibraryPt2.h)
//   src/Register{Key}.cpp         for every registered key (sharded as Register{Key}_{i}.cpp): the
//                                 kernels' wrappers (torchgen's RegisterDispatchKey: device checks and
//                                 guards, structured kernels) and TORCH_LIBRARY_IMPL(NS, Key, m)
//   src/AutogenKernels.cpp        the kernels of the variants that `autogen:` adds (AutogenKernels.h)
//   python/NS/__init__.py{,i}     with --python-module: the typed Python package (LibraryPython.h)
//   python/NS/fake.py             with --python-fakes: the Python fake kernels (PythonPackage.h)
//   include/NS/aoti_shims.h, src/AotiShims.cpp, python/NS/aoti.py
//                                 with --aoti-shims: AOTInductor C shims (AotiShims.h)
// On the stable ABI (spec.stableAbi), the files of StableLibrary.h instead of the C++ ones above.
//
// Registration files also define an anchor symbol that RegisterSchema.cpp references, so that linking
// the library pulls in every registration (also from a static archive; see LibraryFiles::linkAnchor).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/LibraryStable.h"
#include "dest/common/Emit.h"
#include "model/Derivatives.h"

namespace opgen::dest {

struct LibrarySpec {
  std::string ns;                             // the operators' namespace
  std::vector<model::DispatchKey> registered;  // keys that get a Register{Key} file, in order
  int shards = 1;                             // Register{Key} files per key
  bool pythonModule = false;                  // also python/NS/__init__.py{,i} (dest/library/PythonPackage.h)
  std::optional<std::string> pythonLibraryPath;  // the library the Python package loads on import
  bool pythonFakes = false;                   // also python/NS/fake.py: the Python fake kernels file,
  std::string pythonFakesText;                //   with this text (PythonPackage.h)
  bool autograd = false;                      // derivatives.yaml given: src/RegisterAutograd.cpp (Autograd.h)
  bool perOperatorHeaders = false;            // also include/NS/ops/OP{_ops,,_native}.h, for each of:
  std::vector<std::string> operatorRoots;     //   the operators' root names (dest/common/OperatorRoots.h)
  std::vector<std::string> defaultTags;       // tags of every operator (api/LibraryPt2.h)
  std::vector<std::string> torchTags;         // at::Tag's enumerators in the libtorch (api/LibraryPt2.h)
  bool aotiShims = false;                     // AOTInductor C shims (dest/library/AotiShims.h)
  // On PyTorch's stable ABI of this release (dest/library/StableLibrary.h): its own headers and
  // registration files, no Operators.h, Operators.cpp or AutogenKernels.cpp.
  std::optional<api::StableAbi> stableAbi;
};

// Where a library's files go, below the output directory: the folders of its headers, its sources and
// its Python package (with spec.pythonModule), each written through a writer of its own.
std::string libraryHeaderDir(const std::string& ns);  // "include/NS/"
std::string librarySourceDir();                       // "src/"
std::string libraryPythonDir(const std::string& ns);  // "python/NS/"
struct LibraryWriters {
  Writer& headers;
  Writer& sources;
  Writer* python = nullptr;
};

// The keys a library registers: the composite keys (always: operators without `dispatch:` are
// CompositeImplicitAutograd), Meta (always: structured operators run on fake tensors through their
// meta function) and then the backends asked for, without repeats.
std::vector<model::DispatchKey> libraryRegisteredKeys(const std::vector<model::DispatchKey>& backends);

// What a library's build needs to know of it (what the CMake functions ask opgen): its namespace, the
// symbol (extern "C") whose reference pulls every registration of the library into a link, and its
// files below the output directory by kind ("include/NS/Functions.h", "src/RegisterCPU.cpp", ...).
// The one place that names them: the emitters write these files and no others.
struct LibraryFiles {
  std::string ns;
  std::string linkAnchor;
  std::vector<std::string> headers, sources, python;

  // Every file: headers, sources, then the Python package.
  std::vector<std::string> all() const;
};
LibraryFiles libraryFiles(const LibrarySpec& spec);

// With per-operator headers: whether every operator's headers have names of their own. An operator
// named like another's header (`foo_native` beside `foo`: ops/foo_native.h is both) is an error at
// its entry.
bool checkOperatorHeaderNames(const model::Operators& ops, support::Diagnostics& diags);

// Renders every file of libraryFiles(spec). Errors are reported to ctx.diags. `derivatives`: the
// formulas (with spec.autograd).
void emitLibrary(const EmitContext& ctx, const LibrarySpec& spec, const LibraryWriters& out,
                 const model::Derivatives* derivatives = nullptr);

// The first line of every file: "@generated by opgen from templates/library/NAME; do not edit".
std::string libraryGeneratedComment(std::string_view templateName);

}  // namespace opgen::dest
