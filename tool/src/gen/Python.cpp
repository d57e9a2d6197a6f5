#include "gen/Python.h"

#include <filesystem>
#include <iostream>
#include <thread>

#include "api/Python.h"
#include "dest/python/PythonBindings.h"
#include "gen/Command.h"
#include "gen/Load.h"
#include "support/PhaseTimer.h"

namespace opgen::gen {

namespace fs = std::filesystem;
using api::python::SignaturePair;

std::string templateDirForComments(const std::string& templateDir) {
  std::error_code ec;
  const fs::path dir = fs::absolute(templateDir, ec).lexically_normal();
  if (ec) return templateDir;
  for (fs::path p = dir.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    if (p.filename() == "torchgen") return dir.lexically_relative(p).string();
    if (fs::is_directory(p / "torchgen", ec)) return dir.lexically_relative(p / "torchgen").string();
  }
  return templateDir;
}

namespace {

// The Python signatures of every function, then the deprecated ones; nullopt after an error.
std::optional<std::vector<SignaturePair>> loadSignatures(const std::vector<const model::NativeFunction*>& functions,
                                                         const std::vector<api::python::DeprecatedEntry>& deprecated,
                                                         bool method, support::Diagnostics& diags) {
  std::vector<SignaturePair> pairs;
  pairs.reserve(functions.size());
  for (const model::NativeFunction* f : functions) {
    auto sig = api::python::signature(*f, method);
    if (!sig) {  // like torchgen, stop at the first problem
      model::reportError(diags, *f, sig.error().message);
      return std::nullopt;
    }
    pairs.push_back({sig.take(), f});
  }
  auto extra = api::python::deprecatedSignatures(pairs, deprecated, method, diags);
  if (!extra) return std::nullopt;
  for (SignaturePair& p : *extra) pairs.push_back(std::move(p));
  return pairs;
}

}  // namespace

bool runPython(const PythonOptions& options, OutputDirs& outputs, support::Diagnostics& diags, PythonReport& report) {
  support::PhaseTimer& timer = report.timer;
  std::optional<model::Operators> ops = loadModel(options.files, model::LoadOptions{}, diags);
  if (!ops) return false;
  const std::string deprecatedPath =
      options.deprecatedPath.value_or((fs::path(options.templateDir).lexically_normal().parent_path() / "deprecated.yaml").string());
  support::InputFiles inputs(diags);
  auto text = inputs.read(deprecatedPath);
  if (!text) return false;
  auto deprecated = api::python::loadDeprecated(deprecatedPath, *text, diags);
  if (!deprecated) return false;
  timer.lap("load");

  std::vector<const model::NativeFunction*> functions;
  for (const model::NativeFunction* f : ops->functions())
    if (api::python::shouldGeneratePyBinding(*f)) functions.push_back(f);
  // Methods and functions on two threads, each with diagnostics of its own (the methods' come first).
  support::Diagnostics methodDiags, functionDiags;
  std::optional<std::vector<SignaturePair>> methods;
  std::thread methodThread([&] { methods = loadSignatures(functions, *deprecated, true, methodDiags); });
  auto pyFunctions = loadSignatures(functions, *deprecated, false, functionDiags);
  methodThread.join();
  if (!methods || !pyFunctions) {
    diags.append(!methods ? methodDiags : functionDiags);
    return false;
  }
  report.functions = static_cast<int>(functions.size());
  report.deprecated = static_cast<int>(pyFunctions->size() - functions.size());
  timer.lap("signatures");

  TemplateCache templates(diags);
  FileManager fm(options.outputDir, options.templateDir, false, templates, outputs, diags);
  dest::PythonBindingsContext ctx{*methods, *pyFunctions, ops->validTags(),
                                  options.commentDir.value_or(templateDirForComments(options.templateDir)), diags};
  dest::emitPythonBindings(ctx, fm);
  timer.lap("emit");
  return !diags.hasErrors();
}

namespace {

constexpr std::string_view kUsage = R"(Usage: opgen python --native-functions NATIVE_FUNCTIONS_YAML --templates DIR -o OUT [options]

Generates PyTorch's Python bindings (python_torch_functions_N.cpp, python_variable_methods.cpp, ...)
as torchgen's gen_python_functions.gen does, byte for byte; the templates are read from DIR. Files
whose content is unchanged are not rewritten; on any error (a full disk included) no file is changed.

Options:
  --native-functions FILE  the operators (native_functions.yaml)
  --templates DIR          the templates (torchgen's packaged/autograd/templates)
  -o, --output DIR         where the files go
  --tags FILE              tags.yaml (default: beside the native functions file)
  --deprecated FILE        deprecated.yaml (default: beside DIR)
  --comment-dir TEXT       how the @generated comments name DIR (default: relative to a folder named
                           torchgen around or beside DIR, else DIR as given)
  --timings                print how long each step took
  -h, --help               this text
)";

support::Expected<PythonOptions> parseCommandLine(const std::vector<std::string>& args, bool& timings) {
  PythonOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--timings") {
      timings = true;
      continue;
    }
    std::string* into = a == "--native-functions"          ? &o.files.nativeFunctions
                        : a == "--tags"                     ? &o.files.tags.emplace()
                        : a == "--deprecated"               ? &o.deprecatedPath.emplace()
                        : a == "--templates"                ? &o.templateDir
                        : a == "--comment-dir"              ? &o.commentDir.emplace()
                        : (a == "-o" || a == "--output")    ? &o.outputDir
                                                            : nullptr;
    if (into == nullptr) return support::makeError("unexpected argument '" + a + "'");
    if (i + 1 >= args.size()) return support::makeError(a + " needs a value");
    *into = args[++i];
  }
  if (o.files.nativeFunctions.empty()) return support::makeError("missing --native-functions NATIVE_FUNCTIONS_YAML");
  if (o.templateDir.empty()) return support::makeError("missing --templates DIR");
  if (o.outputDir.empty()) return support::makeError("missing -o OUT");
  return o;
}

Outcome runPythonCommand(const Invocation& invocation, support::Diagnostics& diags) {
  if (printedUsage(invocation, kUsage)) return {};
  bool timings = false;
  support::Expected<PythonOptions> options = parseCommandLine(invocation.args, timings);
  if (!options) return usageError("python", options.error().message);
  DiskOutputDirs outputs(diags);
  PythonReport report;
  const bool ok = runPython(*options, outputs, diags, report) && outputs.commit();
  if (timings) report.timer.print(std::cerr, "python");
  if (ok)
    std::cerr << "opgen python: " << report.functions << " functions and " << report.deprecated
              << " deprecated signatures; " << outputs.writtenCount() << " files written, " << outputs.unchangedCount()
              << " unchanged in " << options->outputDir << "\n";
  return finished(diags);
}

}  // namespace

const Command kPythonCommand{
    .name = "python",
    .synopsis = R"(  opgen python --native-functions NATIVE_FUNCTIONS_YAML --templates DIR -o OUT [--tags TAGS_YAML]
               [--deprecated DEPRECATED_YAML] [--comment-dir TEXT] [--timings]
        Generate PyTorch's Python bindings like torchgen's gen_python_functions.gen (see docs/commands.md).
)",
    .run = runPythonCommand};

}  // namespace opgen::gen
