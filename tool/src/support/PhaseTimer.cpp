#include "support/PhaseTimer.h"

#include <cstdio>

namespace opgen::support {

void PhaseTimer::print(std::ostream& out, std::string_view command) const {
  auto line = [&](double ms, std::string_view name) {
    char number[32];
    std::snprintf(number, sizeof number, "%8.1f", ms);
    out << "opgen " << command << ": " << number << " ms  " << name << '\n';
  };
  double total = 0;
  for (const auto& [name, ms] : steps_) {
    line(ms, name);
    total += ms;
  }
  line(total, "total");
}

}  // namespace opgen::support
