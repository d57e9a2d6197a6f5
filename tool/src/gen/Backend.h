// `opgen backend`: torchgen's gen_backend_stubs (see gen/Backend.cpp).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/Types.h"
#include "support/Diagnostics.h"
#include "support/Expected.h"

namespace opgen::gen {

struct BackendOptions {
  // torchgen's
  std::string sourceYaml;                // -s: the backend YAML
  std::string outputDir;                 // -o
  bool dryRun = false;                   // --dry-run VALUE (Python's bool(VALUE))
  std::optional<std::string> implPath;   // --impl-path
  // opgen's
  std::string sourcePath = "aten/src/ATen";    // SRC/native/{native_functions,tags}.yaml
  std::optional<std::string> nativeFunctions;  // instead of SRC's
  std::optional<std::string> tags;
  bool skipMissingOperators = false;
  std::optional<std::string> includePrefix;  // the header's include path: PREFIX/<Key>NativeFunctions.h
  api::LibtorchChoice libtorch;  // --torch-version and --torch-facts (api/Types.h)
  bool listOutputs = false;
  std::optional<std::string> stamp, depfile;
  bool depfileOutputs = false;  // list the outputs in the depfile too (Makefiles: a deleted one re-runs)
  std::string templateDir;  // the plugin's templates/backend (set by the command, not an option)

  bool help = false;
};

// Parses the arguments after `opgen backend` (argparse's rules, gen/ArgParse.h).
support::Expected<BackendOptions> parseBackendCommandLine(const std::vector<std::string>& args);
// Runs; false when errors were reported. --list-outputs prints to `out`.
bool runBackend(const BackendOptions& options, support::Diagnostics& diags, std::ostream& out);
std::string backendUsage();

}  // namespace opgen::gen
