// `opgen autograd`: ATen's autograd code, like torchgen's packaged/autograd/gen_autograd.py
// (python -m torchgen.packaged.autograd.gen_autograd NATIVE TAGS OUT AUTOGRAD_DIR) and
// gen_annotated_fn_args.py (the same arguments). AUTOGRAD_DIR holds derivatives.yaml, deprecated.yaml
// and templates/.
//
// Every file gen_autograd writes, byte for byte (and with --python gen_autograd_python's).
#pragma once

#include <optional>
#include <string>

#include "gen/FileManager.h"
#include "gen/Load.h"
#include "support/Diagnostics.h"
#include "support/PhaseTimer.h"

namespace opgen::gen {

struct AutogradOptions {
  ModelFiles files;        // NATIVE and TAGS
  std::string outputDir;   // OUT
  std::string autogradDir; // AUTOGRAD_DIR
  // Write what gen_annotated_fn_args writes (annotated_fn_args.py) instead of gen_autograd's files.
  bool annotatedFnArgs = false;
  // Also write what gen_autograd_python writes when it runs after gen_autograd in the same process
  // (PyTorch's generate_code): python_functions.h, python_functions_0..4.cpp and the Python bindings.
  bool python = false;
  // How the template folder is named in "@generated from DIR/FILE"; default: templateDirForComments().
  std::optional<std::string> commentDir;
};

struct AutogradReport {
  int functions = 0;          // native functions read (with autogen's)
  support::PhaseTimer timer;  // load, emit
};

// false when an error was reported; then no file is written.
bool runAutograd(const AutogradOptions& options, OutputDirs& outputs, support::Diagnostics& diags,
                 AutogradReport& report);

}  // namespace opgen::gen
