#include "gen/Autograd.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "api/Cpp.h"
#include "api/DifferentiabilityInfo.h"
#include "dest/autograd/AnnotatedFnArgs.h"
#include "dest/autograd/Functions.h"
#include "dest/autograd/TraceType.h"
#include "dest/autograd/VariableFactories.h"
#include "dest/autograd/VariableType.h"
#include "dest/autograd/ViewFuncs.h"
#include "gen/Command.h"
#include "gen/Python.h"

namespace opgen::gen {

namespace fs = std::filesystem;

bool runAutograd(const AutogradOptions& options, OutputDirs& outputs, support::Diagnostics& diags,
                 AutogradReport& report) {
  support::PhaseTimer& timer = report.timer;
  std::optional<model::Operators> ops = loadModel(options.files, model::LoadOptions{}, diags);
  if (!ops) return false;
  report.functions = static_cast<int>(ops->functions().size());
  timer.lap("load");

  const std::string templateDir = (fs::path(options.autogradDir) / "templates").string();
  TemplateCache templates(diags);
  FileManager fm(options.outputDir, templateDir, false, templates, outputs, diags);
  if (options.annotatedFnArgs) {
    dest::autograd::emitAnnotatedFnArgs(ops->functions(), fm, diags);
  } else {
    // derivatives.yaml, read and checked as gen_autograd does.
    const std::string derivativesPath = (fs::path(options.autogradDir) / "derivatives.yaml").string();
    support::InputFiles inputs(diags);
    const std::optional<std::string> text = inputs.read(derivativesPath);
    if (!text) return false;
    std::optional<api::autograd::LoadedDerivatives> derivatives =
        api::autograd::loadAtenDerivatives(derivativesPath, *text, *ops, diags);
    if (!derivatives) return false;
    // The functions sorted by C++ name (a stable sort, as gen_autograd's), matched with their formulas;
    // this adds the foreach functions' formulas to the derivatives.
    std::vector<const model::NativeFunction*> sorted = ops->functions();
    std::vector<std::string> names;
    for (const model::NativeFunction* f : sorted) names.push_back(api::cpp::name(f->func));
    std::vector<std::size_t> order(sorted.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
    for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = ops->functions()[order[i]];
    const std::optional<std::vector<api::autograd::FunctionWithInfo>> withInfos =
        api::autograd::matchDifferentiabilityInfo(sorted, *derivatives, diags);
    if (!withInfos) return false;
    timer.lap("derivatives");
    const std::string commentDir = options.commentDir.value_or(templateDirForComments(templateDir));
    // gen_autograd's order: VariableType.h, the tracer's kernels (for every function, unsorted), the factories.
    dest::autograd::emitVariableTypeHeader(commentDir, fm);
    if (dest::autograd::emitTraceType(ops->functions(), commentDir, fm, diags) &&
        dest::autograd::emitFunctions(*derivatives, commentDir, fm, diags) &&
        dest::autograd::emitVariableFactories(ops->functions(), commentDir, fm, diags))
      dest::autograd::emitViewFuncs(*withInfos, commentDir, fm, diags);
  }
  timer.lap("emit");
  return !diags.hasErrors();
}

namespace {

constexpr std::string_view kUsage = R"(Usage: opgen autograd [options] NATIVE_FUNCTIONS TAGS OUT AUTOGRAD_DIR

ATen's autograd code, as torchgen's packaged/autograd generators write it, byte for byte, with their
positional arguments; AUTOGRAD_DIR holds derivatives.yaml, deprecated.yaml and templates/ (read at run
time). Files whose content is unchanged are not rewritten; on any error no file is changed.

NOT YET A DROP-IN for `python -m torchgen.packaged.autograd.gen_autograd`: of gen_autograd's files it
writes only
  VariableType.h, TraceType_0..9.cpp, TraceTypeEverything.cpp, Functions.h, Functions.cpp,
  variable_factories.h, ViewFuncs.h, ViewFuncs.cpp
and not yet VariableType_0..9.cpp, VariableTypeEverything.cpp,
ADInplaceOrViewType_0..1.cpp, ADInplaceOrViewTypeEverything.cpp and templates/VariableType.cpp. Nor what
gen_autograd_python writes (python_functions.h, python_functions_0..4.cpp; the Python bindings
themselves are `opgen python`'s). derivatives.yaml is read and checked as gen_autograd reads it.

Options:
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
    } else if (a == "--comment-dir") {
      if (i + 1 >= args.size()) return support::makeError(a + " needs a value");
      o.commentDir = args[++i];
    } else if (a.starts_with("-") && a != "-") {
      return support::makeError("unexpected option '" + a + "'");
    } else {
      positional.push_back(a);
    }
  }
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
    .synopsis = R"(  opgen autograd [--annotated-fn-args] NATIVE_FUNCTIONS TAGS OUT AUTOGRAD_DIR
        ATen's autograd code like torchgen's gen_autograd (not yet all of its files: see --help) and
        gen_annotated_fn_args (see README.md).
)",
    .run = runAutogradCommand};

}  // namespace opgen::gen
