// How long the steps of a run took (wall time), the one way every command measures and prints it
// (`--timings`, OPGEN_TIMINGS=1): on standard error, never in an output.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opgen::support {

// Milliseconds since it was made (or restarted).
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double ms() const { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count(); }
  void restart() { start_ = std::chrono::steady_clock::now(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

// The steps of a run, in order, each with its wall time in milliseconds.
class PhaseTimer {
 public:
  // Ends the step that started at the last lap (or when the timer was made), named `name`.
  void lap(std::string name) {
    steps_.emplace_back(std::move(name), clock_.ms());
    clock_.restart();
  }
  // A step timed on its own (on another thread), recorded in this order.
  void add(std::string name, double ms) { steps_.emplace_back(std::move(name), ms); }
  // The time since the last lap belongs to no step.
  void skip() { clock_.restart(); }

  const std::vector<std::pair<std::string, double>>& steps() const { return steps_; }
  // "opgen COMMAND:    12.3 ms  STEP" for each step, then the total.
  void print(std::ostream& out, std::string_view command) const;

 private:
  Stopwatch clock_;
  std::vector<std::pair<std::string, double>> steps_;
};

}  // namespace opgen::support
