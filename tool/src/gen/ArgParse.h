// The one command-line parser of the torchgen drop-ins (`opgen gen`, `opgen backend`): Python
// argparse's rules where users would notice them. Long options may be abbreviated to an unambiguous
// prefix, values come as `--opt VALUE` or `--opt=VALUE` (`-sVALUE` for short options), `nargs="*"`
// options take every following non-option argument, options act in order (the last occurrence of an
// option wins), and anything unknown is refused with argparse's message.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opgen::gen::argparse {

enum class Arity { Flag, One, Many };  // store_true (and help), nargs=None, nargs="*"

struct Option {
  int id;  // the command's own identifier of the option
  Arity arity;
  std::vector<std::string_view> flags;  // in declaration order: argparse lists ambiguous matches so
};

// Takes one occurrence of an option with its values; returns an error message, or "" when fine.
using Action = std::function<std::string(const Option& option, std::vector<std::string> values)>;

// Parses `args` against `options` (in the command's order of declaration), calling `act` for every
// occurrence in order. An occurrence of the option `stopId` (help) ends the parse at once, as
// argparse prints the help and exits. Returns the error that refuses the command line, one line
// without a prefix ("unrecognized arguments: --foo", "argument -s/--source-path: expected one
// argument", "ambiguous option: --in could match --install-dir, --install_dir"), or nullopt.
std::optional<std::string> parse(const std::vector<Option>& options, const std::vector<std::string>& args,
                                 const Action& act, int stopId);

// How argparse names an option in errors: "-d/--install-dir/--install_dir".
std::string displayName(const Option& option);

// Python's repr() of a str (for the quoted values in argparse's messages).
std::string pyRepr(std::string_view s);

}  // namespace opgen::gen::argparse
