#include "gen/Gen.h"

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>

#include "dest/aten/ATenOpList.h"
#include "dest/aten/AotiCShim.h"
#include "dest/aten/CompositeViewCopyKernels.h"
#include "dest/aten/DeclarationsYaml.h"
#include "dest/aten/DispatchKeyFunctions.h"
#include "dest/aten/EnumTag.h"
#include "dest/aten/FunctionalInverses.h"
#include "dest/aten/Functions.h"
#include "dest/aten/InternedStrings.h"
#include "dest/aten/OperatorHeaders.h"
#include "dest/aten/OperatorsCpp.h"
#include "dest/aten/RegisterBackendSelect.h"
#include "dest/aten/RegisterDispatchKeyCpp.h"
#include "dest/aten/RegisterFunctionalization.h"
#include "dest/aten/RegisterSchema.h"
#include "dest/aten/RegistrationDeclarations.h"
#include "dest/aten/TemplateOnlySources.h"
#include "dest/aten/TensorBody.h"
#include "dest/aten/UfuncKernels.h"
#include "dest/aten/UmbrellaHeaders.h"
#include "dest/aten/ViewMetaClasses.h"
#include "dest/aten/VmapGeneratedPlumbing.h"
#include "dest/common/ApiTable.h"
#include "gen/Command.h"
#include "gen/Load.h"
#include "gen/PurePath.h"
#include "gen/Selector.h"
#include "support/PhaseTimer.h"

namespace opgen::gen {

namespace {

using model::DispatchKey;

// ---------------------------------------------------------------------------------------------
// The output families. To add one: write dest/aten/NAME.{h,cpp} with
//   void emitNAME(const dest::EmitContext& ctx, const dest::Writers& out);
// include its header above, put `&dest::emitNAME` in its row below, and add its files to the list
// of compared outputs in tool/test/gen_conformance_test.cpp.

enum class Phase { Sources, Headers, DeclarationsYaml };  // torchgen's --generate values, in its order

using Emitter = void (*)(const dest::EmitContext&, const dest::Writers&);
using Applies = bool (*)(const dest::EmitContext&);

struct Family {
  std::string_view name;
  Phase phase;
  Applies applies;  // whether torchgen writes this family in this run
  Emitter emit;
  int weight = 0;   // its cost on ATen (measured, in ms): the heaviest families start first
  // It creates thousands of files in ops/: two such families never run at once when another
  // family can run instead (see emitFamilies).
  bool manyFilesInOps = false;
};

bool always(const dest::EmitContext&) { return true; }
bool perOperatorHeaders(const dest::EmitContext& ctx) { return ctx.perOperatorHeaders; }
bool aggregatedHeaders(const dest::EmitContext& ctx) { return !ctx.perOperatorHeaders; }
bool anyDispatchKey(const dest::EmitContext& ctx) { return !ctx.dispatchKeys.empty(); }
bool anyFunctionsKey(const dest::EmitContext& ctx) {
  return std::any_of(ctx.dispatchKeys.begin(), ctx.dispatchKeys.end(), [&](DispatchKey k) { return ctx.isFunctionsKey(k); });
}
bool anyUfuncKernel(const dest::EmitContext& ctx) {
  const bool ufuncKey = std::any_of(ctx.dispatchKeys.begin(), ctx.dispatchKeys.end(), model::isUfuncDispatchKey);
  return ufuncKey && std::any_of(ctx.ops.groups().begin(), ctx.ops.groups().end(),
                                 [](const model::NativeFunctionsGroup* g) { return !g->out->ufuncInnerLoop.empty(); });
}

// gen.py: gen_source_files, gen_headers (per-operator or aggregated), gen_declarations_yaml.
constexpr Family kFamilies[] = {
    {"Register{DispatchKey}.cpp", Phase::Sources, anyDispatchKey, &dest::emitRegisterDispatchKey, 87},
    {"Ufunc{CPU,CPUKernel,CUDA}_{op}", Phase::Sources, anyUfuncKernel, &dest::emitUfuncKernels},
    {"aoti c_shim_{backend}.cpp", Phase::Sources, always, &dest::emitAotiCShims},
    {"RegisterBackendSelect.cpp", Phase::Sources, always, &dest::emitBackendSelect},
    {"RegisterSchema.cpp", Phase::Sources, always, &dest::emitRegisterSchema},
    {"Operators_{shard}.cpp", Phase::Sources, always, &dest::emitOperatorsCpp, 21},
    {"Functions.cpp", Phase::Sources, always, &dest::emitFunctionsCpp},
    {"core/TensorMethods.cpp", Phase::Sources, always, &dest::emitTensorMethodsCpp},
    {"core/ATenOpList.cpp", Phase::Sources, always, &dest::emitATenOpList},
    {"RegisterFunctionalization_{shard}.cpp", Phase::Sources, always, &dest::emitRegisterFunctionalization, 42},
    {"FunctionalInverses.h", Phase::Sources, always, &dest::emitFunctionalInverses},
    {"ViewMetaClasses.{h,cpp}", Phase::Sources, always, &dest::emitViewMetaClasses},
    {"CompositeViewCopyKernels.cpp", Phase::Sources, always, &dest::emitCompositeViewCopyKernels},
    {"ops/{op}{,_ops,_meta,_native}.h", Phase::Headers, perOperatorHeaders, &dest::emitPerOperatorHeaders, 147, true},
    {"{Functions,Operators,NativeFunctions,NativeMetaFunctions,MethodOperators}.h including ops/", Phase::Headers,
     perOperatorHeaders, &dest::emitUmbrellaHeaders},
    {"ops/{op}_{key}_dispatch.h", Phase::Headers, perOperatorHeaders, &dest::emitPerOperatorDispatchHeaders, 86, true},
    {"{Functions,Operators,NativeFunctions,NativeMetaFunctions,MethodOperators}.h", Phase::Headers,
     aggregatedHeaders, &dest::emitAggregatedHeaders},
    {"{DispatchKey}Functions.h", Phase::Headers, anyFunctionsKey, &dest::emitDispatchKeyFunctions},
    {"{DispatchKey}Functions_inl.h", Phase::Headers, anyFunctionsKey, &dest::emitDispatchKeyFunctionsInl, 8},
    {"core/TensorBody.h", Phase::Headers, always, &dest::emitTensorBody},
    {"RedispatchFunctions.h", Phase::Headers, always, &dest::emitRedispatchFunctions, 10},
    {"RegistrationDeclarations.h", Phase::Headers, always, &dest::emitRegistrationDeclarations, 9},
    {"VmapGeneratedPlumbing.h", Phase::Headers, always, &dest::emitVmapGeneratedPlumbing, 7},
    {"core/aten_interned_strings.h", Phase::Headers, always, &dest::emitInternedStrings},
    {"core/enum_tag.h", Phase::Headers, always, &dest::emitEnumTag},
    {"Declarations.yaml", Phase::DeclarationsYaml, always, &dest::emitDeclarationsYaml, 30},
};

std::string_view phaseName(Phase p) {
  switch (p) {
    case Phase::Sources: return "sources";
    case Phase::Headers: return "headers";
    case Phase::DeclarationsYaml: return "declarations_yaml";
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// The run's context (gen.py main()).

const std::vector<DispatchKey> kMpsKeys = {DispatchKey::MPS, DispatchKey::SparseMPS, DispatchKey::SparseCsrMPS};
const std::vector<DispatchKey> kXpuKeys = {DispatchKey::XPU, DispatchKey::SparseXPU, DispatchKey::SparseCsrXPU,
                                           DispatchKey::NestedTensorXPU};

bool contains(const std::vector<DispatchKey>& keys, DispatchKey k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); }

struct DispatchKeySets {
  std::vector<DispatchKey> dispatchKeys;
  std::set<DispatchKey> functionsKeys;
  std::set<DispatchKey> ignoreKeys;
  std::vector<std::optional<DispatchKey>> aotiBackends;
};

DispatchKeySets dispatchKeySets(const GenOptions& o) {
  DispatchKeySets s;
  s.dispatchKeys = model::supportedDispatchKeys();
  s.functionsKeys = {DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::CompositeImplicitAutograd,
                     DispatchKey::CompositeImplicitAutogradNestedTensor, DispatchKey::CompositeExplicitAutograd,
                     DispatchKey::CompositeExplicitAutogradNonFunctional, DispatchKey::Meta, DispatchKey::MTIA};
  s.aotiBackends = {DispatchKey::CPU, DispatchKey::CUDA, std::nullopt};
  auto drop = [&](const std::vector<DispatchKey>& keys) {
    s.ignoreKeys.insert(keys.begin(), keys.end());
    std::erase_if(s.dispatchKeys, [&](DispatchKey k) { return contains(keys, k); });
  };
  if (o.mps || o.updateAotiCShim) {
    s.functionsKeys.insert(kMpsKeys.begin(), kMpsKeys.end());
    s.aotiBackends.push_back(DispatchKey::MPS);
  } else {
    drop(kMpsKeys);
  }
  if (o.xpu || o.updateAotiCShim) {
    s.functionsKeys.insert(DispatchKey::XPU);
    s.aotiBackends.push_back(DispatchKey::XPU);
  } else {
    drop(kXpuKeys);
  }
  if (!o.mtia) drop({DispatchKey::MTIA});
  if (o.backendWhitelist && !o.backendWhitelist->empty()) {
    const std::vector<std::string>& allowed = *o.backendWhitelist;
    std::erase_if(s.dispatchKeys, [&](DispatchKey k) {
      return !model::isGenericDispatchKey(k) &&
             std::find(allowed.begin(), allowed.end(), model::dispatchKeyName(k)) == allowed.end();
    });
  }
  for (DispatchKey k : o.staticDispatchKeys()) s.functionsKeys.insert(k);
  return s;
}

std::optional<SelectiveBuilder> makeSelector(const GenOptions& o, support::Diagnostics& diags) {
  if (o.opRegistrationWhitelist) return SelectiveBuilder::fromLegacyAllowList(*o.opRegistrationWhitelist, true, false);
  if (o.opSelectionYamlPath) return SelectiveBuilder::fromYamlFile(*o.opSelectionYamlPath, diags);
  return SelectiveBuilder::selectAll();
}

dest::EmitContext emitContext(const GenOptions& options, const model::Operators& ops, const SelectiveBuilder& selector,
                              const SelectiveBuilder& everything, const DispatchKeySets& keys,
                              support::Diagnostics& diags, dest::ApiTable& api) {
  dest::EmitContext ctx{.ops = ops,
                        .selector = selector,
                        .allOperators = everything,
                        .dispatchKeys = keys.dispatchKeys,
                        .functionsKeys = keys.functionsKeys,
                        .staticDispatchIndices = {},
                        .aotiBackends = keys.aotiBackends,
                        .rocm = options.rocm,
                        .perOperatorHeaders = options.perOperatorHeaders,
                        .forceSchemaRegistration = options.forceSchemaRegistration,
                        .skipDispatcherOpRegistration = options.skipDispatcherOpRegistration,
                        .updateAotiCShim = options.updateAotiCShim,
                        .extendAotiCShim = options.extendAotiCShim,
                        .generatesSources = options.generates(phaseName(Phase::Sources)),
                        .diags = diags,
                        .api = api};
  // torchgen's backend_indices is a defaultdict: a key without kernels gets an empty index.
  for (DispatchKey k : options.staticDispatchKeys()) ctx.staticDispatchIndices.push_back(ctx.backendIndex(k));
  return ctx;
}

// torchgen's file managers (make_file_manager), by role.
struct FileManagers {
  FileManager core, cpu, cpuVec, cuda, ops, aoti, headeronly;
  std::unique_ptr<FileManager> xpu;

  dest::Writers writers() {
    return dest::Writers{core, cpu, cpuVec, cuda, xpu.get(), ops, aoti, headeronly};
  }
  // The lists of --output-dependencies: (file manager, prefix of the file and variable names).
  std::vector<std::pair<const FileManager*, std::string>> dependencyLists() const {
    std::vector<std::pair<const FileManager*, std::string>> lists = {
        {&cpu, ""}, {&cpuVec, "cpu_vec_"}, {&core, "core_"}, {&ops, "ops_"}, {&cuda, "cuda_"}};
    if (xpu) lists.emplace_back(xpu.get(), "xpu_");
    return lists;
  }
};

// torchgen's write_outputs for every list, beside the --output-dependencies file.
void writeDependencyLists(const std::string& option, const FileManagers& fms, OutputDirs& outputs,
                          support::Diagnostics& diags) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(fs::absolute(option, ec), ec);
  if (ec) {
    diags.error(support::SourceLoc{option}, "cannot resolve the output dependencies path: " + ec.message());
    return;
  }
  const std::string path = resolved.string();
  const std::string name(pathName(path));
  const std::string stem(pathStem(name));
  const std::string dir = purePath(resolved.parent_path().string());
  for (const auto& [fm, prefix] : fms.dependencyLists())
    outputs.sinkFor(dir).write(prefix + name, fm->outputsList(prefix + stem));
}

}  // namespace

namespace {

// How many families run at once: OPGEN_JOBS, else the number of cores (at most 8).
unsigned jobCount() {
  if (const char* env = std::getenv("OPGEN_JOBS"); env != nullptr && *env != '\0') {
    const int n = std::atoi(env);
    if (n > 0) return static_cast<unsigned>(n);
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

// 0, 1, ..., n-1.
std::vector<size_t> tableOrder(size_t n) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  return order;
}

// The order in which to start the families: the heaviest first (so that the threads finish
// together), the others in table order.
std::vector<size_t> scheduleOrder(const std::vector<const Family*>& todo) {
  std::vector<size_t> order = tableOrder(todo.size());
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return todo[a]->weight > todo[b]->weight; });
  return order;
}

// Which family a free thread runs next: the first of `order` not started yet, skipping a family
// that creates many files in ops/ while another such family runs, unless only those are left. On
// ext4, threads creating files in one directory serialize on its lock and spin meanwhile: creating
// 7162 empty files took 210-230 ms of CPU on two threads in one directory, 130-150 ms in two
// directories, 120-130 ms on one thread. On ATen into an empty folder this saves about 30 ms of
// CPU (463 -> 432 and 527 -> 496 ms in two rounds of alternating runs).
class FamilyQueue {
 public:
  FamilyQueue(const std::vector<const Family*>& todo, std::vector<size_t> order)
      : todo_(todo), order_(std::move(order)), started_(order_.size(), false) {}

  // The index into `todo` of the family to run, or nullopt when every family has started.
  std::optional<size_t> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<size_t> pick;
    for (size_t k = 0; k < order_.size(); ++k) {
      if (started_[k]) continue;
      if (!pick) pick = k;
      if (!(todo_[order_[k]]->manyFilesInOps && opsBusy_ > 0)) {
        pick = k;
        break;
      }
    }
    if (!pick) return std::nullopt;
    started_[*pick] = true;
    const size_t i = order_[*pick];
    if (todo_[i]->manyFilesInOps) ++opsBusy_;
    return i;
  }
  void finished(size_t i) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (todo_[i]->manyFilesInOps) --opsBusy_;
  }

 private:
  const std::vector<const Family*>& todo_;
  const std::vector<size_t> order_;
  std::vector<bool> started_;
  int opsBusy_ = 0;
  std::mutex mutex_;
};

// Runs the families on `jobs` threads, each family on one thread; families are independent and
// write through thread-safe writers. Records every family's time in table order. Diagnostics
// reported concurrently are put in location order afterwards, so the output stays deterministic.
bool emitFamilies(const std::vector<const Family*>& todo, const dest::EmitContext& ctx, const dest::Writers& writers,
                  unsigned jobs, support::Diagnostics& diags, GenReport& report) {
  std::vector<double> ms(todo.size(), 0.0);
  std::vector<char> done(todo.size(), 0);  // not vector<bool>: threads write neighbouring elements
  FamilyQueue queue(todo, jobs > 1 ? scheduleOrder(todo) : tableOrder(todo.size()));
  auto worker = [&] {
    while (std::optional<size_t> next = queue.take()) {
      const size_t i = *next;
      if (diags.hasErrors()) return;  // like torchgen, stop at the first failing family
      const support::Stopwatch clock;
      todo[i]->emit(ctx, writers);
      ms[i] = clock.ms();
      done[i] = 1;
      queue.finished(i);
    }
  };
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(todo.size()));
  if (jobs <= 1) {
    worker();
  } else {
    // The calling thread is one of the workers: its heap holds the memory the load freed.
    std::vector<std::thread> threads;
    for (unsigned j = 1; j < jobs; ++j) threads.emplace_back(worker);
    worker();
    for (std::thread& t : threads) t.join();
    diags.sortByLocation();
  }
  for (size_t i = 0; i < todo.size(); ++i) {
    if (!done[i]) continue;
    report.emittedFamilies.emplace_back(todo[i]->name);
    report.timer.add(std::string(todo[i]->name), ms[i]);
  }
  return !diags.hasErrors();
}

}  // namespace

std::vector<FamilyInfo> genFamilies() {
  std::vector<FamilyInfo> out;
  for (const Family& f : kFamilies) out.push_back({f.name, phaseName(f.phase)});
  return out;
}

namespace {

// What a run builds and uses until its end. runGen hands it to GenReport::retained, so that a
// process about to exit can leave it to the OS: freeing the model, the file managers' records and
// the table of an ATen run takes about 10 ms.
struct RunState {
  explicit RunState(support::Diagnostics& diags) : templates(diags) {}
  std::optional<model::Operators> ops;
  TemplateCache templates;
  std::unique_ptr<FileManagers> fms;
  dest::ApiTable api;
};

}  // namespace

bool runGen(const GenOptions& options, OutputDirs& outputs, support::Diagnostics& diags, GenReport& report) {
  auto state = std::make_unique<RunState>(diags);
  std::optional<model::Operators>& ops = state->ops;
  support::PhaseTimer& timer = report.timer;
  std::optional<SelectiveBuilder> selector = makeSelector(options, diags);
  if (!selector) return false;
  const SelectiveBuilder everything = SelectiveBuilder::selectAll();
  DispatchKeySets keys = dispatchKeySets(options);

  const ModelFiles files{.nativeFunctions = osPathJoin(options.sourcePath, "native/native_functions.yaml"),
                         .tags = osPathJoin(options.sourcePath, "native/tags.yaml")};
  model::LoadOptions load;
  load.ignoreKeys = keys.ignoreKeys;
  // While the loader checks, generates and groups functions, a core is free: it makes the C++ API
  // entries of the parsed functions, which the headers need later (every function's).
  load.alongside = [&api = state->api](const model::NativeFunction& f) { api.of(f).call(); };
  ops = loadModel(files, load, diags);
  if (!ops) return false;
  timer.lap("load");

  // Output directories, created up front as torchgen does (f-strings, not os.path.join).
  const std::string coreDir = options.installDir + "/core";
  const std::string opsDir = options.installDir + "/ops";
  const std::string headeronlyDir = options.headeronlyInstallDir.value_or(coreDir);
  for (const std::string& dir : {coreDir, opsDir, options.aotiInstallDir, headeronlyDir})
    outputs.makeDirectory(purePath(dir));
  if (diags.hasErrors()) return false;

  TemplateCache& templates = state->templates;
  const std::string templateDir = osPathJoin(options.sourcePath, "templates");
  auto fm = [&](const std::string& dir) { return FileManager(dir, templateDir, options.dryRun, templates, outputs, diags); };
  state->fms.reset(new FileManagers{fm(coreDir), fm(options.installDir), fm(options.installDir), fm(options.installDir),
                                    fm(opsDir), fm(options.aotiInstallDir), fm(headeronlyDir), nullptr});
  FileManagers& fms = *state->fms;
  if (options.xpu)
    fms.xpu = std::make_unique<FileManager>(options.installDir, templateDir, options.dryRun, templates, outputs, diags);

  const dest::EmitContext ctx = emitContext(options, *ops, *selector, everything, keys, diags, state->api);
  const dest::Writers writers = fms.writers();
  std::vector<const Family*> todo;
  for (Phase phase : {Phase::Sources, Phase::Headers, Phase::DeclarationsYaml}) {
    if (!options.generates(phaseName(phase))) continue;
    for (const Family& family : kFamilies) {
      if (family.phase != phase || !family.applies(ctx)) continue;
      todo.push_back(&family);
    }
  }
  const bool ok = emitFamilies(todo, ctx, writers, jobCount(), diags, report);
  timer.skip();
  report.retained = std::move(state);
  if (!ok) return false;

  if (options.outputDependencies && !options.outputDependencies->empty()) {
    writeDependencyLists(*options.outputDependencies, fms, outputs, diags);
    timer.lap("output lists");
  }
  return !diags.hasErrors();
}

namespace {

Outcome runGenCommand(const Invocation& invocation, support::Diagnostics& diags) {
  auto options = parseGenCommandLine(invocation.args);
  std::optional<std::string> problem;
  if (!options) {
    problem = options.error().message;
  } else if (options->help) {
    std::cout << genUsage();
    return {};
  } else {
    problem = checkGenOptions(*options);
  }
  if (problem) return usageError("gen", *problem);
  auto outputs = std::make_shared<DiskOutputDirs>(diags);
  GenReport report;
  runGen(*options, *outputs, diags, report);
  outputs->commit();  // or, after an error, nothing: the files stay as they were
  report.timer.lap("commit");
  for (const std::string& line : outputs->printed()) std::cout << line << '\n';
  // OPGEN_TIMINGS=1: where the time went (an environment variable, so the command line stays torchgen's).
  if (const char* t = std::getenv("OPGEN_TIMINGS"); t != nullptr && *t != '\0' && std::string_view(t) != "0") {
    std::cout.flush();
    report.timer.print(std::cerr, "gen");
  }
  // The run's memory and the outputs' records go with the process (see Outcome::retained).
  using Kept = std::pair<std::shared_ptr<void>, std::shared_ptr<DiskOutputDirs>>;
  return finished(diags, std::make_shared<Kept>(std::move(report.retained), std::move(outputs)));
}

}  // namespace

const Command kGenCommand{
    .name = "gen",
    .synopsis = R"(  opgen gen [-s SRC] [-d INSTALL_DIR] [-o DEPS] [--per-operator-headers] [...]
        Generate ATen's sources like `python -m torchgen.gen`, with the same command line and the
        same files; `opgen gen --help` lists the options.
)",
    .run = runGenCommand};

}  // namespace opgen::gen
