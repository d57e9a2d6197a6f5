// What every fuzz target checks beyond "no crash, no leak, no undefined behaviour" (the sanitizers):
// the promises opgen makes about its errors. A broken promise aborts, which libFuzzer reports as a
// crash and saves the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "support/Diagnostics.h"

namespace opgen::fuzz {

[[noreturn]] inline void fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "opgen fuzz: %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Every diagnostic is one line (`FILE:LINE:COL: error: ...`, which editors and grep read), and a
// failed load reports at least one error.
inline void checkDiagnostics(const support::Diagnostics& diags, bool failed) {
  for (const support::Diagnostic& d : diags.all()) {
    const std::string line = d.str();
    if (line.find('\n') != std::string::npos || line.find('\r') != std::string::npos)
      fail("a diagnostic is more than one line", line);
  }
  if (failed && !diags.hasErrors()) fail("a load failed without an error", diags.str());
}

// A file the target reads once at start-up (a base the fuzzed input is read against).
inline std::string readBase(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read", path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace opgen::fuzz
