#include "gen/Library.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "api/LibraryPt2.h"
#include "api/LibraryRules.h"
#include "dest/common/ApiTable.h"
#include "dest/common/OperatorRoots.h"
#include "dest/library/KernelCheck.h"
#include "dest/library/Library.h"
#include "gen/Command.h"
#include "gen/FileManager.h"
#include "gen/Load.h"
#include "gen/OutputManifest.h"
#include "gen/Selector.h"
#include "support/ObjectSymbols.h"
#include "support/OutputSink.h"
#include "support/Strings.h"

namespace opgen::gen {

namespace {

namespace fs = std::filesystem;

// The library's namespace: the one asked for, which every operator must use, or the first
// operator's; every entry checked against what a library needs (api/LibraryRules.h).
std::optional<std::string> libraryNamespace(const LibraryOptions& options, const model::Operators& ops,
                                            support::Diagnostics& diags) {
  if (ops.functions().empty()) {
    diags.error({options.yamlPath, 1, 1}, "no operators: an operator library needs at least one `- func:` entry");
    return std::nullopt;
  }
  const api::LibraryRulesOptions rules{.libtorch = options.libtorch.facts(),
                                       .pythonModule = options.pythonModule,
                                       .stableAbi = options.stableAbi};
  std::string ns = api::checkLibrary(ops, options.ns.value_or(""), rules, diags);
  const api::LibraryPt2Options pt2{
      .libtorch = rules.libtorch,
      .torchTags = options.libtorch.tags(),
      .torchRelease = std::to_string(options.libtorch.major) + "." + std::to_string(options.libtorch.minor),
      .defaultTags = options.defaultTags,
      .pythonFakes = options.pythonFakes};
  if (!api::checkLibraryTags(ops, pt2, diags, !options.checkKernels && !options.describe)) return std::nullopt;
  if (!options.checkKernels && !api::checkPythonFakes(ops, pt2, diags)) return std::nullopt;
  // (without fake tensors, as in PyTorch 1, nothing to warn about)
  if (!diags.hasErrors() && !options.describe && !options.checkKernels && rules.libtorch.fakeTensors)
    api::warnWithoutFakeKernels(ops, diags, options.stableAbi.has_value());
  if (!diags.hasErrors() && !options.describe && !options.checkKernels && rules.libtorch.fakeTensors)
    api::warnUnfunctionalizedViews(ops, diags, options.stableAbi.has_value());
  if (!diags.hasErrors() && !options.describe && !options.checkKernels && options.stableAbi)
    api::warnStableCallGaps(ops.functions(), diags);
  if (ns.empty()) {
    if (!diags.hasErrors()) diags.error({options.yamlPath, 1, 1}, "the library has no namespace");
    return std::nullopt;
  }
  return ns;
}

constexpr std::string_view kLibraryUsage = R"(Usage: opgen library YAML -o OUTPUT_DIR [options]

Generates an operator library's C++ from its native_functions.yaml (what the CMake function
add_operator_library runs at build time):
  OUTPUT_DIR/include/NS/{Functions.h,NativeFunctions.h,Operators.h}
  OUTPUT_DIR/include/NS/ops/OP{,_ops,_native}.h     (with --per-operator-headers)
  OUTPUT_DIR/src/{Operators.cpp,RegisterSchema.cpp,Register<Key>.cpp...,AutogenKernels.cpp}
  OUTPUT_DIR/python/NS/{__init__.py,__init__.pyi}   (with --python-module)
  OUTPUT_DIR/{include/NS/aoti_shims.h,src/AotiShims.cpp,python/NS/aoti.py}  (with --aoti-shims)
Files whose content is unchanged are not touched; on any error (a full disk included) no file is
changed, the stamp and the depfile included.

Options:
  -o, --output-dir DIR     where the files go (required)
  --namespace NS           the operators' namespace (default: the one the YAML uses; must agree)
  --backend KEY            register the kernels of dispatch key KEY (repeatable; CPU, CUDA, Meta, ...).
                           CompositeImplicitAutograd, CompositeExplicitAutograd and Meta are always
                           registered.
  --tags FILE              tags.yaml (default: tags.yaml beside YAML, if any)
  --default-tag TAG        register every operator with at::Tag::TAG too (repeatable; e.g.
                           pt2_compliant_tag). Each operator is also registered with the tags of its
                           `tags:`, and, where the PyTorch has them, `inplace` (in-place overloads) and
                           `out` (out= overloads); a tag the PyTorch does not have is an error.
  --shards N               split each Register<Key>.cpp into Register<Key>_0..N-1.cpp (default 1)
  --torch-version X[.Y]    the libtorch the code is compiled against (default 2.14): the facts of
                           that release about it (how optionals are spelled, what set_output_* and
                           the autograd functions take, ...)
  --torch-facts LIST       facts about that libtorch, NAME=0|1 comma-separated, over the version's
                           (add_operator_library reads them from the found libtorch's headers):
                           std-optional, slow-intarrayref-names, intrusive-nodes, view-funcs,
                           reverse-view-funcs, named-tensors, diagnostic-macros,
                           meta-autograd-fallthrough, device-index-and-symbool, symbool-schema-type,
                           set-python-module, fake-tensors, stable-abi, stable-inplace-out-tags,
                           view-meta-classes, view-meta-symbolic-inputs
  --torch-tags LIST        at::Tag's enumerators in that libtorch, comma-separated, over the
                           version's (add_operator_library reads them from its enum_tag.h)
  --derivatives FILE       derivatives.yaml: the backward (and forward-mode) formulas of operators, in
                           torchgen's format; also writes src/RegisterAutograd.cpp (graph nodes and
                           Autograd kernels). Operators with a kernel and no formulas get PyTorch's
                           not-implemented Autograd kernel (a gradient through one is an error at
                           backward); an entry whose inputs are all non_differentiable runs its
                           operator below autograd.
  --per-operator-headers   also write the headers of each operator (OP: its name without overload and
                           in-place suffix): ops/OP.h (its C++ API), ops/OP_ops.h, ops/OP_native.h
                           (its kernels); Functions.h, Operators.h and NativeFunctions.h then include
                           them. A source that includes only the headers of the operators it uses is
                           not recompiled when another operator changes. Headers of operators no
                           longer in the YAML are removed.
  --python-module          also write the Python package NS: one typed function per operator
                           (calling torch.ops.NS) and a .pyi stub
  --python-fakes FILE      the Python fake kernels of the operators whose entry says `fake: python`
                           (torch.library.register_fake); needs --python-module. Copied into the
                           package as NS/fake.py, which NS/__init__.py imports once the library is
                           loaded (PyTorch 2; PyTorch 1 has no fake tensors), checking that every
                           such operator got one and no other did; the registration names NS.fake
                           as the operators' Python module (m.set_python_module)
  --aoti-shims             also write AOTInductor C shims: per functional operator and device (cpu,
                           cuda) aoti_torch_DEVICE_NS_OP(...) in src/AotiShims.cpp, declared in
                           include/NS/aoti_shims.h, and with --python-module python/NS/aoti.py, whose
                           configure() gives them to AOTInductor. An operator without one (it mutates,
                           a type without C form, ...) is noted at its entry: compiled models call it
                           through the proxy executor
  --python-library-path FILE
                           the shared library that `import NS` loads (unless $OPGEN_<NS>_LIBRARY
                           names another), found relative to the package's folder (the package
                           holds FILE's path relative to OUTPUT_DIR/python/NS)
  --stable-abi X.Y         generate the library for PyTorch's stable ABI of release X.Y (2.10 or later,
                           at most the libtorch's own): one binary for every PyTorch from X.Y on.
                           Kernels take the stable types (torch::stable::Tensor, std::optional,
                           torch::headeronly::ScalarType, int64_t, double, bool, ...) in schema order
                           and are registered boxed (STABLE_TORCH_LIBRARY, TORCH_BOX); the C++ API
                           calls torch_call_dispatcher; every source compiles with
                           TORCH_TARGET_VERSION for X.Y (--describe's "compile_definitions"). A type
                           the stable ABI cannot pass (Scalar, SymInt, Generator, ...) is an error at
                           its argument; structured kernels, autogen:, tags before 2.12,
                           --derivatives and --per-operator-headers are refused.
  --templates DIR          the plugin's templates/library directory (default: beside the executable)
  --describe               print what a build needs to know, as JSON, and stop: the namespace, the
                           link anchor (the symbol whose reference keeps every registration in a
                           link), the compile definitions of the library and its users, and the
                           files by kind ("headers", "sources", "python"), relative to OUTPUT_DIR (with --namespace and without --per-operator-headers, the YAML
                           is not read)
  --stamp FILE             touch FILE after a successful run
  --depfile FILE           write FILE: the stamp's dependencies (YAML, tags, templates), for the build
                           tool; needs --stamp (the target it names)
  --depfile-outputs        list the outputs among those dependencies too (Unix Makefiles)
  --check-kernels FILE...  generate nothing: check that the FILEs (every argument after this option:
                           the library's objects, and archives or shared libraries it links) define
                           every kernel the library's registration calls, as the linker will need
                           them; one error per missing kernel, at its YAML entry (what
                           add_operator_library runs before linking the library)
  -h, --help               this text
)";

// --check-kernels: the files' symbols against the kernels the library's registration calls.
bool checkKernels(const std::vector<std::string>& paths, const dest::EmitContext& ctx, const LibraryOptions& options,
                  support::Diagnostics& diags) {
  std::vector<dest::SymbolFile> files;
  for (const std::string& path : paths) {
    support::Expected<support::ObjectSymbols> symbols = support::readObjectSymbols(path);
    if (!symbols) {
      diags.error(support::SourceLoc{path}, "cannot read its symbols: " + symbols.error().message);
      continue;
    }
    files.push_back({path, symbols.take()});
  }
  if (diags.hasErrors()) return false;
  const std::vector<dest::LibraryKernel> kernels =
      options.stableAbi ? dest::libraryStableKernels(ctx, *options.stableAbi) : dest::libraryKernels(ctx);
  if (diags.hasErrors()) return false;
  dest::checkLibraryKernels(kernels, files, {options.yamlPath, 0, 0}, diags);
  return !diags.hasErrors();
}

// The per-operator headers (include/NS/ops/) that an earlier run generated and this one did not: the
// headers of operators no longer in the YAML, or all of them when per-operator headers are off. A
// source that still includes one then fails to compile at its #include, not later at the link or at
// run time. Called after a successful commit; a file that cannot be removed is a warning.
void removeStaleOperatorHeaders(const std::string& outputDir, const dest::LibraryFiles& files, support::Diagnostics& diags) {
  const fs::path dir = fs::path(outputDir) / dest::libraryHeaderDir(files.ns) / "ops";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::set<fs::path> written;
  for (const std::string& h : files.headers) written.insert((fs::path(outputDir) / h).lexically_normal());
  std::vector<fs::path> stale;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec) || e.path().extension() != ".h" || written.count(e.path().lexically_normal()) > 0) continue;
    std::ifstream in(e.path());
    std::string head(256, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (support::contains(head, "@generated by opgen")) stale.push_back(e.path());
  }
  for (const fs::path& p : stale)
    if (!fs::remove(p, ec) && ec) diags.warning(support::SourceLoc{p.string()}, "cannot remove this stale header: " + ec.message());
}

// The shared library the Python package loads, relative to the package's folder
// (OUTPUT_DIR/python/NS), where the package looks for it: no generated file holds an absolute path,
// so that compiler and build caches share the outputs across folders, and a build tree can move.
std::optional<std::string> packageRelativeLibrary(const LibraryOptions& options, const std::string& ns) {
  if (!options.pythonLibraryPath) return std::nullopt;
  std::error_code ec;
  const fs::path library = fs::absolute(*options.pythonLibraryPath, ec).lexically_normal();
  const fs::path package = fs::absolute(fs::path(options.outputDir) / "python" / ns, ec).lexically_normal();
  const fs::path relative = library.lexically_relative(package);
  return relative.empty() ? library.generic_string() : relative.generic_string();
}

// --describe's JSON.
nlohmann::ordered_json describe(const dest::LibraryFiles& files, const LibraryOptions& options) {
  nlohmann::ordered_json j;
  j["namespace"] = files.ns;
  j["link_anchor"] = files.linkAnchor;
  j["compile_definitions"] = nlohmann::ordered_json::array();
  if (options.stableAbi) j["compile_definitions"].push_back(options.stableAbi->compileDefinition());
  j["headers"] = files.headers;
  j["sources"] = files.sources;
  j["python"] = files.python;
  return j;
}

Outcome runLibraryCommand(const Invocation& invocation, support::Diagnostics& diags) {
  auto options = parseLibraryCommandLine(invocation.args, pluginTemplateDir(invocation.executable, "library"));
  if (!options) return usageError("library", options.error().message);
  if (options->help) {
    std::cout << libraryUsage();
    return {};
  }
  runLibrary(*options, diags, std::cout);
  return finished(diags);
}

}  // namespace

const Command kLibraryCommand{
    .name = "library",
    .synopsis = R"(  opgen library YAML -o OUTPUT_DIR [--backend KEY]... [--namespace NS] [...]
        Generate an operator library's registration, kernel declarations and C++ API (what the
        CMake function add_operator_library runs); `opgen library --help` lists the options.
)",
    .run = runLibraryCommand};

std::string libraryUsage() { return std::string(kLibraryUsage); }

support::Expected<LibraryOptions> parseLibraryCommandLine(const std::vector<std::string>& args,
                                                          const std::string& defaultTemplateDir) {
  LibraryOptions o;
  o.templateDir = defaultTemplateDir;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    auto need = [&](std::optional<std::string> v) -> support::Expected<std::string> {
      if (!v) return support::makeError(a + " needs a value");
      return *v;
    };
    if (a == "-h" || a == "--help") {
      o.help = true;
      return o;
    }
    if (a == "--describe") { o.describe = true; continue; }
    if (a == "--depfile-outputs") { o.depfileOutputs = true; continue; }
    if (a == "--python-module") { o.pythonModule = true; continue; }
    if (a == "--per-operator-headers") { o.perOperatorHeaders = true; continue; }
    if (a == "--aoti-shims") { o.aotiShims = true; continue; }
    if (a == "--check-kernels") {
      o.checkKernels.emplace(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      if (o.checkKernels->empty()) return support::makeError("--check-kernels needs the files to check");
      break;
    }
    if (a.empty() || a[0] != '-') {
      if (!o.yamlPath.empty()) return support::makeError("unexpected argument '" + a + "' (one YAML only)");
      o.yamlPath = a;
      continue;
    }
    support::Expected<std::string> v = need(value());
    if (!v) return v.error();
    if (a == "-o" || a == "--output-dir") o.outputDir = *v;
    else if (a == "--namespace") o.ns = *v;
    else if (a == "--tags") o.tagsPath = *v;
    else if (a == "--templates") o.templateDir = *v;
    else if (a == "--stamp") o.stamp = *v;
    else if (a == "--depfile") o.depfile = *v;
    else if (a == "--python-library-path") o.pythonLibraryPath = *v;
    else if (a == "--python-fakes") o.pythonFakes = *v;
    else if (a == "--derivatives") o.derivativesPath = *v;
    else if (a == "--default-tag") o.defaultTags.push_back(*v);
    else if (a == "--backend") {
      std::optional<model::DispatchKey> key = model::parseDispatchKey(*v);
      if (!key) return support::makeError("--backend: unknown dispatch key '" + *v + "'");
      if (!model::isSupportedDispatchKey(*key))
        return support::makeError("--backend: " + *v + " is not a dispatch key that kernels can be registered for");
      o.backends.push_back(*key);
    } else if (a == "--shards") {
      char* end = nullptr;
      const long n = std::strtol(v->c_str(), &end, 10);
      if (*end != '\0' || n < 1 || n > 64) return support::makeError("--shards needs a number from 1 to 64, not '" + *v + "'");
      o.shards = static_cast<int>(n);
    } else if (a == "--stable-abi") {
      support::Expected<api::StableAbi> abi = api::StableAbi::parse(*v);
      if (!abi) return support::makeError("--stable-abi " + abi.error().message);
      o.stableAbi = *abi;
    } else if (a == "--torch-version") {
      if (std::string why = o.libtorch.setVersion(*v); !why.empty()) return support::makeError("--torch-version " + why);
    } else if (a == "--torch-facts") {
      if (std::string why = o.libtorch.addFacts(*v); !why.empty()) return support::makeError("--torch-facts " + why);
    } else if (a == "--torch-tags") {
      if (std::string why = o.libtorch.setTags(*v); !why.empty()) return support::makeError("--torch-tags " + why);
    } else {
      return support::makeError("unknown option '" + a + "'");
    }
  }
  if (o.yamlPath.empty()) return support::makeError("missing YAML (the library's native_functions.yaml)");
  if (o.outputDir.empty()) return support::makeError("missing -o OUTPUT_DIR");
  if (o.describe && o.checkKernels) return support::makeError("--describe and --check-kernels do not go together");
  if (o.templateDir.empty() && !o.describe && !o.checkKernels) return support::makeError("missing --templates DIR");
  if (o.depfile && !o.stamp) return support::makeError("--depfile needs --stamp FILE (the depfile's target)");
  if (o.depfileOutputs && !o.depfile) return support::makeError("--depfile-outputs needs --depfile FILE");
  if (o.stableAbi) {
    const std::string with = "--stable-abi " + o.stableAbi->str() + ": ";
    if (!o.libtorch.facts().stableAbi)
      return support::makeError(with + "the libtorch has no stable ABI for operator libraries (its torch/csrc/stable/c/shim.h "
                                       "declares no torch_library_impl; PyTorch 2.10 or later has it)");
    // (a major alone, minor 99, is its last release: as new as any)
    if (!api::StableAbi{o.libtorch.major, o.libtorch.minor}.atLeast(o.stableAbi->major, o.stableAbi->minor))
      return support::makeError(with + "newer than the libtorch the library is built against (" +
                                std::to_string(o.libtorch.major) + "." + std::to_string(o.libtorch.minor) +
                                "), whose headers do not have its API");
    if (o.derivativesPath)
      return support::makeError(with + "--derivatives (DERIVATIVES) is not available: the graph nodes and Autograd kernels "
                                       "it generates are written against libtorch's C++ API (torch::autograd), outside the "
                                       "stable ABI, which registers no Autograd kernels");
    if (o.perOperatorHeaders)
      return support::makeError(with + "--per-operator-headers (PER_OPERATOR_HEADERS) is not available: a stable-ABI "
                                       "library has two headers, Functions.h and NativeFunctions.h");
    if (o.aotiShims)
      return support::makeError(with + "--aoti-shims (AOTI_SHIMS) is not available: the shims call the kernels through "
                                       "libtorch's C++ API (the dispatcher's redispatch), outside the stable ABI");
    if (!o.stableAbi->atLeast(2, 12) && !o.defaultTags.empty())
      return support::makeError(with + "--default-tag (DEFAULT_TAGS) is not available: the stable ABI registers schemas "
                                       "with tags from PyTorch 2.12 on (torch_library_def_with_tags)");
  }
  return o;
}

bool runLibrary(const LibraryOptions& options, support::Diagnostics& diags, std::ostream& out) {
  if (options.ns && !api::isIdentifier(*options.ns)) {
    diags.error({}, "--namespace '" + *options.ns + "' is not a C++ identifier");
    return false;
  }
  const ModelFiles files{.nativeFunctions = options.yamlPath, .tags = options.tagsPath};
  // Kernels named without a namespace are in the library's (NS::native).
  model::LoadOptions load;
  load.defaultKernelNamespace = "";
  load.methodVariants = false;
  load.requireOutVariants = false;
  load.symintKernels = true;
  load.fakeKey = true;
  load.refusedKeys = {
      {"ufunc_inner_loop", "an operator library does not generate ufunc kernels"},
      {"python_module", "it places ATen's Python bindings; a library's Python functions are in its own package"},
      {"category_override", "it is for ATen's Python bindings"},
  };
  std::optional<model::Operators> ops;
  std::optional<std::string> ns = options.ns;
  // Describing the library needs the yaml only to learn the namespace.
  if (!options.describe || !ns || options.perOperatorHeaders) {
    ops = loadModel(files, load, diags);
    if (!ops) return false;
    ns = libraryNamespace(options, *ops, diags);
    if (!ns) return false;
  }
  if (options.aotiShims && std::pair(options.libtorch.major, options.libtorch.minor) < std::pair(2, 8)) {
    diags.error({}, "--aoti-shims needs PyTorch 2.8 or later (AOTInductor takes custom operators' C shims since 2.8, "
                    "and the shims use its aoti_torch/utils.h helpers), not " + std::to_string(options.libtorch.major) +
                    "." + std::to_string(options.libtorch.minor) + " (--torch-version)");
    return false;
  }
  if (options.pythonLibraryPath && !options.pythonModule) {
    diags.error({}, "--python-library-path needs --python-module");
    return false;
  }
  if (options.pythonFakes && !options.pythonModule) {
    diags.error({}, "--python-fakes needs --python-module (the package that imports the fake kernels)");
    return false;
  }
  dest::LibrarySpec spec{.ns = *ns,
                         .registered = dest::libraryRegisteredKeys(options.backends),
                         .shards = options.shards,
                         .pythonModule = options.pythonModule,
                         .pythonLibraryPath = packageRelativeLibrary(options, *ns),
                         .pythonFakes = options.pythonFakes.has_value(),
                         .pythonFakesText = {},
                         .autograd = options.derivativesPath.has_value(),
                         .perOperatorHeaders = options.perOperatorHeaders,
                         .operatorRoots = {},
                         .defaultTags = options.defaultTags,
                         .torchTags = options.libtorch.tags(),
                         .aotiShims = options.aotiShims,
                         .stableAbi = options.stableAbi};
  if (options.perOperatorHeaders) {
    if (!dest::checkOperatorHeaderNames(*ops, diags)) return false;
    for (const dest::OperatorRoot& root : dest::operatorRoots(*ops)) spec.operatorRoots.push_back(root.name);
  }
  const dest::LibraryFiles libraryFiles = dest::libraryFiles(spec);
  if (options.describe) {
    out << describe(libraryFiles, options).dump(1) << '\n';
    return true;
  }

  if (options.pythonFakes) {
    support::InputFiles inputs(diags);
    std::optional<std::string> text = inputs.read(*options.pythonFakes);
    if (!text) return false;
    spec.pythonFakesText = std::move(*text);
  }

  // (Not for --check-kernels, which needs no formulas: the step before the link repeats no warning of
  // the generation's.)
  std::optional<model::Derivatives> derivatives;
  if (options.derivativesPath && !options.checkKernels) {
    derivatives = loadDerivatives(*options.derivativesPath, *ops, *ns, diags);
    if (!derivatives) return false;
  }

  SelectiveBuilder everything = SelectiveBuilder::selectAll();
  dest::ApiTable api(options.libtorch.facts());
  const dest::EmitContext ctx{.ops = *ops,
                        .selector = everything,
                        .allOperators = everything,
                        .dispatchKeys = spec.registered,
                        .functionsKeys = {},
                        .staticDispatchIndices = {},
                        .aotiBackends = {},
                        .diags = diags,
                        .api = api,
                        .metaNamespace = *ns + "::meta"};
  if (options.checkKernels) return checkKernels(*options.checkKernels, ctx, options, diags);

  TemplateCache templates(diags);
  support::MemorySink memory(diags);
  MemoryWriter headers(options.templateDir, dest::libraryHeaderDir(*ns), templates, memory, diags);
  MemoryWriter sources(options.templateDir, dest::librarySourceDir(), templates, memory, diags);
  MemoryWriter python(options.templateDir, dest::libraryPythonDir(*ns), templates, memory, diags);
  dest::emitLibrary(ctx, spec, {headers, sources, &python}, derivatives ? &*derivatives : nullptr);
  if (diags.hasErrors()) return false;

  // The files are committed first, then the ones no longer generated are removed, and the stamp and
  // the depfile are written last, in a transaction of their own: a run stopped anywhere before (kill
  // -9 included) leaves the stamp old, so that the build runs opgen again (see OutputManifest.h).
  std::set<std::string> outputs;
  for (const auto& entry : memory.files()) outputs.insert(entry.first);
  OutputManifest manifest(options.outputDir, diags);
  support::FileTransaction transaction(diags);
  if (!manifest.claim(outputs, transaction)) return false;
  support::DirectorySink disk(options.outputDir, transaction);
  for (const auto& [path, text] : memory.files())
    if (!disk.write(path, text)) return false;

  std::vector<std::string> deps = {options.yamlPath};
  if (options.derivativesPath) deps.push_back(*options.derivativesPath);
  if (options.pythonFakes) deps.push_back(*options.pythonFakes);
  if (const std::string tags = files.tagsPath(); !tags.empty()) deps.push_back(tags);
  for (const std::string& t : templates.paths()) deps.push_back(t);
  if (options.depfileOutputs)
    for (const std::string& path : libraryFiles.all()) deps.push_back((fs::path(options.outputDir) / path).string());
  if (!transaction.commit()) return false;
  manifest.removeStale(outputs);
  removeStaleOperatorHeaders(options.outputDir, libraryFiles, diags);
  if (!manifest.finish(outputs)) return false;
  support::FileTransaction stamp(diags);
  if (!stageDepfileAndStamp(options.depfile, options.stamp, deps, stamp)) return false;
  return stamp.commit();
}

}  // namespace opgen::gen
