// `opgen python`: PyTorch's Python bindings of ATen, like torchgen's
// packaged/autograd/gen_python_functions.gen(out, native_yaml, tags_yaml, deprecated_yaml, template_dir).
// Loads the operators (with autogen's functions, as torchgen does), keeps those that get bindings,
// makes their Python signatures as methods and as functions, adds deprecated.yaml's signatures and
// writes the 14 files through the run's OutputDirs.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gen/FileManager.h"
#include "gen/Load.h"
#include "support/Diagnostics.h"
#include "support/PhaseTimer.h"

namespace opgen::gen {

struct PythonOptions {
  ModelFiles files;                           // the tags default to tags.yaml beside the native functions
  std::optional<std::string> deprecatedPath;  // default: deprecated.yaml beside the template folder
  std::string templateDir;                    // python_*.cpp, python_return_types.h, ...
  std::string outputDir;
  // How the template folder is named in "@generated from DIR/FILE"; default: templateDirForComments().
  std::optional<std::string> commentDir;
};

// torchgen writes the template folder relative to its own package (torchgen/), so that the comment
// does not depend on where the build happens. opgen does the same when the folder is inside, or
// beside, a folder named torchgen (PyTorch's layouts); otherwise it writes the folder as given.
std::string templateDirForComments(const std::string& templateDir);

struct PythonReport {
  int functions = 0;        // functions that get bindings
  int deprecated = 0;       // deprecated signatures (as functions)
  support::PhaseTimer timer;  // load, signatures, emit
};

// false when an error was reported; then no file is written.
bool runPython(const PythonOptions& options, OutputDirs& outputs, support::Diagnostics& diags, PythonReport& report);

}  // namespace opgen::gen
