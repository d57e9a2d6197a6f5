// An opgen command, `opgen NAME ARGS...`. Each command is one file gen/NAME.cpp with its options, its
// usage and its run, and defines its Command; tool/src/main.cpp lists them in one table.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/Diagnostics.h"

namespace opgen::gen {

// What a command gets.
struct Invocation {
  std::vector<std::string> args;  // after the command's name
  std::string executable;         // argv[0], to find what is installed beside opgen
};

// What a command gives back. main prints the diagnostics after whatever the command printed, and
// exits with `status`; what `retained` holds (a run's model and records) is left to the operating
// system, which frees it faster than its destructors would.
struct Outcome {
  int status = 0;  // 0: success; 1: errors were reported; 2: a bad command line
  std::shared_ptr<void> retained;
};

struct Command {
  std::string_view name;
  std::string_view synopsis;  // its lines in `opgen --help`
  Outcome (*run)(const Invocation& invocation, support::Diagnostics& diags);
};

// A bad command line: "opgen COMMAND: error: MESSAGE (see 'opgen COMMAND --help')" on standard error,
// status 2.
Outcome usageError(std::string_view command, std::string_view message);
// The end of a run: status 1 when errors were reported, else 0.
Outcome finished(const support::Diagnostics& diags, std::shared_ptr<void> retained = nullptr);

// Whether the arguments ask for the command's usage (-h or --help, anywhere); it is then printed on
// standard output.
bool printedUsage(const Invocation& invocation, std::string_view usage);

extern const Command kParseCommand;    // gen/Parse.cpp
extern const Command kGenCommand;      // gen/Gen.cpp
extern const Command kLibraryCommand;  // gen/Library.cpp
extern const Command kPythonCommand;   // gen/Python.cpp
extern const Command kBackendCommand;  // gen/Backend.cpp
extern const Command kAutogradCommand;  // gen/Autograd.cpp

}  // namespace opgen::gen
