#include "gen/GenOptions.h"

#include <algorithm>
#include <array>

#include "gen/ArgParse.h"

namespace opgen::gen {

namespace {

// ---------------------------------------------------------------------------------------------
// The options, in torchgen's order of declaration (argparse lists ambiguous matches in this order).

enum class Id {
  Help, SourcePath, OutputDependencies, DryRun, PerOperatorHeaders, InstallDir, AotiInstallDir,
  HeaderonlyInstallDir, Rocm, Mps, Xpu, Mtia, OpRegistrationWhitelist, OpSelectionYamlPath, BackendWhitelist,
  StaticDispatchBackend, SkipDispatcherOpRegistration, ForceSchemaRegistration, Generate, UpdateAotiCShim,
  ExtendAotiCShim,
};

using argparse::Arity;

#define O(id) static_cast<int>(Id::id)
const std::vector<argparse::Option>& specs() {
  static const std::vector<argparse::Option> table = {
      {O(Help), Arity::Flag, {"-h", "--help"}},
      {O(SourcePath), Arity::One, {"-s", "--source-path"}},
      {O(OutputDependencies), Arity::One, {"-o", "--output-dependencies"}},
      {O(DryRun), Arity::Flag, {"--dry-run"}},
      {O(PerOperatorHeaders), Arity::Flag, {"--per-operator-headers"}},
      {O(InstallDir), Arity::One, {"-d", "--install-dir", "--install_dir"}},
      {O(AotiInstallDir), Arity::One, {"--aoti-install-dir", "--aoti_install_dir"}},
      {O(HeaderonlyInstallDir), Arity::One, {"--headeronly-install-dir", "--headeronly_install_dir"}},
      {O(Rocm), Arity::Flag, {"--rocm"}},
      {O(Mps), Arity::Flag, {"--mps"}},
      {O(Xpu), Arity::Flag, {"--xpu"}},
      {O(Mtia), Arity::Flag, {"--mtia"}},
      {O(OpRegistrationWhitelist), Arity::Many, {"--op-registration-whitelist", "--op_registration_whitelist"}},
      {O(OpSelectionYamlPath), Arity::One, {"--op-selection-yaml-path", "--op_selection_yaml_path"}},
      {O(BackendWhitelist), Arity::Many, {"--backend-whitelist", "--backend_whitelist"}},
      {O(StaticDispatchBackend), Arity::Many, {"--static-dispatch-backend", "--static_dispatch_backend"}},
      {O(SkipDispatcherOpRegistration), Arity::Flag,
       {"--skip-dispatcher-op-registration", "--skip_dispatcher_op_registration"}},
      {O(ForceSchemaRegistration), Arity::Flag, {"--force-schema-registration", "--force_schema_registration"}},
      {O(Generate), Arity::Many, {"--generate"}},
      {O(UpdateAotiCShim), Arity::Flag, {"--update-aoti-c-shim"}},
      {O(ExtendAotiCShim), Arity::Flag, {"--extend-aoti-c-shim"}},
  };
  return table;
}
#undef O

constexpr std::array<std::string_view, 3> kGenerateChoices = {"headers", "sources", "declarations_yaml"};

// ---------------------------------------------------------------------------------------------
// The actions.

// Stores the values of one occurrence of an option. Returns an error message, or "" when fine.
std::string takeAction(const argparse::Option& spec, std::vector<std::string> values, GenOptions& o) {
  auto one = [&] { return values.front(); };
  switch (static_cast<Id>(spec.id)) {
    case Id::Help: o.help = true; break;
    case Id::SourcePath: o.sourcePath = one(); break;
    case Id::OutputDependencies: o.outputDependencies = one(); break;
    case Id::DryRun: o.dryRun = true; break;
    case Id::PerOperatorHeaders: o.perOperatorHeaders = true; break;
    case Id::InstallDir: o.installDir = one(); break;
    case Id::AotiInstallDir: o.aotiInstallDir = one(); break;
    case Id::HeaderonlyInstallDir: o.headeronlyInstallDir = one(); break;
    case Id::Rocm: o.rocm = true; break;
    case Id::Mps: o.mps = true; break;
    case Id::Xpu: o.xpu = true; break;
    case Id::Mtia: o.mtia = true; break;
    case Id::OpRegistrationWhitelist: o.opRegistrationWhitelist = std::move(values); break;
    case Id::OpSelectionYamlPath: o.opSelectionYamlPath = one(); break;
    case Id::BackendWhitelist: o.backendWhitelist = std::move(values); break;
    case Id::StaticDispatchBackend: o.staticDispatchBackend = std::move(values); break;
    case Id::SkipDispatcherOpRegistration: o.skipDispatcherOpRegistration = true; break;
    case Id::ForceSchemaRegistration: o.forceSchemaRegistration = true; break;
    case Id::Generate:
      for (const std::string& v : values) {
        if (std::find(kGenerateChoices.begin(), kGenerateChoices.end(), v) == kGenerateChoices.end())
          return "argument --generate: invalid choice: " + argparse::pyRepr(v) +
                 " (choose from 'headers', 'sources', 'declarations_yaml')";
      }
      o.generate = std::move(values);
      break;
    case Id::UpdateAotiCShim: o.updateAotiCShim = true; break;
    case Id::ExtendAotiCShim: o.extendAotiCShim = true; break;
  }
  return "";
}

}  // namespace

bool GenOptions::generates(std::string_view what) const {
  return std::find(generate.begin(), generate.end(), what) != generate.end();
}

std::vector<model::DispatchKey> GenOptions::staticDispatchKeys() const {
  std::vector<model::DispatchKey> keys;
  if (staticDispatchBackend)
    for (const std::string& k : *staticDispatchBackend)
      if (auto key = model::parseDispatchKey(k)) keys.push_back(*key);
  return keys;
}

support::Expected<GenOptions> parseGenCommandLine(const std::vector<std::string>& args) {
  GenOptions options;
  const argparse::Action act = [&options](const argparse::Option& option, std::vector<std::string> values) {
    return takeAction(option, std::move(values), options);
  };
  if (std::optional<std::string> error = argparse::parse(specs(), args, act, static_cast<int>(Id::Help)))
    return support::makeError(*error);
  return options;
}

std::optional<std::string> checkGenOptions(const GenOptions& options) {
  if (options.opRegistrationWhitelist && options.opSelectionYamlPath)
    return "--op-registration-whitelist and --op-selection-yaml-path cannot be given together";
  if (options.staticDispatchBackend) {
    for (const std::string& k : *options.staticDispatchBackend)
      if (!model::parseDispatchKey(k)) return "argument --static-dispatch-backend: unknown dispatch key " + argparse::pyRepr(k);
  }
  return std::nullopt;
}

std::string genUsage() {
  return R"(Usage: opgen gen [OPTIONS]

Generates ATen's operator sources, as `python -m torchgen.gen` (torchgen 2.14.1) does, from
SRC/native/native_functions.yaml, SRC/native/tags.yaml and the templates in SRC/templates; the files
are torchgen's, byte for byte, and a file whose content is unchanged is not rewritten. On any error
(a full disk included) no file is changed: new and changed files get their names only when every
file is written (in a directory the run creates, they are written in place and removed on error).

Options (long options may be abbreviated to an unambiguous prefix; --opt=VALUE works too):
  -h, --help                       This text.
  -s, --source-path SRC            Source directory for ATen (default: aten/src/ATen).
  -o, --output-dependencies FILE   Also write, beside FILE, CMake lists of the generated files: FILE
                                   (`set(STEM ...)`) and cpu_vec_FILE, core_FILE, ops_FILE, cuda_FILE
                                   (and xpu_FILE with --xpu).
  --dry-run                        Write no file; still record the outputs (for -o).
  --per-operator-headers           Generate one header per operator in ATen/ops.
  -d, --install-dir, --install_dir DIR
                                   Output directory (default: build/aten/src/ATen).
  --aoti-install-dir, --aoti_install_dir DIR
                                   Output directory for the AOTInductor shims
                                   (default: torch/csrc/inductor/aoti_torch/generated).
  --headeronly-install-dir, --headeronly_install_dir DIR
                                   Output directory for header-only files such as enum_tag.h
                                   (default: INSTALL_DIR/core).
  --rocm                           Reinterpret CUDA as ROCm/HIP.
  --mps                            Generate MPS registration code (else MPS kernels are ignored).
  --xpu                            Generate XPU registration code (else XPU kernels are ignored).
  --mtia                           Generate MTIA registration code (else MTIA kernels are ignored).
  --op-registration-whitelist, --op_registration_whitelist [NS::OP ...]
                                   Register only these operators (all their overloads); given without
                                   names, none.
  --op-selection-yaml-path, --op_selection_yaml_path FILE
                                   Selective build: the operators (and their properties) of a
                                   selection YAML file. Not together with --op-registration-whitelist.
  --backend-whitelist, --backend_whitelist [KEY ...]
                                   Generate only these dispatch keys (e.g. CPU CUDA QuantizedCPU) and
                                   the composite ones.
  --static-dispatch-backend, --static_dispatch_backend [KEY ...]
                                   Generate static dispatch code for these backends.
  --skip-dispatcher-op-registration, --skip_dispatcher_op_registration
                                   Register no operator with the dispatcher.
  --force-schema-registration, --force_schema_registration
                                   Register every schema, even of operators the selection leaves out.
  --generate [{headers,sources,declarations_yaml} ...]
                                   Generate only these kinds of files (default: all three).
  --update-aoti-c-shim             Regenerate the AOTInductor C shim headers.
  --extend-aoti-c-shim             Generate C shims for out-of-tree operators.

A command line that torchgen.gen refuses is refused with one line and exit status 2; errors in the
inputs are reported as FILE:LINE:COL: error: MESSAGE, with exit status 1.
)";
}

}  // namespace opgen::gen
