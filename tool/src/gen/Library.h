// `opgen library`: the sources and headers of an operator library (what the CMake function
// add_operator_library runs at build time), from the library's native_functions.yaml and the plugin's
// templates (templates/library). See dest/library/Library.h for the files.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/LibraryStable.h"
#include "api/Types.h"
#include "model/DispatchKey.h"
#include "support/Diagnostics.h"
#include "support/Expected.h"

namespace opgen::gen {

struct LibraryOptions {
  std::string yamlPath;
  std::optional<std::string> tagsPath;       // default: tags.yaml beside the yaml, if any
  std::optional<std::string> ns;             // default: the namespace the yaml's operators use
  std::vector<model::DispatchKey> backends;  // keys registered besides the composite ones
  std::string outputDir;
  std::string templateDir;
  int shards = 1;
  // The libtorch the code is compiled against: --torch-version and --torch-facts (api/Types.h).
  api::LibtorchChoice libtorch;
  std::vector<std::string> defaultTags;      // --default-tag: tags of every operator
  bool pythonModule = false;                 // also the typed Python package python/NS/
  bool perOperatorHeaders = false;           // also include/NS/ops/OP{_ops,,_native}.h
  bool aotiShims = false;                    // also AOTInductor C shims (dest/library/AotiShims.h)
  std::optional<std::string> derivativesPath;  // derivatives.yaml: also src/RegisterAutograd.cpp
  std::optional<std::string> pythonLibraryPath;  // the shared library that package loads on import
  std::optional<std::string> pythonFakes;    // the Python fake kernels file the package imports
  std::optional<api::StableAbi> stableAbi;   // --stable-abi X.Y: on PyTorch's stable ABI (api/LibraryStable.h)
  bool describe = false;                     // print the namespace, link anchor and files (JSON) and stop
  std::optional<std::string> depfile;        // Makefile-syntax dependencies of the stamp
  std::optional<std::string> stamp;          // touched after every successful run
  bool depfileOutputs = false;               // list the outputs in the depfile too (Makefiles: a
                                             // deleted output then re-runs the command)
  // --check-kernels FILE...: generate nothing; check that these objects, archives and shared
  // libraries define every kernel the library's registration calls (dest/library/KernelCheck.h).
  std::optional<std::vector<std::string>> checkKernels;
  bool help = false;
};

// `opgen library --help`.
std::string libraryUsage();

// The options of `opgen library ARGS...` (ARGS without the command); an error names the problem.
// `defaultTemplateDir` is used when --templates is not given.
support::Expected<LibraryOptions> parseLibraryCommandLine(const std::vector<std::string>& args,
                                                          const std::string& defaultTemplateDir);

// Runs the command; false after reporting errors (then no output file was changed).
bool runLibrary(const LibraryOptions& options, support::Diagnostics& diags, std::ostream& out);

}  // namespace opgen::gen
