#include "gen/ArgParse.h"

#include <algorithm>

#include "support/Expected.h"

namespace opgen::gen::argparse {

namespace {

const Option* exactOption(const std::vector<Option>& options, std::string_view s) {
  for (const Option& spec : options)
    if (std::find(spec.flags.begin(), spec.flags.end(), s) != spec.flags.end()) return &spec;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// argparse's first pass: each argument is an option ('O'), an argument ('A') or the '--' marker ('-').

struct Classified {
  char kind = 'A';
  const Option* spec = nullptr;  // 'O' only; nullptr for an unknown option
  std::string optionString;    // the option string matched
  std::optional<std::string> explicitArg;
};

struct OptionTuple {
  const Option* spec;
  std::string optionString;
  std::optional<std::string> explicitArg;
};

// argparse's _get_option_tuples: the options `arg` may abbreviate.
std::vector<OptionTuple> optionTuples(const std::vector<Option>& options, const std::string& arg) {
  std::vector<OptionTuple> out;
  if (arg.size() >= 2 && arg[1] == '-') {
    const size_t eq = arg.find('=');
    const std::string prefix = arg.substr(0, eq);
    std::optional<std::string> explicitArg;
    if (eq != std::string::npos) explicitArg = arg.substr(eq + 1);
    for (const Option& spec : options)
      for (std::string_view f : spec.flags)
        if (f.substr(0, prefix.size()) == prefix) out.push_back({&spec, std::string(f), explicitArg});
    return out;
  }
  const std::string shortPrefix = arg.substr(0, 2);
  const std::string shortExplicit = arg.substr(2);
  for (const Option& spec : options) {
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
support::Expected<Classified> classify(const std::vector<Option>& options, const std::string& arg) {
  Classified c;
  if (arg.empty() || arg[0] != '-') return c;
  c.kind = 'O';
  if (const Option* spec = exactOption(options, arg)) {
    c.spec = spec;
    c.optionString = arg;
    return c;
  }
  if (arg.size() == 1) return Classified{};
  if (const size_t eq = arg.find('='); eq != std::string::npos) {
    if (const Option* spec = exactOption(options, std::string_view(arg).substr(0, eq))) {
      c.spec = spec;
      c.optionString = arg.substr(0, eq);
      c.explicitArg = arg.substr(eq + 1);
      return c;
    }
  }
  std::vector<OptionTuple> tuples = optionTuples(options, arg);
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

// How argparse names an option in errors: "-d/--install-dir/--install_dir".
std::string displayName(const Option& spec) {
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

std::optional<std::string> parse(const std::vector<Option>& options, const std::vector<std::string>& args,
                                 const Action& act, int stopId) {
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
      auto c = classify(options, arg);
      if (!c) return c.error().message;
      kinds.push_back(c.take());
    }
  }

  std::vector<std::string> unrecognized;
  for (size_t i = 0; i < args.size();) {
    const Classified& c = kinds[i];
    if (c.kind != 'O' || c.spec == nullptr) {
      unrecognized.push_back(args[i++]);
      continue;
    }
    // The actions of this occurrence ("-hs" holds two), taken once all its arguments are known.
    std::vector<std::pair<const Option*, std::vector<std::string>>> actions;
    const Option* spec = c.spec;
    std::string optionString = c.optionString;
    std::optional<std::string> explicitArg = c.explicitArg;
    size_t next = i + 1;
    while (true) {
      if (!explicitArg) {
        const int count = countArguments(spec->arity, kinds, next);
        if (count < 0) return std::string("argument " + displayName(*spec) + ": expected one argument");
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
      if (optionString.size() < 2 || optionString[1] == '-' || explicitArg->empty()) return std::string(ignored);
      actions.emplace_back(spec, std::vector<std::string>{});
      const std::string shortOption = std::string("-") + explicitArg->front();
      const Option* following = exactOption(options, shortOption);
      if (following == nullptr) return std::string(ignored);
      spec = following;
      optionString = shortOption;
      explicitArg = explicitArg->size() > 1 ? std::optional(explicitArg->substr(1)) : std::nullopt;
    }
    for (auto& [s, values] : actions) {
      std::string error = act(*s, std::move(values));
      if (!error.empty()) return error;
      if (s->id == stopId) return std::nullopt;  // argparse prints the help and exits at once
    }
    i = next;
  }
  if (!unrecognized.empty()) {
    std::string list;
    for (const std::string& a : unrecognized) list += (list.empty() ? "" : " ") + a;
    return std::string("unrecognized arguments: " + list);
  }
  return std::nullopt;
}

}  // namespace opgen::gen::argparse
