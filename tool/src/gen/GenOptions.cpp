#include "gen/GenOptions.h"

#include <algorithm>
#include <array>

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

enum class Arity { Flag, One, Many };  // store_true (and help), nargs=None, nargs="*"

struct Spec {
  Id id;
  Arity arity;
  std::vector<std::string_view> flags;
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> table = {
      {Id::Help, Arity::Flag, {"-h", "--help"}},
      {Id::SourcePath, Arity::One, {"-s", "--source-path"}},
      {Id::OutputDependencies, Arity::One, {"-o", "--output-dependencies"}},
      {Id::DryRun, Arity::Flag, {"--dry-run"}},
      {Id::PerOperatorHeaders, Arity::Flag, {"--per-operator-headers"}},
      {Id::InstallDir, Arity::One, {"-d", "--install-dir", "--install_dir"}},
      {Id::AotiInstallDir, Arity::One, {"--aoti-install-dir", "--aoti_install_dir"}},
      {Id::HeaderonlyInstallDir, Arity::One, {"--headeronly-install-dir", "--headeronly_install_dir"}},
      {Id::Rocm, Arity::Flag, {"--rocm"}},
      {Id::Mps, Arity::Flag, {"--mps"}},
      {Id::Xpu, Arity::Flag, {"--xpu"}},
      {Id::Mtia, Arity::Flag, {"--mtia"}},
      {Id::OpRegistrationWhitelist, Arity::Many, {"--op-registration-whitelist", "--op_registration_whitelist"}},
      {Id::OpSelectionYamlPath, Arity::One, {"--op-selection-yaml-path", "--op_selection_yaml_path"}},
      {Id::BackendWhitelist, Arity::Many, {"--backend-whitelist", "--backend_whitelist"}},
      {Id::StaticDispatchBackend, Arity::Many, {"--static-dispatch-backend", "--static_dispatch_backend"}},
      {Id::SkipDispatcherOpRegistration, Arity::Flag,
       {"--skip-dispatcher-op-registration", "--skip_dispatcher_op_registration"}},
      {Id::ForceSchemaRegistration, Arity::Flag, {"--force-schema-registration", "--force_schema_registration"}},
      {Id::Generate, Arity::Many, {"--generate"}},
      {Id::UpdateAotiCShim, Arity::Flag, {"--update-aoti-c-shim"}},
      {Id::ExtendAotiCShim, Arity::Flag, {"--extend-aoti-c-shim"}},
  };
  return table;
}

constexpr std::array<std::string_view, 3> kGenerateChoices = {"headers", "sources", "declarations_yaml"};

const Spec* exactOption(std::string_view s) {
  for (const Spec& spec : specs())
    if (std::find(spec.flags.begin(), spec.flags.end(), s) != spec.flags.end()) return &spec;
  return nullptr;
}

// How argparse names an option in errors: "-d/--install-dir/--install_dir".
std::string displayName(const Spec& spec) {
  std::string out;
  for (std::string_view f : spec.flags) {
    if (!out.empty()) out += '/';
    out += f;
  }
  return out;
}

// Python's repr() of a str (for the quoted values in argparse's messages).
std::string pyRepr(std::string_view s) {
  const char quote = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    if (c == '\\' || c == quote) out += '\\';
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  out += quote;
  return out;
}

// ---------------------------------------------------------------------------------------------
// argparse's first pass: each argument is an option ('O'), an argument ('A') or the '--' marker ('-').

struct Classified {
  char kind = 'A';
  const Spec* spec = nullptr;  // 'O' only; nullptr for an unknown option
  std::string optionString;    // the option string matched
  std::optional<std::string> explicitArg;
};

struct OptionTuple {
  const Spec* spec;
  std::string optionString;
  std::optional<std::string> explicitArg;
};

// argparse's _get_option_tuples: the options `arg` may abbreviate.
std::vector<OptionTuple> optionTuples(const std::string& arg) {
  std::vector<OptionTuple> out;
  if (arg.size() >= 2 && arg[1] == '-') {
    const size_t eq = arg.find('=');
    const std::string prefix = arg.substr(0, eq);
    std::optional<std::string> explicitArg;
    if (eq != std::string::npos) explicitArg = arg.substr(eq + 1);
    for (const Spec& spec : specs())
      for (std::string_view f : spec.flags)
        if (f.substr(0, prefix.size()) == prefix) out.push_back({&spec, std::string(f), explicitArg});
    return out;
  }
  const std::string shortPrefix = arg.substr(0, 2);
  const std::string shortExplicit = arg.substr(2);
  for (const Spec& spec : specs()) {
    for (std::string_view f : spec.flags) {
      if (f == shortPrefix) out.push_back({&spec, std::string(f), shortExplicit});
      else if (f.substr(0, arg.size()) == arg) out.push_back({&spec, std::string(f), std::nullopt});
    }
  }
  return out;
}

// argparse's _negative_number_matcher: ^-\d+$|^-\d*\.\d+$
bool isNegativeNumber(std::string_view s) {
  if (s.size() < 2 || s[0] != '-') return false;
  auto digits = [](std::string_view d) { return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; }); };
  std::string_view rest = s.substr(1);
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return digits(rest);
  return digits(rest.substr(0, dot)) && dot + 1 < rest.size() && digits(rest.substr(dot + 1));
}

// argparse's _parse_optional; an ambiguous abbreviation is an error.
support::Expected<Classified> classify(const std::string& arg) {
  Classified c;
  if (arg.empty() || arg[0] != '-') return c;
  c.kind = 'O';
  if (const Spec* spec = exactOption(arg)) {
    c.spec = spec;
    c.optionString = arg;
    return c;
  }
  if (arg.size() == 1) return Classified{};
  if (const size_t eq = arg.find('='); eq != std::string::npos) {
    if (const Spec* spec = exactOption(std::string_view(arg).substr(0, eq))) {
      c.spec = spec;
      c.optionString = arg.substr(0, eq);
      c.explicitArg = arg.substr(eq + 1);
      return c;
    }
  }
  std::vector<OptionTuple> tuples = optionTuples(arg);
  if (tuples.size() > 1) {
    std::string matches;
    for (const OptionTuple& t : tuples) matches += (matches.empty() ? "" : ", ") + t.optionString;
    return support::makeError("ambiguous option: " + arg + " could match " + matches);
  }
  if (tuples.size() == 1) {
    c.spec = tuples[0].spec;
    c.optionString = tuples[0].optionString;
    c.explicitArg = tuples[0].explicitArg;
    return c;
  }
  if (isNegativeNumber(arg) || arg.find(' ') != std::string::npos) return Classified{};
  c.optionString = arg;  // an unknown option
  return c;
}

// ---------------------------------------------------------------------------------------------
// argparse's second pass: options consume their arguments and act, in order.

// Stores the values of one occurrence of an option. Returns an error message, or "" when fine.
std::string takeAction(const Spec& spec, std::vector<std::string> values, GenOptions& o) {
  auto one = [&] { return values.front(); };
  switch (spec.id) {
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
          return "argument --generate: invalid choice: " + pyRepr(v) +
                 " (choose from 'headers', 'sources', 'declarations_yaml')";
      }
      o.generate = std::move(values);
      break;
    case Id::UpdateAotiCShim: o.updateAotiCShim = true; break;
    case Id::ExtendAotiCShim: o.extendAotiCShim = true; break;
  }
  return "";
}

// How many of the arguments from position `next` on an option of `arity` consumes: argparse's
// patterns for optionals, "A" (nargs=None) and "A*" (nargs="*"), over the kinds of the following
// arguments (an option or the "--" marker stops them); -1 when the one argument is missing.
int countArguments(Arity arity, const std::vector<Classified>& kinds, size_t next) {
  size_t end = next;
  while (end < kinds.size() && kinds[end].kind == 'A') ++end;
  switch (arity) {
    case Arity::Flag: return 0;
    case Arity::Many: return static_cast<int>(end - next);
    case Arity::One: return end > next ? 1 : -1;
  }
  return 0;
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
  // First pass: classify every argument (everything after the first "--" is an argument).
  std::vector<Classified> kinds;
  bool afterMarker = false;
  for (const std::string& arg : args) {
    if (afterMarker) {
      kinds.push_back(Classified{});
    } else if (arg == "--") {
      afterMarker = true;
      Classified marker;
      marker.kind = '-';
      kinds.push_back(marker);
    } else {
      auto c = classify(arg);
      if (!c) return c.error();
      kinds.push_back(c.take());
    }
  }

  GenOptions options;
  std::vector<std::string> unrecognized;
  for (size_t i = 0; i < args.size();) {
    const Classified& c = kinds[i];
    if (c.kind != 'O' || c.spec == nullptr) {
      unrecognized.push_back(args[i++]);
      continue;
    }
    // The actions of this occurrence ("-hs" holds two), taken once all its arguments are known.
    std::vector<std::pair<const Spec*, std::vector<std::string>>> actions;
    const Spec* spec = c.spec;
    std::string optionString = c.optionString;
    std::optional<std::string> explicitArg = c.explicitArg;
    size_t next = i + 1;
    while (true) {
      if (!explicitArg) {
        const int count = countArguments(spec->arity, kinds, next);
        if (count < 0) return support::makeError("argument " + displayName(*spec) + ": expected one argument");
        actions.emplace_back(spec, std::vector<std::string>(args.begin() + next, args.begin() + next + count));
        next += count;
        break;
      }
      if (spec->arity != Arity::Flag) {
        actions.emplace_back(spec, std::vector<std::string>{*explicitArg});
        break;
      }
      // A flag with an attached value: "-hX" continues as the short option "-X".
      const std::string ignored = "argument " + displayName(*spec) + ": ignored explicit argument " + pyRepr(*explicitArg);
      if (optionString.size() < 2 || optionString[1] == '-' || explicitArg->empty()) return support::makeError(ignored);
      actions.emplace_back(spec, std::vector<std::string>{});
      const std::string shortOption = std::string("-") + explicitArg->front();
      const Spec* following = exactOption(shortOption);
      if (following == nullptr) return support::makeError(ignored);
      spec = following;
      optionString = shortOption;
      explicitArg = explicitArg->size() > 1 ? std::optional(explicitArg->substr(1)) : std::nullopt;
    }
    for (auto& [s, values] : actions) {
      std::string error = takeAction(*s, std::move(values), options);
      if (!error.empty()) return support::makeError(error);
      if (options.help) return options;  // argparse prints the help and exits at once
    }
    i = next;
  }
  if (!unrecognized.empty()) {
    std::string list;
    for (const std::string& a : unrecognized) list += (list.empty() ? "" : " ") + a;
    return support::makeError("unrecognized arguments: " + list);
  }
  return options;
}

std::optional<std::string> checkGenOptions(const GenOptions& options) {
  if (options.opRegistrationWhitelist && options.opSelectionYamlPath)
    return "--op-registration-whitelist and --op-selection-yaml-path cannot be given together";
  if (options.staticDispatchBackend) {
    for (const std::string& k : *options.staticDispatchBackend)
      if (!model::parseDispatchKey(k)) return "argument --static-dispatch-backend: unknown dispatch key " + pyRepr(k);
  }
  return std::nullopt;
}

std::string genUsage() {
  return R"(Usage: opgen gen [OPTIONS]

Generates ATen's operator sources, as `python -m torchgen.gen` (torchgen 2.14.1) does, from
SRC/native/native_functions.yaml, SRC/native/tags.yaml and the templates in SRC/templates; the files
are torchgen's, byte for byte, and a file whose content is unchanged is not rewritten.

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
