// What every fuzz target checks beyond "no crash, no leak, no undefined behaviour" (the sanitizers):
// the promises opgen makes about its errors. A broken promise aborts, which libFuzzer reports as a
// crash and saves the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "model/Loader.h"
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

// The base a target reads its input against, loaded once at start-up (call these from a
// function-local static); a base that does not load ends the run.
//   the tags.yaml at `path`
inline std::set<std::string> loadBaseTags(const char* path) {
  support::Diagnostics diags;
  auto tags = model::loadTags(path, readBase(path), diags);
  if (!tags) fail("cannot load the base tags", diags.str());
  return std::move(*tags);
}
//   the native_functions.yaml at `path`, with the tags at `tagsPath` (none when null), as `options` say
inline model::Operators loadBaseOperators(const char* path, const char* tagsPath, const model::LoadOptions& options) {
  support::Diagnostics diags;
  const std::set<std::string> tags = tagsPath != nullptr ? loadBaseTags(tagsPath) : std::set<std::string>{};
  auto loaded = model::loadNativeFunctions(path, readBase(path), tags, options, diags);
  if (!loaded) fail("cannot load the base operators", diags.str());
  return std::move(*loaded);
}

}  // namespace opgen::fuzz
