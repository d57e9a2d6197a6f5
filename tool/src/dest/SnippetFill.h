// Named code snippets with `$name$` placeholders (protobuf io::Printer's convention), for the fixed
// pieces of C++ that emitters print: a snippet is a raw-string constant at the top of an emitter with
// a legend of its placeholders, and fillSnippet() substitutes them. `$$` is a literal `$`.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace opgen::dest {

using SnippetVars = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// The snippet with every `$name$` replaced by its value. A placeholder without a value (or an
// unterminated one) is a bug in the emitter: std::logic_error naming it.
std::string fillSnippet(std::string_view snippet, SnippetVars vars);
// The same, appended to `out`.
void appendSnippet(std::string& out, std::string_view snippet, SnippetVars vars);

}  // namespace opgen::dest
