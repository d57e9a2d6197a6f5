#include "gen/Autograd.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <thread>

#include "api/Cpp.h"
#include "api/DifferentiabilityInfo.h"
#include "dest/autograd/ADInplaceOrViewType.h"
#include "dest/autograd/AnnotatedFnArgs.h"
#include "dest/autograd/Functions.h"
#include "dest/autograd/TraceType.h"
#include "dest/autograd/VariableFactories.h"
#include "dest/autograd/VariableType.h"
#include "dest/autograd/ViewFuncs.h"
#include "gen/Command.h"
#include "gen/Python.h"
#include "support/Yaml.h"
#include "gen/PurePath.h"

namespace opgen::gen {

namespace fs = std::filesystem;

namespace {

// The functions sorted by C++ name, a stable sort (gen_autograd's order).
std::vector<const model::NativeFunction*> sortedByCppName(const std::vector<const model::NativeFunction*>& functions) {
  std::vector<std::pair<std::string, const model::NativeFunction*>> named;
  for (const model::NativeFunction* f : functions) named.emplace_back(api::cpp::name(f->func), f);
  std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const model::NativeFunction*> out;
  for (const auto& [name, f] : named) out.push_back(f);
  return out;
}

// derivatives.yaml read, checked and matched with the functions as gen_autograd does (matching adds the
// foreach functions' formulas to the derivatives); false after reporting.
struct MatchedDerivatives {
  std::optional<api::autograd::LoadedDerivatives> loaded;
  std::optional<std::vector<api::autograd::FunctionWithInfo>> withInfos;
};
bool loadDerivatives(const std::string& path, const support::YamlNode& doc, const model::Operators& ops,
                     support::Diagnostics& diags, MatchedDerivatives& out) {
  out.loaded = api::autograd::loadAtenDerivatives(path, doc, ops, diags);
  if (!out.loaded) return false;
  out.withInfos = api::autograd::matchDifferentiabilityInfo(sortedByCppName(ops.functions()), *out.loaded, diags);
  return out.withInfos.has_value();
}

// gen_autograd's files (and with --python gen_autograd_python's); false after reporting.
bool emitAutograd(const AutogradOptions& options, const model::Operators& ops, const support::YamlNode& derivativesDoc,
                  const std::string& templateDir, TemplateCache& templates, FileManager& fm, OutputDirs& outputs,
                  support::Diagnostics& diags, support::PhaseTimer& timer) {
  const std::string commentDir = options.commentDir.value_or(templateDirForComments(templateDir));
  // The derivatives are read on a second thread while what does not need them is made: VariableType.h
  // and the tracer's kernels (for every function, unsorted). Errors are reported in gen_autograd's
  // order: derivatives.yaml's, the ADInplaceOrView kernels', the tracer's, the nodes', the factories',
  // the view functions'.
  MatchedDerivatives d;
  support::Diagnostics derivativesDiags, traceDiags;
  const std::string derivativesPath = (fs::path(options.autogradDir) / "derivatives.yaml").string();  // (messages)
  std::thread loader([&] { loadDerivatives(derivativesPath, derivativesDoc, ops, derivativesDiags, d); });
  dest::autograd::emitVariableTypeHeader(commentDir, fm);
  const bool traced = dest::autograd::emitTraceType(ops.functions(), commentDir, fm, traceDiags);
  loader.join();
  if (derivativesDiags.hasErrors()) {
    diags.append(derivativesDiags);
    return false;
  }
  timer.lap("derivatives, tracer");
  // gen_variable_type writes OUT/templates/VariableType.cpp and renders the kernels' files from it.
  const std::string madeTemplates = options.outputDir + "/templates";
  FileManager templatesFm(madeTemplates, templateDir, false, templates, outputs, diags);
  const std::optional<std::string> kernelsTemplate =
      dest::autograd::emitVariableTypeTemplate(d.loaded->usedDispatchKeys, templatesFm);
  if (!kernelsTemplate) return false;
  templates.provide(joinPurePath(madeTemplates, "VariableType.cpp"), *kernelsTemplate);
  FileManager kernelsFm(options.outputDir, madeTemplates, false, templates, outputs, diags);
  // The kernels (on two threads of their own) and, on one more thread, the ADInplaceOrView kernels, the
  // graph nodes, the factories and the view functions: each reports into diagnostics of its own, which
  // are appended in gen_autograd's order up to the first failing step (as if they had run one after
  // the other; a step after a failed one may have run, but its files are never committed).
  struct Step {
    support::Diagnostics diags;
    bool ok = false;
  };
  Step inplace, nodes, factories, views;
  std::thread others([&] {
    (inplace.ok = dest::autograd::emitADInplaceOrViewType(*d.withInfos, commentDir, fm, inplace.diags)) &&
        (nodes.ok = dest::autograd::emitFunctions(*d.loaded, commentDir, fm, nodes.diags)) &&
        (factories.ok = dest::autograd::emitVariableFactories(ops.functions(), commentDir, fm, factories.diags)) &&
        (views.ok = dest::autograd::emitViewFuncs(*d.withInfos, commentDir, fm, views.diags));
  });
  support::Diagnostics kernelsDiags;
  const bool kernelsOk = dest::autograd::emitVariableTypeKernels(*d.withInfos, d.loaded->usedDispatchKeys, commentDir,
                                                                 derivativesPath, kernelsFm, kernelsDiags) &&
                         !kernelsDiags.hasErrors();
  others.join();
  diags.append(kernelsDiags);
  if (!kernelsOk || diags.hasErrors()) return false;
  diags.append(inplace.diags);
  if (!inplace.ok) return false;
  if (!traced) {
    diags.append(traceDiags);
    return false;
  }
  for (Step* step : {&nodes, &factories, &views}) {
    diags.append(step->diags);
    if (!step->ok) return false;
  }
  if (!options.python) return true;
  // gen_autograd_python after gen_autograd in one process (as PyTorch's generate_code runs them): the
  // node classes of the same infos, the foreach functions' included, and the Python bindings.
  if (!dest::autograd::emitPythonFunctions(*d.loaded, commentDir, fm, diags)) return false;
  PythonOptions py{options.files, (fs::path(options.autogradDir) / "deprecated.yaml").string(), templateDir,
                   options.outputDir, options.commentDir};
  PythonReport pyReport;
  return runPython(py, outputs, diags, pyReport);
}

}  // namespace

bool runAutograd(const AutogradOptions& options, OutputDirs& outputs, support::Diagnostics& diags,
                 AutogradReport& report) {
  support::PhaseTimer& timer = report.timer;
  // gen_autograd parses derivatives.yaml before it reads the native functions (load_derivatives): here
  // on a second thread while they load, its errors reported first.
  const std::string derivativesPath = (fs::path(options.autogradDir) / "derivatives.yaml").string();
  support::Diagnostics derivativesDiags, modelDiags;
  std::optional<support::YamlNode> derivativesDoc;
  std::thread parser;
  if (!options.annotatedFnArgs)
    parser = std::thread([&] {
      support::InputFiles inputs(derivativesDiags);
      if (const std::optional<std::string> text = inputs.read(derivativesPath))
        derivativesDoc = support::parseYaml(*text, derivativesPath, derivativesDiags);
    });
  std::optional<model::Operators> ops = loadModel(options.files, model::LoadOptions{}, modelDiags);
  if (parser.joinable()) parser.join();
  if (derivativesDiags.hasErrors()) {
    diags.append(derivativesDiags);
    return false;
  }
  diags.append(modelDiags);
  if (!ops) return false;
  report.functions = static_cast<int>(ops->functions().size());
  timer.lap("load");
  const std::string templateDir = (fs::path(options.autogradDir) / "templates").string();
  TemplateCache templates(diags);
  FileManager fm(options.outputDir, templateDir, false, templates, outputs, diags);
  if (options.annotatedFnArgs) dest::autograd::emitAnnotatedFnArgs(ops->functions(), fm, diags);
  else emitAutograd(options, *ops, *derivativesDoc, templateDir, templates, fm, outputs, diags, timer);
  timer.lap("emit");
  return !diags.hasErrors();
}

namespace {

constexpr std::string_view kUsage = R"(Usage: opgen autograd [options] NATIVE_FUNCTIONS TAGS OUT AUTOGRAD_DIR

ATen's autograd code, as torchgen's packaged/autograd generators write it, byte for byte, with their
positional arguments; AUTOGRAD_DIR holds derivatives.yaml, deprecated.yaml and templates/ (read at run
time). Files whose content is unchanged are not rewritten; on any error no file is changed.

A drop-in for `python -m torchgen.packaged.autograd.gen_autograd`: it writes the same 32 files
(VariableType.h, VariableType_0..9.cpp, VariableTypeEverything.cpp, templates/VariableType.cpp,
ADInplaceOrViewType_0..1.cpp, ADInplaceOrViewTypeEverything.cpp, TraceType_0..9.cpp,
TraceTypeEverything.cpp, Functions.h, Functions.cpp, variable_factories.h, ViewFuncs.h, ViewFuncs.cpp)
and refuses what it refuses, derivatives.yaml included. (templates/VariableType.cpp names its
generator as that command line does: torchgen/packaged/autograd/gen_autograd.py.)

Options:
  --python             also write what gen_autograd_python writes when PyTorch's generate_code runs it
                       after gen_autograd (in the same process, so with the foreach functions' nodes):
                       python_functions.h, python_functions_0..4.cpp, python_functionsEverything.cpp
                       and the Python bindings (the 14
                       files of `opgen python`, with AUTOGRAD_DIR/deprecated.yaml)
  --annotated-fn-args  write what gen_annotated_fn_args writes (annotated_fn_args.py, a drop-in for
                       `python -m torchgen.packaged.autograd.gen_annotated_fn_args`) instead
  --comment-dir TEXT   how the @generated comments name AUTOGRAD_DIR/templates (default: relative to
                       a folder named torchgen around or beside it, else as given)
  --timings            print how long each step took
  -h, --help           this text
)";

support::Expected<AutogradOptions> parseCommandLine(const std::vector<std::string>& args, bool& timings) {
  AutogradOptions o;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--timings") {
      timings = true;
    } else if (a == "--annotated-fn-args") {
      o.annotatedFnArgs = true;
    } else if (a == "--python") {
      o.python = true;
    } else if (a == "--comment-dir") {
      if (i + 1 >= args.size()) return support::makeError(a + " needs a value");
      o.commentDir = args[++i];
    } else if (a.starts_with("-") && a != "-") {
      return support::makeError("unexpected option '" + a + "'");
    } else {
      positional.push_back(a);
    }
  }
  if (o.python && o.annotatedFnArgs) return support::makeError("--python and --annotated-fn-args exclude each other");
  if (positional.size() != 4)
    return support::makeError("expected 4 arguments (NATIVE_FUNCTIONS TAGS OUT AUTOGRAD_DIR), got " +
                              std::to_string(positional.size()));
  o.files.nativeFunctions = positional[0];
  o.files.tags = positional[1];
  o.outputDir = positional[2];
  o.autogradDir = positional[3];
  return o;
}

Outcome runAutogradCommand(const Invocation& invocation, support::Diagnostics& diags) {
  if (printedUsage(invocation, kUsage)) return {};
  bool timings = false;
  support::Expected<AutogradOptions> options = parseCommandLine(invocation.args, timings);
  if (!options) return usageError("autograd", options.error().message);
  DiskOutputDirs outputs(diags);
  AutogradReport report;
  const bool ok = runAutograd(*options, outputs, diags, report) && outputs.commit();
  if (timings) report.timer.print(std::cerr, "autograd");
  if (ok)
    std::cerr << "opgen autograd: " << report.functions << " functions; " << outputs.writtenCount()
              << " files written, " << outputs.unchangedCount() << " unchanged in " << options->outputDir << "\n";
  return finished(diags);
}

}  // namespace

const Command kAutogradCommand{
    .name = "autograd",
    .synopsis = R"(  opgen autograd [--python | --annotated-fn-args] NATIVE_FUNCTIONS TAGS OUT AUTOGRAD_DIR
        ATen's autograd code like torchgen's gen_autograd (not yet all of its files: see --help) and
        gen_annotated_fn_args (see docs/commands.md).
)",
    .run = runAutogradCommand};

}  // namespace opgen::gen
