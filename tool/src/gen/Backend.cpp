// `opgen backend`: a drop-in for `python -m torchgen.gen_backend_stubs` (torchgen 2.14.1), with
// ATen's native_functions.yaml chosen by the caller, and a few options beyond torchgen.
#include "gen/Backend.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>

#include "dest/backend/BackendStubs.h"
#include "dest/common/ApiTable.h"
#include "gen/ArgParse.h"
#include "gen/Command.h"
#include "gen/FileManager.h"
#include "gen/Load.h"
#include "gen/OutputManifest.h"
#include "gen/Selector.h"
#include "support/OutputSink.h"

namespace opgen::gen {

namespace {

namespace fs = std::filesystem;
using argparse::Arity;

// torchgen's options first, in its order of declaration (argparse lists ambiguous matches so), then
// opgen's.
enum class Id {
  Help, SourceYaml, OutputDir, DryRun, ImplPath,
  SourcePath, NativeFunctions, Tags, SkipMissingOperators, IncludePrefix, TorchVersion, TorchFacts, ListOutputs, Stamp, Depfile,
  DepfileOutputs,
};

#define O(id) static_cast<int>(Id::id)
const std::vector<argparse::Option>& specs() {
  static const std::vector<argparse::Option> table = {
      {O(Help), Arity::Flag, {"-h", "--help"}},
      {O(SourceYaml), Arity::One, {"-s", "--source-yaml", "--source_yaml"}},
      {O(OutputDir), Arity::One, {"-o", "--output-dir", "--output_dir"}},
      {O(DryRun), Arity::One, {"--dry-run", "--dry_run"}},
      {O(ImplPath), Arity::One, {"--impl-path", "--impl_path"}},
      {O(SourcePath), Arity::One, {"--source-path"}},
      {O(NativeFunctions), Arity::One, {"--native-functions"}},
      {O(Tags), Arity::One, {"--tags"}},
      {O(SkipMissingOperators), Arity::Flag, {"--skip-missing-operators"}},
      {O(IncludePrefix), Arity::One, {"--include-prefix"}},
      {O(TorchVersion), Arity::One, {"--torch-version"}},
      {O(TorchFacts), Arity::One, {"--torch-facts"}},
      {O(ListOutputs), Arity::Flag, {"--list-outputs"}},
      {O(Stamp), Arity::One, {"--stamp"}},
      {O(Depfile), Arity::One, {"--depfile"}},
      {O(DepfileOutputs), Arity::Flag, {"--depfile-outputs"}},
  };
  return table;
}
#undef O

std::string takeAction(const argparse::Option& option, std::vector<std::string> values, BackendOptions& o) {
  auto one = [&] { return values.front(); };
  switch (static_cast<Id>(option.id)) {
    case Id::Help: o.help = true; break;
    case Id::SourceYaml: o.sourceYaml = one(); break;
    case Id::OutputDir: o.outputDir = one(); break;
    // type=bool: Python's bool() of the string, true unless it is empty.
    case Id::DryRun: o.dryRun = !one().empty(); break;
    case Id::ImplPath: o.implPath = one(); break;
    case Id::SourcePath: o.sourcePath = one(); break;
    case Id::NativeFunctions: o.nativeFunctions = one(); break;
    case Id::Tags: o.tags = one(); break;
    case Id::SkipMissingOperators: o.skipMissingOperators = true; break;
    case Id::IncludePrefix: o.includePrefix = one(); break;
    case Id::TorchVersion:
      if (!o.libtorch.setVersion(one()).empty())
        return "argument --torch-version: needs a version like 1.13 or 2, not " + argparse::pyRepr(one());
      break;
    case Id::TorchFacts:
      if (std::string why = o.libtorch.addFacts(one()); !why.empty()) return "argument --torch-facts: " + why;
      break;
    case Id::ListOutputs: o.listOutputs = true; break;
    case Id::Stamp: o.stamp = one(); break;
    case Id::Depfile: o.depfile = one(); break;
    case Id::DepfileOutputs: o.depfileOutputs = true; break;
  }
  return "";
}

constexpr std::string_view kUsage = R"(Usage: opgen backend -s BACKEND_YAML -o OUTPUT_DIR [options]

Generates an out-of-tree backend's kernel declarations and registrations, as
`python -m torchgen.gen_backend_stubs` (torchgen 2.14.1) does, byte for byte:
  OUTPUT_DIR/<Key>NativeFunctions.h      the kernels, static members of <cpp_namespace>::<class_name>
  OUTPUT_DIR/Register<Key>.cpp           their wrappers, registered for the backend's dispatch key
  OUTPUT_DIR/RegisterAutograd<Key>.cpp   the same for the operators under `autograd:`
Files whose content is unchanged are not touched; on any error (a full disk included) no file is
changed.

torchgen's options (long options may be abbreviated to an unambiguous prefix):
  -h, --help                         This text.
  -s, --source-yaml, --source_yaml BACKEND_YAML
                                     The backend's YAML (backend, cpp_namespace, supported, autograd, ...).
  -o, --output-dir, --output_dir DIR Output directory.
  --dry-run, --dry_run VALUE         Write nothing when VALUE is not empty (torchgen's type=bool).
  --impl-path, --impl_path FILE      Check that FILE defines every kernel (as CLASS::kernel().

Beyond torchgen:
  --source-path DIR                  ATen's inputs: DIR/native/native_functions.yaml and
                                     DIR/native/tags.yaml (default: aten/src/ATen, as in a PyTorch
                                     checkout; an installed torchgen has them in
                                     torchgen/packaged/ATen).
  --native-functions FILE            The native_functions.yaml to use (any PyTorch's or a fork).
  --tags FILE                        Its tags.yaml (default: tags.yaml beside it, if any).
  --skip-missing-operators           Warn about and skip listed operators that the
                                     native_functions.yaml lacks (torchgen: an error).
  --include-prefix DIR               The registration files include the header as "DIR/<Key>NativeFunctions.h"
                                     ("<Key>NativeFunctions.h" when DIR is empty); torchgen uses
                                     the output directory as given.
  --torch-version X[.Y]              The libtorch the code is compiled against (default 2.14): the
                                     facts of that release about it.
  --torch-facts NAME=0|1[,...]       Facts about that libtorch over the version's (add_dispatch_backend
                                     reads them from its headers; see `opgen library --help`).
  --list-outputs                     Print the files a run would write, one per line, and stop.
  --stamp FILE                       Touch FILE after a successful run.
  --depfile FILE                     Write FILE: the stamp's dependencies (the YAMLs), for the build tool;
                                     needs --stamp (the target it names).
  --depfile-outputs                  List the outputs among those dependencies too (Unix Makefiles,
                                     which does not re-run a command whose byproduct was deleted).

Per-operator options (beyond torchgen): an entry of `supported:` may be written
`- maximum.out: {structured: true}`.

Errors are one FILE:LINE:COL: error: MESSAGE line each, with exit status 1 (2 for a bad command line).
)";

Outcome runBackendCommand(const Invocation& invocation, support::Diagnostics& diags) {
  auto options = parseBackendCommandLine(invocation.args);
  if (!options) return usageError("backend", options.error().message);
  if (options->help) {
    std::cout << kUsage;
    return {};
  }
  options->templateDir = pluginTemplateDir(invocation.executable, "backend");
  // In file order (torchgen reads `supported:` before `full_codegen:`; a reader reads the file).
  if (!runBackend(*options, diags, std::cout)) diags.sortByLocation();
  return finished(diags);
}

}  // namespace

const Command kBackendCommand{
    .name = "backend",
    .synopsis = R"(  opgen backend -s BACKEND_YAML -o OUTPUT_DIR [--impl-path FILE] [--source-path DIR] [...]
        Generate an out-of-tree backend's kernel declarations and registrations like
        `python -m torchgen.gen_backend_stubs`; `opgen backend --help` lists the options.
)",
    .run = runBackendCommand};

std::string backendUsage() { return std::string(kUsage); }

support::Expected<BackendOptions> parseBackendCommandLine(const std::vector<std::string>& args) {
  BackendOptions options;
  const argparse::Action act = [&options](const argparse::Option& option, std::vector<std::string> values) {
    return takeAction(option, std::move(values), options);
  };
  if (std::optional<std::string> error = argparse::parse(specs(), args, act, static_cast<int>(Id::Help)))
    return support::makeError(*error);
  if (options.help) return options;
  if (options.sourceYaml.empty()) return support::makeError("the following arguments are required: -s/--source-yaml");
  if (options.depfile && !options.stamp) return support::makeError("--depfile needs --stamp FILE (the depfile's target)");
  if (options.depfileOutputs && !options.depfile) return support::makeError("--depfile-outputs needs --depfile FILE");
  return options;
}

bool runBackend(const BackendOptions& options, support::Diagnostics& diags, std::ostream& out) {
  const std::string nativeFunctions =
      options.nativeFunctions.value_or((fs::path(options.sourcePath) / "native/native_functions.yaml").string());
  std::optional<std::string> tags = options.tags;
  if (!tags && !options.nativeFunctions) tags = (fs::path(options.sourcePath) / "native/tags.yaml").string();
  std::error_code ec;
  if (!fs::exists(nativeFunctions, ec)) {
    diags.error({nativeFunctions, 0, 0},
                "cannot read native_functions.yaml: no such file (give --source-path DIR, e.g. the "
                "torchgen/packaged/ATen folder of an installed PyTorch, or --native-functions FILE)");
    return false;
  }
  // The warnings of a successful load (torchgen 2.14.1's lints that PyTorch 1.x's own file breaks) are
  // not the backend author's to fix: only a failed load reports what it found.
  support::Diagnostics loading;
  std::optional<model::Operators> ops =
      loadModel(ModelFiles{.nativeFunctions = nativeFunctions, .tags = tags}, {}, loading);
  if (!ops) {
    diags.append(loading);
    return false;
  }

  support::FileTransaction transaction(diags);
  std::optional<OutputManifest> manifest;  // of the files written (none on a dry run)
  std::set<std::string> outputs;
  support::InputFiles inputs(diags);
  std::optional<std::string> text = inputs.read(options.sourceYaml);
  if (!text) return false;
  std::optional<model::BackendYaml> yaml = model::loadBackendYaml(
      options.sourceYaml, *text, *ops, model::BackendYamlOptions{.skipMissingOperators = options.skipMissingOperators},
      diags);
  if (!yaml) return false;

  if (options.listOutputs) {
    for (const std::string& file : dest::backendFiles(*yaml)) out << (fs::path(options.outputDir) / file).string() << '\n';
    return true;
  }
  // Without kernels for the backend's key, torchgen writes nothing.
  TemplateCache templates(diags);
  if (yaml->backendKey) {
    const model::BackendIndex backend = dest::externalBackendIndex(*yaml, *yaml->backendKey, yaml->supported);
    std::optional<model::BackendIndex> autograd;
    if (yaml->autogradKey) autograd = dest::externalBackendIndex(*yaml, *yaml->autogradKey, yaml->autograd);
    const std::string header = dest::backendHeaderName(*yaml);
    std::string include = options.outputDir + "/" + header;
    if (options.includePrefix) include = options.includePrefix->empty() ? header : *options.includePrefix + "/" + header;
    const dest::BackendSpec spec{.yaml = *yaml,
                                 .backend = backend,
                                 .autograd = autograd ? &*autograd : nullptr,
                                 .className = yaml->effectiveClassName(),
                                 .headerInclude = include};

    SelectiveBuilder everything = SelectiveBuilder::selectAll();
    dest::ApiTable api(options.libtorch.facts());
    std::vector<model::DispatchKey> keys = {*yaml->backendKey};
    if (yaml->autogradKey) keys.push_back(*yaml->autogradKey);
    const dest::EmitContext ctx{.ops = *ops,
                                .selector = everything,
                                .allOperators = everything,
                                .dispatchKeys = keys,
                                .functionsKeys = {},
                                .staticDispatchIndices = {},
                                .aotiBackends = {},
                                .diags = diags,
                                .api = api};
    if (options.implPath) {
      std::optional<std::string> impl = inputs.read(*options.implPath);
      if (!impl) return false;
      dest::checkKernelDefinitions(ctx, spec, *options.implPath, *impl);
      if (diags.hasErrors()) return false;
    }
    support::MemorySink memory(diags);
    MemoryWriter writer(options.templateDir, "", templates, memory, diags);
    dest::emitBackend(ctx, spec, writer);
    if (diags.hasErrors()) return false;
    if (!options.dryRun) {
      if (options.outputDir.empty()) {
        diags.error({}, "no output directory: give -o/--output-dir DIR");
        return false;
      }
      // A file opgen did not write is not overwritten. With --stamp (a build system's run), the
      // files are listed too (see OutputManifest.h), so that one no longer generated
      // (RegisterAutograd<Key>.cpp without `autograd:`) is removed; without it, the folder holds
      // torchgen's files alone.
      for (const auto& entry : memory.files()) outputs.insert(entry.first);
      // (torchgen's marks: the registrations' "@generated by torchgen/gen_backend_stubs.py", the header's
      // "Autogenerated file by gen_backend_stubs.py")
      manifest.emplace(options.outputDir, diags,
                       std::vector<std::string>{"@generated by torchgen", "Autogenerated file by gen_backend_stubs.py"});
      if (!(options.stamp ? manifest->claim(outputs, transaction) : manifest->checkOwnership(outputs))) return false;
      support::DirectorySink disk(options.outputDir, transaction);
      for (const auto& [path, content] : memory.files())
        if (!disk.write(path, content)) return false;
    }
  }
  std::vector<std::string> deps = {nativeFunctions};
  if (const std::string tagsPath = ModelFiles{.nativeFunctions = nativeFunctions, .tags = tags}.tagsPath(); !tagsPath.empty())
    deps.push_back(tagsPath);
  deps.insert(deps.end(), inputs.paths().begin(), inputs.paths().end());
  deps.insert(deps.end(), templates.paths().begin(), templates.paths().end());
  if (options.depfileOutputs)
    for (const std::string& file : dest::backendFiles(*yaml)) deps.push_back((fs::path(options.outputDir) / file).string());
  // The stamp and the depfile last, after the removals, in a transaction of their own.
  if (!manifest || !options.stamp) {
    if (!stageDepfileAndStamp(options.depfile, options.stamp, deps, transaction)) return false;
    return transaction.commit();
  }
  if (!transaction.commit()) return false;
  manifest->removeStale(outputs);
  if (!manifest->finish(outputs)) return false;
  support::FileTransaction stamp(diags);
  if (!stageDepfileAndStamp(options.depfile, options.stamp, deps, stamp)) return false;
  return stamp.commit();
}

}  // namespace opgen::gen
