// opgen's entry point: the table of commands. Each command (gen/Command.h) reads its own arguments,
// prints what it prints and reports problems to the diagnostics printed here; only this file exits.
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "gen/Command.h"
#include "support/Diagnostics.h"

namespace {

using opgen::gen::Command;

// The commands, in the order `opgen --help` lists them. Adding one: a gen/NAME.cpp that defines its
// Command (declared in gen/Command.h), and its row here.
constexpr const Command* kCommands[] = {
    &opgen::gen::kParseCommand,
    &opgen::gen::kGenCommand,
    &opgen::gen::kLibraryCommand,
    &opgen::gen::kPythonCommand,
    &opgen::gen::kBackendCommand,
    &opgen::gen::kAutogradCommand,
};

std::string usage() {
  std::string text = "opgen: PyTorch operator code generation (torchgen 2.14.1, in C++)\n\nUsage:\n";
  for (const Command* command : kCommands) text += command->synopsis;
  text += R"(  opgen COMMAND --help   A command's options.
  opgen --help | -h      This text.
  opgen --version        The version.

Errors are printed as FILE:LINE:COL: error: MESSAGE; the exit status is 1 on any error and 2 on
a bad command line.
)";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << usage();
    return 2;
  }
  const std::string_view name = args[0];
  if (name == "-h" || name == "--help" || name == "help") {
    std::cout << usage();
    return 0;
  }
  if (name == "--version") {
    std::cout << "opgen " << OPGEN_VERSION << " (torchgen 2.14.1 compatible)\n";
    return 0;
  }
  for (const Command* command : kCommands) {
    if (command->name != name) continue;
    opgen::support::Diagnostics diags;
    const opgen::gen::Outcome outcome =
        command->run(opgen::gen::Invocation{{args.begin() + 1, args.end()}, argv[0]}, diags);
    std::cout.flush();
    std::cerr << diags.str();
    // std::exit, not return: what the outcome retains is left to the operating system.
    std::exit(outcome.status);
  }
  std::cerr << "opgen: error: unknown command '" << name << "' (see 'opgen --help')\n";
  return 2;
}
