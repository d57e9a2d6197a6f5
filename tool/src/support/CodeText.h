// Fixed code text: the one way emitters spell the fixed pieces of the code they print. A snippet is
// a named raw-string constant at the top of an emitter, with a legend of its `$name$` placeholders
// (protobuf io::Printer's convention); fillSnippet() / appendSnippet() substitute them, and `$$` is a
// literal `$`. Whole files come from template files (support/CodeTemplate.h); variable lists are
// joined (support/Strings.h). cppString() spells a C++ string literal.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace opgen::support {

using SnippetVars = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// The snippet with every `$name$` replaced by its value. A placeholder without a value (or an
// unterminated one) is a bug in the emitter: std::logic_error naming it.
std::string fillSnippet(std::string_view snippet, SnippetVars vars);
// The same, appended to `out`.
void appendSnippet(std::string& out, std::string_view snippet, SnippetVars vars);

// torchgen's cpp_string: a C++ string literal for `s` (backslash, quote, \a \b \f \n \v \t escaped).
std::string cppString(std::string_view s);

}  // namespace opgen::support
