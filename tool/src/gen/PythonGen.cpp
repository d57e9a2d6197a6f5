#include "gen/PythonGen.h"

#include <chrono>
#include <filesystem>
#include <thread>

#include "api/Python.h"
#include "dest/PythonFunctions.h"
#include "gen/Parse.h"
#include "gen/PurePath.h"

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
      diags.error(f->loc.sourceLoc(), "in '" + f->func.name.str() + "': " + sig.error().message);
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
  auto last = std::chrono::steady_clock::now();
  auto step = [&](std::string name) {
    auto now = std::chrono::steady_clock::now();
    report.timings.emplace_back(std::move(name), std::chrono::duration<double, std::milli>(now - last).count());
    last = now;
  };
  ParseOptions load;
  load.nativeFunctionsPath = options.nativeFunctionsPath;
  load.tagsPath = options.tagsPath;
  std::optional<model::Operators> ops = loadModel(load, diags);
  if (!ops) return false;
  const std::string deprecatedPath =
      options.deprecatedPath.value_or((fs::path(options.templateDir).lexically_normal().parent_path() / "deprecated.yaml").string());
  support::InputFiles inputs(diags);
  auto text = inputs.read(deprecatedPath);
  if (!text) return false;
  auto deprecated = api::python::loadDeprecated(deprecatedPath, *text, diags);
  if (!deprecated) return false;
  step("load");

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
  step("signatures");

  TemplateCache templates(diags);
  FileManager fm(options.outputDir, options.templateDir, false, templates, outputs, diags);
  dest::PythonBindingsContext ctx{*methods, *pyFunctions, ops->validTags(),
                                  options.commentDir.value_or(templateDirForComments(options.templateDir)), diags};
  dest::emitPythonBindings(ctx, fm);
  step("emit");
  return !diags.hasErrors();
}

}  // namespace opgen::gen
