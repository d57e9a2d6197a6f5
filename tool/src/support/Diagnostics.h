// Diagnostics: errors as values. Every layer reports problems here with a source location; only
// main decides what to print and which exit status to return.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace opgen::support {

// A position in an input file. Lines and columns count from 1; 0 means "unknown".
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;

  // "FILE:LINE:COL", "FILE:LINE" or "FILE", as much as is known.
  std::string str() const;
  // The same location moved right by `chars` columns (for errors inside a scalar).
  SourceLoc shifted(int chars) const;
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;

  // "FILE:LINE:COL: error: MESSAGE" (one line, compilers' and editors' format: control characters,
  // which a message quoting the input may hold, are escaped, a newline as \n).
  std::string str() const;
};

// The message of every error about one operator: "in 'OPERATOR': MESSAGE" (torchgen's
// native_function_manager context, which names the function in any error raised inside it).
std::string aboutOperator(std::string_view op, std::string_view message);

// Collects diagnostics in the order they were reported. Reporting is thread-safe.
class Diagnostics {
 public:
  Diagnostics() = default;
  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;
  // Moving takes the other's diagnostics (not while it is being reported to).
  Diagnostics(Diagnostics&& other) noexcept
      : items_(std::move(other.items_)), seen_(std::move(other.seen_)), errorCount_(other.errorCount_) {}

  void error(SourceLoc loc, std::string message);
  // error(loc, aboutOperator(op, message)).
  void errorAbout(SourceLoc loc, std::string_view op, std::string_view message);
  void warning(SourceLoc loc, std::string message);
  void note(SourceLoc loc, std::string message);

  bool hasErrors() const { return errorCount() > 0; }
  int errorCount() const;
  // Not to be called while other threads report.
  const std::vector<Diagnostic>& all() const { return items_; }
  // Appends another collection's diagnostics, in their order.
  void append(const Diagnostics& other);
  // Orders the diagnostics by file, line, column and message (after concurrent reporting).
  void sortByLocation();
  // Every diagnostic, one per line.
  std::string str() const;

 private:
  void add(Diagnostic d);

  mutable std::mutex mutex_;
  std::vector<Diagnostic> items_;
  std::unordered_set<std::string> seen_;  // str() of each reported diagnostic
  int errorCount_ = 0;
};

}  // namespace opgen::support
