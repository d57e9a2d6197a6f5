// Small string helpers shared by every layer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opgen::support {

// Splits on every occurrence of `sep` (like Python's str.split(sep)); an empty input gives {""}.
std::vector<std::string_view> split(std::string_view s, std::string_view sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
bool startsWith(std::string_view s, std::string_view prefix);
bool endsWith(std::string_view s, std::string_view suffix);
bool contains(std::string_view s, std::string_view needle);
std::string_view trim(std::string_view s);
// Python's str.title(): a letter after a non-letter upper case, every other letter lower case.
std::string pythonTitle(std::string_view s);
// The parts of a snake_case name between '_', each titled, joined: "scale_add" -> "ScaleAdd".
std::string titledParts(std::string_view name);
// Replaces every occurrence (like Python's str.replace).
std::string replaceAll(std::string_view s, std::string_view from, std::string_view to);
// What Python's text mode reads (universal newlines): "\r\n" and a lone '\r' become '\n'.
std::string universalNewlines(std::string text);
// Python's textwrap.indent: `prefix` before every line that is not blank ('\n'-separated lines).
std::string indentLines(std::string_view text, std::string_view prefix);

// Joins f(x) for every x of xs with `sep` between them.
template <class Range, class Fn>
std::string joinMapped(const Range& xs, std::string_view sep, Fn f) {
  std::string out;
  bool first = true;
  for (const auto& x : xs) {
    if (!first) out.append(sep);
    first = false;
    out.append(f(x));
  }
  return out;
}

}  // namespace opgen::support
