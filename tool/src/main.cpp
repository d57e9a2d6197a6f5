// opgen's command line: parses arguments and hands over to a driver in gen/. Nothing else lives here.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <filesystem>

#include "gen/Gen.h"
#include "gen/GenOptions.h"
#include "gen/Library.h"
#include "gen/Parse.h"
#include "gen/PythonGen.h"
#include "support/OutputSink.h"
#include "support/Diagnostics.h"

namespace {

constexpr std::string_view kUsage = R"(opgen: PyTorch operator code generation (torchgen 2.14.1, in C++)

Usage:
  opgen parse NATIVE_FUNCTIONS_YAML [--tags TAGS_YAML] [--skip-autogen] [-o OUT.json] [--timings]
        Check a native_functions.yaml and print its model as JSON (see README.md).
        TAGS_YAML defaults to tags.yaml beside the native functions file.
  opgen gen [-s SRC] [-d INSTALL_DIR] [-o DEPS] [--per-operator-headers] [...]
        Generate ATen's sources like `python -m torchgen.gen`, with the same command line and the
        same files; `opgen gen --help` lists the options.
  opgen library YAML -o OUTPUT_DIR [--backend KEY]... [--namespace NS] [...]
        Generate an operator library's registration, kernel declarations and C++ API (what the
        CMake function add_operator_library runs); `opgen library --help` lists the options.
  opgen python --native-functions NATIVE_FUNCTIONS_YAML --templates DIR -o OUT [--tags TAGS_YAML]
               [--deprecated DEPRECATED_YAML] [--comment-dir TEXT] [--timings]
        Generate PyTorch's Python bindings (python_torch_functions_N.cpp, python_variable_methods.cpp,
        ...) like torchgen's gen_python_functions.gen; the templates are read from DIR.
        TAGS_YAML defaults to tags.yaml beside the native functions file, DEPRECATED_YAML to
        deprecated.yaml beside DIR; TEXT names DIR in the @generated comments (see README.md).
  opgen --help | -h      This text.
  opgen --version        The version.

Errors are printed as FILE:LINE:COL: error: MESSAGE; the exit status is 1 on any error and 2 on
a bad command line.
)";

// With --timings: how long each phase took, on stderr (never in outputs).
class PhaseTimer {
 public:
  explicit PhaseTimer(bool enabled) : enabled_(enabled), last_(std::chrono::steady_clock::now()) {}
  void phase(const char* name) {
    auto now = std::chrono::steady_clock::now();
    if (enabled_)
      std::cerr << "opgen: " << name << ": "
                << std::chrono::duration_cast<std::chrono::microseconds>(now - last_).count() / 1000.0 << " ms\n";
    last_ = now;
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_;
};

int usageError(const std::string& message) {
  std::cerr << "opgen: " << message << "\nTry 'opgen --help'.\n";
  return 2;
}

int reportAndExit(const opgen::support::Diagnostics& diags) {
  std::cerr << diags.str();
  return diags.hasErrors() ? 1 : 0;
}

int runParse(const std::vector<std::string>& args) {
  opgen::gen::ParseOptions options;
  std::string outPath;
  bool timings = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= args.size()) return false;
      into = args[++i];
      return true;
    };
    if (a == "--tags") {
      std::string v;
      if (!value(v)) return usageError("--tags needs a file");
      options.tagsPath = v;
    } else if (a == "-o" || a == "--output") {
      if (!value(outPath)) return usageError(a + " needs a file");
    } else if (a == "--timings") {
      timings = true;
    } else if (a == "--skip-autogen") {
      options.skipNativeFunctionsGen = true;
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usageError("parse: unknown option '" + a + "'");
    } else if (options.nativeFunctionsPath.empty()) {
      options.nativeFunctionsPath = a;
    } else {
      return usageError("parse: unexpected argument '" + a + "'");
    }
  }
  if (options.nativeFunctionsPath.empty()) return usageError("parse: missing NATIVE_FUNCTIONS_YAML");
  opgen::support::Diagnostics diags;
  PhaseTimer timer(timings);
  auto ops = opgen::gen::loadModel(options, diags);
  timer.phase("load");
  if (!ops) return reportAndExit(diags);
  auto model = opgen::gen::describeModel(*ops);
  timer.phase("describe");
  std::string text = model.dump(1) + "\n";
  timer.phase("dump");
  if (outPath.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return reportAndExit(diags);
  }
  auto dir = std::filesystem::path(outPath).parent_path();
  opgen::support::DirectorySink sink(dir.empty() ? "." : dir, diags);
  if (sink.write(std::filesystem::path(outPath).filename().string(), text)) {
    const auto& counts = model["counts"];
    std::cerr << "opgen: wrote " << outPath << ": the model of " << options.nativeFunctionsPath << ", "
              << counts["native_functions"] << " native functions, " << counts["groups"] << " groups, "
              << counts["view_groups"] << " view groups, " << model["backend_indices"].size() << " dispatch keys\n";
  }
  return reportAndExit(diags);
}

int runGen(const std::vector<std::string>& args) {
  auto options = opgen::gen::parseGenCommandLine(args);
  std::optional<std::string> problem;
  if (!options) problem = options.error().message;
  else if (options->help) {
    std::cout << opgen::gen::genUsage();
    return 0;
  } else {
    problem = opgen::gen::checkGenOptions(*options);
  }
  if (problem) {
    std::cerr << "opgen gen: error: " << *problem << " (see 'opgen gen --help')\n";
    return 2;
  }
  opgen::support::Diagnostics diags;
  opgen::gen::DiskOutputDirs outputs(diags);
  opgen::gen::GenReport report;
  opgen::gen::runGen(*options, outputs, diags, report);
  for (const std::string& line : outputs.printed()) std::cout << line << '\n';
  std::cout.flush();
  // OPGEN_TIMINGS=1: where the time went (an environment variable, so the command line stays torchgen's).
  if (const char* t = std::getenv("OPGEN_TIMINGS"); t != nullptr && *t != '\0' && std::string_view(t) != "0") {
    double total = 0;
    for (const auto& [name, ms] : report.timings) {
      std::fprintf(stderr, "opgen gen: %8.1f ms  %s\n", ms, name.c_str());
      total += ms;
    }
    std::fprintf(stderr, "opgen gen: %8.1f ms  total\n", total);
  }
  if (!report.skippedFamilies.empty()) {
    std::string names;
    for (const std::string& name : report.skippedFamilies) names += (names.empty() ? "" : ", ") + name;
    std::cerr << "opgen gen: warning: skipped " << report.skippedFamilies.size()
              << " output families that opgen does not implement yet: " << names << "\n";
  }
  // Exits here rather than returning: the run's memory (report.retained, the records of the outputs)
  // is left to the OS, which frees it faster than ~10 ms of destructors would.
  std::exit(reportAndExit(diags));
}

// The plugin's library templates: installed beside the executable (PREFIX/bin/opgen,
// PREFIX/share/opgen/templates/library), or the source tree's for a build-tree opgen.
std::string defaultLibraryTemplates(const char* argv0) {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::canonical("/proc/self/exe", ec);
  if (ec) exe = std::filesystem::absolute(argv0, ec);
  const std::filesystem::path installed = exe.parent_path().parent_path() / "share/opgen/templates/library";
  if (std::filesystem::is_directory(installed, ec)) return installed.string();
#ifdef OPGEN_SOURCE_TEMPLATE_DIR
  return OPGEN_SOURCE_TEMPLATE_DIR "/library";
#else
  return {};
#endif
}

int runLibrary(const std::vector<std::string>& args, const char* argv0) {
  auto options = opgen::gen::parseLibraryCommandLine(args, defaultLibraryTemplates(argv0));
  if (!options) {
    std::cerr << "opgen library: error: " << options.error().message << " (see 'opgen library --help')\n";
    return 2;
  }
  if (options->help) {
    std::cout << opgen::gen::libraryUsage();
    return 0;
  }
  opgen::support::Diagnostics diags;
  opgen::gen::runLibrary(*options, diags, std::cout);
  return reportAndExit(diags);
}

int runPython(const std::vector<std::string>& args) {
  opgen::gen::PythonOptions options;
  bool timings = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    std::optional<std::string> v;
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--timings") {
      timings = true;
    } else if (a == "--native-functions" || a == "--tags" || a == "--deprecated" || a == "--templates" || a == "-o" ||
               a == "--output" || a == "--comment-dir") {
      if (!(v = value())) return usageError("python: " + a + " needs a value");
      if (a == "--native-functions") options.nativeFunctionsPath = *v;
      else if (a == "--tags") options.tagsPath = *v;
      else if (a == "--deprecated") options.deprecatedPath = *v;
      else if (a == "--templates") options.templateDir = *v;
      else if (a == "--comment-dir") options.commentDir = *v;
      else options.outputDir = *v;
    } else {
      return usageError("python: unexpected argument '" + a + "'");
    }
  }
  if (options.nativeFunctionsPath.empty()) return usageError("python: missing --native-functions NATIVE_FUNCTIONS_YAML");
  if (options.templateDir.empty()) return usageError("python: missing --templates DIR");
  if (options.outputDir.empty()) return usageError("python: missing -o OUT");
  opgen::support::Diagnostics diags;
  opgen::gen::DiskOutputDirs outputs(diags);
  opgen::gen::PythonReport report;
  const bool ok = opgen::gen::runPython(options, outputs, diags, report);
  if (timings)
    for (const auto& [name, ms] : report.timings) std::fprintf(stderr, "opgen python: %8.1f ms  %s\n", ms, name.c_str());
  if (ok)
    std::cerr << "opgen python: " << report.functions << " functions and " << report.deprecated
              << " deprecated signatures; " << outputs.writtenCount() << " files written, " << outputs.unchangedCount()
              << " unchanged in " << options.outputDir << "\n";
  return reportAndExit(diags);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "opgen " << OPGEN_VERSION << " (torchgen 2.14.1 compatible)\n";
    return 0;
  }
  if (cmd == "parse") return runParse(rest);
  if (cmd == "gen") return runGen(rest);
  if (cmd == "library") return runLibrary(rest, argv[0]);
  if (cmd == "python") return runPython(rest);
  return usageError("unknown command '" + cmd + "'");
}
