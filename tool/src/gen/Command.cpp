#include "gen/Command.h"

#include <iostream>

namespace opgen::gen {

Outcome usageError(std::string_view command, std::string_view message) {
  std::cerr << "opgen " << command << ": error: " << message << " (see 'opgen " << command << " --help')\n";
  return Outcome{.status = 2, .retained = nullptr};
}

Outcome finished(const support::Diagnostics& diags, std::shared_ptr<void> retained) {
  return Outcome{.status = diags.hasErrors() ? 1 : 0, .retained = std::move(retained)};
}

bool printedUsage(const Invocation& invocation, std::string_view usage) {
  for (const std::string& a : invocation.args) {
    if (a != "-h" && a != "--help") continue;
    std::cout << usage;
    return true;
  }
  return false;
}

}  // namespace opgen::gen
