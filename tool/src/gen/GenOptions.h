// `opgen gen`'s command line: torchgen.gen's (torchgen 2.14.1, gen.py main()), parsed by gen/ArgParse with argparse's rules
// where users would notice them: long options may be abbreviated to an unambiguous prefix, values
// come as `--opt VALUE` or `--opt=VALUE` (`-sVALUE` for short options), `nargs="*"` options take
// every following non-option argument, `--generate` checks its choices, the last occurrence of an
// option wins, and anything unknown is refused.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/DispatchKey.h"
#include "support/Expected.h"

namespace opgen::gen {

struct GenOptions {
  std::string sourcePath = "aten/src/ATen";                               // -s: SRC/native/*.yaml, SRC/templates
  std::optional<std::string> outputDependencies;                          // -o FILE: CMake lists of the outputs
  bool dryRun = false;                                                    // record outputs, write none
  bool perOperatorHeaders = false;                                        // ATen/ops/*.h
  std::string installDir = "build/aten/src/ATen";                         // -d
  std::string aotiInstallDir = "torch/csrc/inductor/aoti_torch/generated";
  std::optional<std::string> headeronlyInstallDir;                        // default: INSTALL_DIR/core
  bool rocm = false;
  bool mps = false;
  bool xpu = false;
  bool mtia = false;
  // nargs="*" options: nullopt when absent; an empty list when given without values (which, as in
  // torchgen, selects no operator for the whitelist and filters nothing for the others).
  std::optional<std::vector<std::string>> opRegistrationWhitelist;
  std::optional<std::string> opSelectionYamlPath;
  std::optional<std::vector<std::string>> backendWhitelist;
  std::optional<std::vector<std::string>> staticDispatchBackend;
  bool skipDispatcherOpRegistration = false;
  bool forceSchemaRegistration = false;
  // Any of "headers", "sources", "declarations_yaml" (repeats allowed, an empty list generates nothing).
  std::vector<std::string> generate = {"headers", "sources", "declarations_yaml"};
  bool updateAotiCShim = false;
  bool extendAotiCShim = false;

  bool help = false;  // -h/--help was given: print genUsage() and stop

  bool generates(std::string_view what) const;
  // The static dispatch keys, parsed (valid after checkGenOptions()).
  std::vector<model::DispatchKey> staticDispatchKeys() const;
};

// Parses the arguments after `opgen gen`. On refusal the error is one line without a prefix, e.g.
// "unrecognized arguments: --foo", "argument --generate: invalid choice: 'x' (choose from 'headers',
// 'sources', 'declarations_yaml')", "ambiguous option: --in could match --install-dir, --install_dir".
support::Expected<GenOptions> parseGenCommandLine(const std::vector<std::string>& args);

// What torchgen's main() rejects after parsing: both --op-registration-whitelist and
// --op-selection-yaml-path, or an unknown --static-dispatch-backend key. Empty when fine.
std::optional<std::string> checkGenOptions(const GenOptions& options);

// `opgen gen --help`.
std::string genUsage();

}  // namespace opgen::gen
