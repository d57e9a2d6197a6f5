// Conformance of `opgen gen` with `python -m torchgen.gen` (the reference, torchgen 2.14.1).
//
// Every configuration runs both tools once, each in its own empty folder, with the same command line
// (by default `-s SRC -d aten --aoti-install-dir aoti -o deps.cmake FLAGS...`, relative paths, so that
// the output lists spell the same paths), and compares:
//   - every file of the implemented families (kImplemented below): it must exist in both outputs and
//     be equal byte for byte (a mismatch shows the first differing lines);
//   - every other file opgen writes must also be one torchgen writes, equal byte for byte;
//   - the files torchgen writes that opgen does not implement yet are counted and listed, not failed;
//   - the --output-dependencies lists (deps.cmake, core_deps.cmake, ...): the same files, and each
//     equal to torchgen's once the entries of families opgen does not implement are left out;
//   - the folders both create (torchgen creates its output folders even in a dry run);
//   - for refused command lines, that both refuse (exit status 2 for what argparse refuses).
//
// Inputs:
//   Aten/*       torchgen's packaged ATen (native_functions.yaml, tags.yaml, templates): the default run,
//                --per-operator-headers, and dry runs (~15 s each for the reference; dry runs ~3 s)
//   Subset/*     a subset of ATen cut at test time (tool/test/reference/dump_model.py subset; the cut is
//                kept in BUILD/tool/test/gen_conformance_cache), with flag combinations (~1 s each)
//   LibOps/*     tool/test/data/gen_conformance/libops.yaml (custom namespaces, a quantized fragment,
//                escapes) with selections (selection.yaml, --op-registration-whitelist) and flags
//   Fixture/*    the model fixtures tool/test/data/conformance/*.yaml; those torchgen.gen itself fails
//                on are reported as skipped
//   KernelNamespaces/*  tool/test/data/gen_conformance/kernel_namespaces.yaml (every kernel outside
//                at::native) with --generate headers alone and with sources
//   Checked/GenConformanceAotiHeaders.*  LibOps with checked-in c_shim_*.h headers (absent, equal,
//                equal but CRLF, different), without --update-aoti-c-shim: exit codes, stdout, the error
//   CommandLine/* argparse's rules: abbreviations, `--opt=value`, `-sVALUE`, nargs="*", refusals
//
// The reference is shared/reference/torchgen-ref ($OPGEN_TORCHGEN_REF, else the path configured in
// CMake); without it every test is skipped, saying so. OPGEN_KEEP_TEMP=1 keeps the output folders.
//
// Run:  ctest --test-dir build -R GenConformance --output-on-failure
//   or  build/tool/test/opgen_tests --gtest_filter='*GenConformance*'
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "model/DispatchKey.h"

namespace {

namespace fs = std::filesystem;
using opgen::test::ProcessResult;
using opgen::test::reference;
using opgen::test::TempDir;
using opgen::test::describeDifference;
using opgen::test::lines;

// ---------------------------------------------------------------------------------------------------
// What opgen claims to produce: the files of the families Gen.cpp implements, as paths below the
// run's folder (-d aten, --aoti-install-dir aoti; the header-only folder defaults to aten/core).
// Extend this list when a family is implemented.

bool isDispatchKeyName(const std::string& name) { return opgen::model::parseDispatchKey(name).has_value(); }

bool isImplemented(const std::string& path, [[maybe_unused]] bool perOperatorHeaders, const std::string& headeronlyDir) {
  static const std::set<std::string> kAlways = {
      "aten/core/aten_interned_strings.h",  // core/aten_interned_strings.h
      "aten/core/ATenOpList.cpp",           // core/ATenOpList.cpp
      "aten/core/TensorMethods.cpp",        // core/TensorMethods.cpp
      "aten/RegisterSchema.cpp",            // RegisterSchema.cpp
      "aten/Functions.cpp",                 // Functions.cpp
      "aten/RegisterBackendSelect.cpp",     // RegisterBackendSelect.cpp
      "aten/core/TensorBody.h",             // core/TensorBody.h
      "aten/RedispatchFunctions.h",         // RedispatchFunctions.h
      "aten/RegistrationDeclarations.h",    // RegistrationDeclarations.h
  };
  // With --per-operator-headers these only include ATen/ops/*.h; without, they hold every declaration.
  static const std::set<std::string> kOperatorHeaders = {"aten/Functions.h", "aten/Operators.h",
                                                         "aten/NativeMetaFunctions.h", "aten/NativeFunctions.h",
                                                         "aten/MethodOperators.h"};
  if (kAlways.count(path) || kOperatorHeaders.count(path)) return true;
  // ops/{op}.h, ops/{op}_ops.h, ops/{op}_meta.h, ops/{op}_native.h, ops/{op}_{key}_dispatch.h
  if (path.rfind("aten/ops/", 0) == 0) return true;
  // Operators_{shard}.cpp, OperatorsEverything.cpp
  static const std::regex kOperatorsCpp(R"(aten/Operators(_[0-9]+|Everything)\.cpp)");
  if (std::regex_match(path, kOperatorsCpp)) return true;
  if (path == headeronlyDir + "/enum_tag.h") return true;  // core/enum_tag.h
  if (path == "aten/CompositeViewCopyKernels.cpp") return true;  // CompositeViewCopyKernels.cpp
  if (path == "aten/Declarations.yaml") return true;              // Declarations.yaml
  // aoti c_shim_{backend}.{cpp,h}; Ufunc{CPU,CPUKernel}_{op}.cpp, UfuncCUDA_{op}.cu
  static const std::regex kAotiShim(R"(aoti/c_shim_[a-z]+\.(cpp|h))");
  static const std::regex kUfunc(R"(aten/(UfuncCPU_\w+\.cpp|UfuncCPUKernel_\w+\.cpp|UfuncCUDA_\w+\.cu))");
  if (std::regex_match(path, kAotiShim) || std::regex_match(path, kUfunc)) return true;
  // RegisterFunctionalization_{shard}.cpp, FunctionalInverses.h, ViewMetaClasses.{h,cpp}, VmapGeneratedPlumbing.h
  static const std::set<std::string> kFunctionalization = {"aten/FunctionalInverses.h", "aten/ViewMetaClasses.h",
                                                           "aten/ViewMetaClasses.cpp", "aten/VmapGeneratedPlumbing.h"};
  static const std::regex kRegisterFunctionalization(R"(aten/RegisterFunctionalization(_[0-9]+|Everything)\.cpp)");
  if (kFunctionalization.count(path) || std::regex_match(path, kRegisterFunctionalization)) return true;
  // Register{DispatchKey}_{shard}.cpp, Register{DispatchKey}Everything.cpp, {DispatchKey}Functions_inl.h
  static const std::regex kRegisterDispatchKey(R"(aten/Register([A-Za-z0-9]+)(_[0-9]+|Everything)\.cpp)");
  static const std::regex kDispatchKeyFunctionsInl(R"(aten/([A-Za-z0-9_]+)Functions_inl\.h)");
  std::smatch key;
  if ((std::regex_match(path, key, kRegisterDispatchKey) || std::regex_match(path, key, kDispatchKeyFunctionsInl)) &&
      isDispatchKeyName(key[1].str()))
    return true;
  // {DispatchKey}Functions.h
  static const std::regex kDispatchKeyFunctions(R"(aten/([A-Za-z0-9_]+)Functions\.h)");
  std::smatch m;
  return std::regex_match(path, m, kDispatchKeyFunctions) && isDispatchKeyName(m[1].str());
}

// ---------------------------------------------------------------------------------------------------
// Configurations

enum class Input { Aten, Subset, LibOps, Fixture, None };
enum class Expect {
  Success,  // both succeed; outputs compared
  Refused,  // argparse refuses: both exit with 2
  Rejected  // torchgen's main() rejects it after parsing (a Python exception, 1); opgen refuses (2)
};

struct Config {
  Config(std::string n, Input in, std::vector<std::string> f, bool paths = true, Expect e = Expect::Success)
      : name(std::move(n)), input(in), flags(std::move(f)), defaultPaths(paths), expect(e) {}

  std::string name;
  Input input = Input::Aten;
  std::vector<std::string> flags;  // {SRC} and {DATA} are replaced
  bool defaultPaths = true;        // prepend -s {SRC} -d aten --aoti-install-dir aoti -o deps.cmake
  Expect expect = Expect::Success;
  fs::path fixture;                // Input::Fixture: the yaml
  fs::path fixtureTags;
};

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

fs::path dataDir() { return fs::path(OPGEN_TEST_DATA); }
fs::path genData() { return dataDir() / "gen_conformance"; }

std::vector<Config> atenConfigs() {
  return {
      {"Default", Input::Aten, {}},
      {"PerOperatorHeaders", Input::Aten, {"--per-operator-headers"}},
      {"DryRun", Input::Aten, {"--dry-run"}},
  };
}

std::vector<Config> subsetConfigs() {
  return {
      {"Default", Input::Subset, {}},
      {"BackendWhitelist", Input::Subset, {"--backend-whitelist", "CPU", "CUDA"}},
      {"OpRegistrationWhitelist", Input::Subset, {"--op-registration-whitelist", "aten::add", "aten::mul", "aten::empty"}},
      {"OpRegistrationWhitelistForceSchema", Input::Subset,
       {"--op-registration-whitelist", "aten::add", "aten::mul", "--force-schema-registration"}},
      {"StaticDispatchCPU", Input::Subset, {"--static-dispatch-backend", "CPU"}},
      {"StaticDispatchPerOperatorHeaders", Input::Subset,
       {"--static-dispatch-backend", "QuantizedCPU", "SparseCPU", "--per-operator-headers"}},
      {"SkipDispatcherOpRegistration", Input::Subset, {"--skip-dispatcher-op-registration"}},
      {"Rocm", Input::Subset, {"--rocm"}},
      {"Mps", Input::Subset, {"--mps"}},
      {"XpuMtiaPerOperatorHeaders", Input::Subset, {"--xpu", "--mtia", "--per-operator-headers"}},
      {"GenerateHeaders", Input::Subset, {"--generate", "headers"}},
      {"GenerateSourcesDeclarations", Input::Subset, {"--generate", "sources", "declarations_yaml"}},
      {"GenerateNothing", Input::Subset, {"--generate"}},
      {"HeaderonlyInstallDir", Input::Subset, {"--headeronly-install-dir", "headeronly"}},
      {"DryRunPerOperatorHeaders", Input::Subset, {"--dry-run", "--per-operator-headers"}},
      {"UpdateAotiCShim", Input::Subset, {"--update-aoti-c-shim"}},
      {"ExtendAotiCShim", Input::Subset, {"--extend-aoti-c-shim", "--xpu"}},
  };
}

std::vector<Config> libOpsConfigs() {
  return {
      {"Default", Input::LibOps, {}},
      {"PerOperatorHeadersAllBackends", Input::LibOps, {"--per-operator-headers", "--mps", "--xpu", "--mtia"}},
      {"SelectionYaml", Input::LibOps, {"--op-selection-yaml-path", "{DATA}/selection.yaml"}},
      {"SelectionYamlForceSchema", Input::LibOps,
       {"--op_selection_yaml_path", "{DATA}/selection.yaml", "--force-schema-registration"}},
      {"Whitelist", Input::LibOps, {"--op-registration-whitelist", "myops::foo", "aten::__and__", "quantized::none"}},
      {"WhitelistEmpty", Input::LibOps, {"--op-registration-whitelist"}},
      {"SkipDispatcherOpRegistration", Input::LibOps, {"--skip-dispatcher-op-registration", "--per-operator-headers"}},
      {"BackendWhitelistStaticDispatch", Input::LibOps,
       {"--backend-whitelist", "QuantizedCPU", "MPS", "--static-dispatch-backend", "CUDA", "Undefined"}},
  };
}

std::vector<Config> fixtureConfigs() {
  std::vector<Config> out;
  const fs::path dir = dataDir() / "conformance";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".yaml" && p.stem().string().rfind("tags", 0) != 0) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    fs::path tags = dir / ("tags_" + p.stem().string() + ".yaml");
    if (!fs::exists(tags)) tags = dir / "tags.yaml";
    std::string name = p.stem().string();
    std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    Config c{name, Input::Fixture, {}};
    c.fixture = p;
    c.fixtureTags = tags;
    out.push_back(c);
  }
  return out;
}

// Operators whose kernels are all outside at::native, with and without the sources phase.
std::vector<Config> kernelNamespaceConfigs() {
  std::vector<Config> out;
  for (auto& [name, flags] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"HeadersOnly", {"--generate", "headers"}},
           {"HeadersOnlyPerOperatorHeaders", {"--generate", "headers", "--per-operator-headers"}},
           {"HeadersOnlyStaticDispatch", {"--generate", "headers", "--static-dispatch-backend", "CUDA"}},
           {"SourcesAndHeadersPerOperatorHeaders", {"--generate", "sources", "headers", "--per-operator-headers"}}}) {
    Config c{"KernelNamespaces" + name, Input::Fixture, flags};
    c.fixture = genData() / "kernel_namespaces.yaml";
    c.fixtureTags = genData() / "tags.yaml";
    out.push_back(std::move(c));
  }
  return out;
}

// argparse's rules; the accepted ones are dry runs on libops.yaml whose output lists are compared.
std::vector<Config> commandLineConfigs() {
  auto accepted = [](std::string name, std::vector<std::string> args) {
    return Config{std::move(name), Input::LibOps, std::move(args), false, Expect::Success};
  };
  auto refused = [](std::string name, std::vector<std::string> extra, Expect e = Expect::Refused) {
    std::vector<std::string> args = {"-s", "{SRC}", "-d", "aten", "--dry-run"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Config{std::move(name), Input::LibOps, std::move(args), false, e};
  };
  return {
      accepted("Abbreviations", {"--source={SRC}", "--install-d=aten", "--aoti-install", "aoti", "--dry", "--output-dep",
                                 "deps.cmake", "--per", "--gen", "headers", "sources"}),
      accepted("UnderscoreAliasesAndShortValues",
               {"-s{SRC}", "--install_dir", "aten", "--aoti_install_dir=aoti", "-odeps.cmake", "--dry-run",
                "--backend_whitelist", "CPU", "--static_dispatch_backend"}),
      accepted("LastOccurrenceWins", {"-s", "{SRC}", "-d", "first", "-d=aten", "--aoti-install-dir", "aoti", "-o",
                                      "deps.cmake", "--generate", "sources", "--generate", "headers", "headers",
                                      "--dry-run"}),
      accepted("EmptyLists", {"-s", "{SRC}", "-d", "aten", "--aoti-install-dir", "aoti", "-o", "deps.cmake",
                              "--backend-whitelist", "--static-dispatch-backend", "--dry-run", "--mtia"}),
      accepted("NegativeNumberAsValue", {"-s", "{SRC}", "-d", "aten", "--aoti-install-dir", "-1", "-o", "deps.cmake",
                                         "--dry-run"}),
      accepted("EmptyOutputDependencies", {"-s", "{SRC}", "-d", "aten", "--aoti-install-dir", "aoti", "-o", "",
                                           "--dry-run"}),
      accepted("Help", {"--help", "--no-such-option"}),
      refused("UnknownOption", {"--no-such-option"}),
      refused("UnknownOptionWithValue", {"--foo=bar", "baz"}),
      refused("Positional", {"extra"}),
      refused("AmbiguousAbbreviation", {"--install", "x"}),
      refused("AmbiguousAliases", {"--he"}),
      refused("FlagWithValue", {"--dry-run=1"}),
      refused("HelpWithValue", {"-hx"}),
      refused("MissingValue", {"-o"}),
      refused("OptionAsValue", {"-o", "--rocm"}),
      refused("InvalidChoice", {"--generate", "headers", "everything"}),
      refused("ExplicitValueTakesOne", {"--generate=headers", "sources"}),
      refused("DoubleDash", {"--", "x"}),
      refused("BothSelections", {"--op-registration-whitelist", "aten::add", "--op-selection-yaml-path",
                                 "{DATA}/selection.yaml"}, Expect::Rejected),
      refused("UnknownStaticDispatchKey", {"--static-dispatch-backend", "CPU", "NotAKey"}, Expect::Rejected),
  };
}

// ---------------------------------------------------------------------------------------------------
// Source trees (SRC/native/native_functions.yaml, SRC/native/tags.yaml, SRC/templates)

fs::path makeSourceTree(const fs::path& dir, const fs::path& yaml, const fs::path& tags) {
  fs::create_directories(dir / "native");
  fs::copy_file(yaml, dir / "native/native_functions.yaml", fs::copy_options::overwrite_existing);
  fs::copy_file(tags, dir / "native/tags.yaml", fs::copy_options::overwrite_existing);
  fs::create_directory_symlink(reference().atenTemplates(), dir / "templates");
  return dir;
}

TempDir& scratch() {
  static TempDir dir("opgen-gen-conformance");
  return dir;
}

// The ATen subset. Cutting it takes ~1 s of Python, and ctest runs every configuration in its own
// process, so the cut yaml is kept beside the test binary, under a name that depends on everything it
// is made from (the reference package, dump_model.py, the prefixes); a new name means a new cut.
const std::vector<std::string> kSubsetPrefixes = {"add", "mul", "empty", "view", "conv", "quantize_per_tensor",
                                                  "_foreach_add", "abs", "copy", "fill", "to_sparse", "index",
                                                  "native_batch_norm", "zeros"};

fs::path cachedSubsetYaml(std::string& problem) {
  const auto& ref = reference();
  const fs::path script = fs::path(OPGEN_TEST_SCRIPTS) / "dump_model.py";
  std::string key = ref.root.string() + "\n" + opgen::test::readFile(script);
  for (const std::string& p : kSubsetPrefixes) key += "\n" + p;
  const fs::path cache = fs::read_symlink("/proc/self/exe").parent_path() / "gen_conformance_cache";
  const fs::path yaml = cache / ("aten_subset_" + std::to_string(std::hash<std::string>()(key)) + ".yaml");
  if (fs::exists(yaml)) return yaml;
  fs::create_directories(cache);
  const fs::path temp = scratch() / "subset.yaml";
  std::vector<std::string> args = {script.string(), "subset", ref.atenNativeFunctions().string(), temp.string()};
  args.insert(args.end(), kSubsetPrefixes.begin(), kSubsetPrefixes.end());
  ProcessResult p = ref.python(args);
  if (!p.ok()) {
    problem = "cannot cut the ATen subset: " + p.describe();
    return {};
  }
  // Atomic for concurrent test processes: copy beside the target, then rename.
  const fs::path partial = yaml.string() + "." + std::to_string(::getpid());
  fs::copy_file(temp, partial, fs::copy_options::overwrite_existing);
  fs::rename(partial, yaml);
  return yaml;
}

// The subset's source tree, made once per process.
fs::path subsetSource(std::string& problem) {
  static fs::path src;
  static std::string error;
  if (src.empty() && error.empty()) {
    fs::path yaml = cachedSubsetYaml(error);
    if (error.empty()) src = makeSourceTree(scratch() / "subset_src", yaml, reference().atenTags());
  }
  problem = error;
  return src;
}

fs::path sourceFor(const Config& c, std::string& problem) {
  switch (c.input) {
    case Input::Aten: return reference().root / "torchgen/packaged/ATen";
    case Input::Subset: return subsetSource(problem);
    case Input::LibOps: {
      static fs::path src = makeSourceTree(scratch() / "libops_src", genData() / "libops.yaml", genData() / "tags.yaml");
      return src;
    }
    case Input::Fixture: return makeSourceTree(scratch() / ("fixture_" + c.name), c.fixture, c.fixtureTags);
    case Input::None: return {};
  }
  return {};
}

std::vector<std::string> commandLine(const Config& c, const fs::path& src) {
  std::vector<std::string> args;
  if (c.defaultPaths) args = {"-s", src.string(), "-d", "aten", "--aoti-install-dir", "aoti", "-o", "deps.cmake"};
  for (std::string f : c.flags) {
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"{SRC}", src.string()},
                                   std::pair<std::string, std::string>{"{DATA}", genData().string()}}) {
      for (size_t pos; (pos = f.find(from)) != std::string::npos;) f.replace(pos, from.size(), to);
    }
    args.push_back(f);
  }
  return args;
}

// ---------------------------------------------------------------------------------------------------
// Comparing two output folders

struct Tree {
  std::map<std::string, fs::path> files;  // relative path -> absolute
  std::set<std::string> dirs;
};

Tree scan(const fs::path& root) {
  Tree t;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = fs::relative(it->path(), root).generic_string();
    if (it->is_directory()) t.dirs.insert(rel);
    else t.files.emplace(rel, it->path());
  }
  return t;
}

// A deps list without the entries of families opgen does not implement.
std::string filterDepsList(const std::string& text, const std::function<bool(const std::string&)>& implemented) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    std::string line = text.substr(start, last ? std::string::npos : end - start);
    const bool entry = line.size() > 6 && line.rfind("    \"", 0) == 0 && line.back() == '"';
    if (!entry || implemented(line.substr(5, line.size() - 6))) out += line + (last ? "" : "\n");
    if (last) break;
    start = end + 1;
  }
  // A filtered entry on the last line leaves a trailing newline the original does not have.
  if (!text.empty() && text.back() != '\n' && !out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

struct Comparison {
  int compared = 0;
  int lists = 0;                            // --output-dependencies lists compared
  std::vector<std::string> notImplemented;  // written by torchgen only
  std::vector<std::string> unlisted;        // compared, but missing from isImplemented(): add them there
};

// The entries of a deps list ("    \"PATH\"" lines).
std::set<std::string> depsEntries(const std::string& text) {
  std::set<std::string> out;
  for (const std::string& line : lines(text))
    if (line.size() > 6 && line.rfind("    \"", 0) == 0 && line.back() == '"') out.insert(line.substr(5, line.size() - 6));
  return out;
}

Comparison compareOutputs(const Config& c, const fs::path& refRoot, const fs::path& opgRoot,
                          const std::vector<std::string>& args) {
  Comparison result;
  const bool perOp = std::find(args.begin(), args.end(), "--per-operator-headers") != args.end() ||
                     std::find(args.begin(), args.end(), "--per") != args.end();
  std::string headeronly = "aten/core";
  if (auto it = std::find(args.begin(), args.end(), "--headeronly-install-dir"); it != args.end() && it + 1 != args.end())
    headeronly = *(it + 1);
  auto implemented = [&](const std::string& rel) { return isImplemented(rel, perOp, headeronly); };
  auto depsList = [](const std::string& rel) {
    return rel.find('/') == std::string::npos && rel.size() > 6 && rel.substr(rel.size() - 6) == ".cmake";
  };

  Tree ref = scan(refRoot), opg = scan(opgRoot);
  EXPECT_EQ(ref.dirs, opg.dirs) << "[" << c.name << "] the folders created differ";
  for (const auto& [rel, path] : ref.files) {
    if (depsList(rel)) {
      auto it = opg.files.find(rel);
      if (it == opg.files.end()) {
        ADD_FAILURE() << "[" << c.name << "] torchgen writes the output list " << rel << ", opgen does not";
        continue;
      }
      ++result.lists;
      // torchgen's list without the files of families opgen leaves out: an entry stays when it is a
      // claimed output or when opgen lists it too (so opgen's entries must all be torchgen's, in order).
      std::string actual = opgen::test::readFile(it->second);
      const std::set<std::string> listed = depsEntries(actual);
      std::string expected = filterDepsList(opgen::test::readFile(path), [&](const std::string& entry) {
        return implemented(entry) || listed.count(entry) != 0;
      });
      EXPECT_EQ(expected, actual) << "[" << c.name << "] " << describeDifference(rel, expected, actual)
                                  << "(torchgen's list without the files opgen does not implement)";
      continue;
    }
    auto it = opg.files.find(rel);
    if (it == opg.files.end()) {
      if (implemented(rel)) ADD_FAILURE() << "[" << c.name << "] opgen does not write " << rel << ", which torchgen writes";
      else result.notImplemented.push_back(rel);
      continue;
    }
    std::string expected = opgen::test::readFile(path), actual = opgen::test::readFile(it->second);
    ++result.compared;
    if (expected != actual) ADD_FAILURE() << "[" << c.name << "] " << describeDifference(rel, expected, actual);
    if (!implemented(rel)) result.unlisted.push_back(rel);
  }
  for (const auto& [rel, path] : opg.files)
    if (!ref.files.count(rel)) ADD_FAILURE() << "[" << c.name << "] opgen writes " << rel << ", which torchgen does not";
  return result;
}

std::string summary(const Config& c, const Comparison& r) {
  std::ostringstream s;
  s << "[" << c.name << "] " << r.compared << " files equal byte for byte, " << r.lists << " output lists equal; "
    << r.notImplemented.size() << " files of torchgen not implemented yet";
  if (!r.notImplemented.empty()) {
    s << " (";
    for (size_t i = 0; i < r.notImplemented.size() && i < 6; ++i) s << (i ? ", " : "") << r.notImplemented[i];
    if (r.notImplemented.size() > 6) s << ", ...";
    s << ")";
  }
  if (!r.unlisted.empty()) {
    s << "; " << r.unlisted.size() << " files compared that the test's list of implemented outputs lacks (";
    for (size_t i = 0; i < r.unlisted.size() && i < 6; ++i) s << (i ? ", " : "") << r.unlisted[i];
    if (r.unlisted.size() > 6) s << ", ...";
    s << "): add them to isImplemented()";
  }
  return s.str();
}

// ---------------------------------------------------------------------------------------------------
// The test

// `torchgen-ref gen ARGS` run in refRoot and `opgen gen ARGS` in opgRoot.
std::pair<ProcessResult, ProcessResult> runBoth(const std::vector<std::string>& args, const fs::path& refRoot,
                                                const fs::path& opgRoot) {
  std::vector<std::string> refArgs = {"gen"};
  refArgs.insert(refArgs.end(), args.begin(), args.end());
  opgen::test::ProcessOptions inRef, inOpgen;
  inRef.cwd = refRoot;
  inOpgen.cwd = opgRoot;
  ProcessResult r = reference().run(refArgs, inRef);
  std::vector<std::string> opgArgs = {opgen::test::opgenBinary().string(), "gen"};
  opgArgs.insert(opgArgs.end(), args.begin(), args.end());
  return {std::move(r), opgen::test::runProcess(opgArgs, inOpgen)};
}

class GenConformance : public testing::TestWithParam<Config> {};

TEST_P(GenConformance, MatchesTorchgen) {
  const Config& c = GetParam();
  OPGEN_REQUIRE_REFERENCE();
  std::string problem;
  const fs::path src = sourceFor(c, problem);
  ASSERT_TRUE(problem.empty()) << problem;

  TempDir work("opgen-gen-" + c.name);
  const fs::path refRoot = work / "torchgen", opgRoot = work / "opgen";
  fs::create_directories(refRoot);
  fs::create_directories(opgRoot);
  const std::vector<std::string> args = commandLine(c, src);

  const auto [r, o] = runBoth(args, refRoot, opgRoot);

  switch (c.expect) {
    case Expect::Refused:
    case Expect::Rejected: {
      EXPECT_EQ(r.exitCode, c.expect == Expect::Refused ? 2 : 1) << r.describe();
      EXPECT_EQ(o.exitCode, 2) << o.describe();
      // One line: "opgen gen: error: ...".
      EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
      EXPECT_EQ(o.err.rfind("opgen gen: error: ", 0), 0u) << o.err;
      EXPECT_TRUE(o.out.empty()) << o.out;
      return;
    }
    case Expect::Success: break;
  }
  if (!r.ok() && c.input == Input::Fixture) {
    // The exception's line of Python's traceback ("SomeError: ..."), else its last unindented line.
    static const std::regex exception(R"(^[A-Za-z_][\w.]*(Error|Exception)\b.*)");
    // An exception line that ends in ':' ("UnsatError:") has its message on the lines after it.
    std::string reason, exceptionLine;
    bool continues = false;
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);) {
      const size_t text = line.find_first_not_of(' ');
      if (continues && text != std::string::npos) {
        exceptionLine += " " + line.substr(text);
        continues = false;
        continue;
      }
      if (line.empty() || line[0] == ' ' || line.rfind("Traceback", 0) == 0) continue;
      reason = line;
      if (std::regex_match(line, exception)) {
        exceptionLine = line;
        continues = line.back() == ':';
      }
    }
    if (!exceptionLine.empty()) reason = exceptionLine;
    GTEST_SKIP() << "torchgen.gen fails on this input, so there is nothing to compare: " << reason.substr(0, 300);
  }
  ASSERT_TRUE(r.ok()) << r.describe();
  ASSERT_TRUE(o.ok()) << o.describe();
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    EXPECT_NE(o.out.find("Usage: opgen gen"), std::string::npos) << o.out;
    return;
  }
  // opgen prints nothing on success.
  EXPECT_TRUE(o.err.empty()) << o.err;

  Comparison result = compareOutputs(c, refRoot, opgRoot, args);
  EXPECT_TRUE(result.notImplemented.empty()) << "opgen leaves out files that torchgen writes";
  const std::string text = summary(c, result);
  std::cout << text << "\n";
  RecordProperty("summary", text);
}

std::string configName(const testing::TestParamInfo<Config>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Aten, GenConformance, testing::ValuesIn(atenConfigs()), configName);
INSTANTIATE_TEST_SUITE_P(Subset, GenConformance, testing::ValuesIn(subsetConfigs()), configName);
INSTANTIATE_TEST_SUITE_P(LibOps, GenConformance, testing::ValuesIn(libOpsConfigs()), configName);
INSTANTIATE_TEST_SUITE_P(Fixture, GenConformance, testing::ValuesIn(fixtureConfigs()), configName);
INSTANTIATE_TEST_SUITE_P(KernelNamespaces, GenConformance, testing::ValuesIn(kernelNamespaceConfigs()), configName);
INSTANTIATE_TEST_SUITE_P(CommandLine, GenConformance, testing::ValuesIn(commandLineConfigs()), configName);

// ---------------------------------------------------------------------------------------------------
// The checked-in AOTInductor C shim headers: without --update-aoti-c-shim torchgen compares the
// c_shim_*.h headers in --aoti-install-dir with the ones it computes. A missing one is a line on
// standard output ("aoti/c_shim_cpu.h not found"), a different one ends the run with status 1.

// How a header is put in the aoti folder of both runs before they start.
enum class Checked { Absent, Equal, EqualCrlf, Different };

struct AotiHeaderCase {
  std::string name;
  Checked aten;  // c_shim_aten.h; c_shim_cpu.h is always there, unchanged, and c_shim_cuda.h never
};

void PrintTo(const AotiHeaderCase& c, std::ostream* os) { *os << c.name; }

class GenConformanceAotiHeaders : public testing::TestWithParam<AotiHeaderCase> {};

TEST_P(GenConformanceAotiHeaders, MatchesTorchgen) {
  const AotiHeaderCase& c = GetParam();
  const auto& ref = reference();
  OPGEN_REQUIRE_REFERENCE();
  std::string problem;
  const fs::path src = sourceFor(Config{"LibOps", Input::LibOps, {}}, problem);
  ASSERT_TRUE(problem.empty()) << problem;

  TempDir work("opgen-gen-aoti-" + c.name);
  // The headers as torchgen writes them with --update-aoti-c-shim.
  opgen::test::ProcessOptions inWork;
  inWork.cwd = work.path();
  ProcessResult update = ref.run({"gen", "-s", src.string(), "-d", "aten", "--aoti-install-dir", "headers",
                                  "--update-aoti-c-shim", "--generate", "sources"}, inWork);
  ASSERT_TRUE(update.ok()) << update.describe();
  auto prepare = [&](const fs::path& root) {
    fs::create_directories(root / "aoti");
    fs::copy_file(work / "headers/c_shim_cpu.h", root / "aoti/c_shim_cpu.h");
    std::string aten = opgen::test::readFile(work / "headers/c_shim_aten.h");
    switch (c.aten) {
      case Checked::Absent: return;
      case Checked::Equal: break;
      case Checked::EqualCrlf: aten = std::regex_replace(aten, std::regex("\n"), "\r\n"); break;
      case Checked::Different: aten.insert(aten.find("\n\n") + 1, "// a line that torchgen does not write\n"); break;
    }
    opgen::test::writeFile(root / "aoti/c_shim_aten.h", aten);
  };
  const fs::path refRoot = work / "torchgen", opgRoot = work / "opgen";
  prepare(refRoot);
  prepare(opgRoot);
  const auto [r, o] = runBoth({"-s", src.string(), "-d", "aten", "--aoti-install-dir", "aoti"}, refRoot, opgRoot);

  const std::string changed = "The generated AOTInductor C shim header files have unexpectedly changed.";
  if (c.aten == Checked::Different) {
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_NE(r.err.find(changed), std::string::npos) << r.err;
    EXPECT_EQ(o.exitCode, 1) << o.describe();
    // One error line, at the first line that differs.
    EXPECT_EQ(o.err.rfind("aoti/c_shim_aten.h:", 0), 0u) << o.err;
    EXPECT_NE(o.err.find(changed), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  } else {
    ASSERT_TRUE(r.ok()) << r.describe();
    ASSERT_TRUE(o.ok()) << o.describe();
    EXPECT_TRUE(o.err.empty()) << o.err;
  }
  // The "not found" lines, in torchgen's order (the headers checked before a failing one).
  EXPECT_EQ(r.out, o.out);
  EXPECT_NE(r.out.find("aoti/c_shim_cuda.h not found\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("c_shim_cpu.h"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Checked, GenConformanceAotiHeaders,
                         testing::Values(AotiHeaderCase{"Absent", Checked::Absent}, AotiHeaderCase{"Equal", Checked::Equal},
                                         AotiHeaderCase{"EqualCrlf", Checked::EqualCrlf},
                                         AotiHeaderCase{"Different", Checked::Different}),
                         [](const testing::TestParamInfo<AotiHeaderCase>& info) { return info.param.name; });

}  // namespace
