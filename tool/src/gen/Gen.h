// `opgen gen`: torchgen.gen's job (gen.py main()). Loads SRC/native/native_functions.yaml and
// tags.yaml, builds the run's context (selector, dispatch keys in torchgen's order after --mps, --xpu,
// --mtia and --backend-whitelist, static dispatch indices, groups), runs every output family that
// --generate and the mode ask for, and writes the --output-dependencies lists.
//
// The output families are listed in one table in Gen.cpp, in torchgen's order. A family is an
// emitter in dest/aten/ (`void emitX(const dest::EmitContext&, const dest::Writers&)`).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "gen/FileManager.h"
#include "gen/GenOptions.h"
#include "support/Diagnostics.h"
#include "support/PhaseTimer.h"

namespace opgen::gen {

struct GenReport {
  std::vector<std::string> emittedFamilies;
  // Wall time of each step: "load", then every family, "output lists".
  support::PhaseTimer timer;
  // The run's model, file managers and caches, which the outputs no longer need: freed with the
  // report, or left to the OS by a process that exits (see main.cpp).
  std::shared_ptr<void> retained;
};

// Runs `opgen gen` with options that parseGenCommandLine() and checkGenOptions() accepted. Every
// output (also the --output-dependencies lists) goes through `outputs`. false when an error was
// reported; like torchgen, files written before the error stay.
bool runGen(const GenOptions& options, OutputDirs& outputs, support::Diagnostics& diags, GenReport& report);

// The output families, in torchgen's order: name and the --generate value that produces it.
struct FamilyInfo {
  std::string_view name;
  std::string_view generate;  // "sources", "headers" or "declarations_yaml"
};
std::vector<FamilyInfo> genFamilies();

}  // namespace opgen::gen
