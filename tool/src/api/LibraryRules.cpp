#include "api/LibraryRules.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "api/LibrarySignatures.h"
#include "api/ReservedNames.h"
#include "model/Loader.h"
#include "support/Strings.h"

namespace opgen::api {

namespace {

using model::BaseTy;
using model::Type;

bool contains(const auto& words, std::string_view w) { return std::find(std::begin(words), std::end(words), w) != std::end(words); }

// torch/csrc/jit/frontend/lexer.h's keywords, as PyTorch 1.13.1's and 2.14.1's schema parsers refuse them
// for names (measured with torch._C.parse_schema on both).
constexpr std::string_view kSchemaKeywords[] = {
    "def", "return", "raise", "import", "as", "in", "not", "and", "or", "is", "if", "else", "elif", "while",
    "for", "break", "continue", "pass", "class", "with", "assert", "del", "global", "True", "False", "None"};

constexpr std::string_view kCppKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};

// Namespaces PyTorch registers with TORCH_LIBRARY itself: a second TORCH_LIBRARY of one aborts the
// process that loads it.
constexpr std::string_view kPyTorchNamespaces[] = {"aten", "prim", "prims", "quantized", "_quantized"};

bool isDigitsFrom(std::string_view s, size_t from) {
  return from < s.size() && std::all_of(s.begin() + from, s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// An int64 literal in decimal, optional '-' (PyTorch also reads 0x hex, which the typed Python
// package has no spelling for).
std::optional<std::string> intProblem(std::string_view d) {
  const size_t sign = d.starts_with('-') ? 1 : 0;
  if (!isDigitsFrom(d, sign)) return "'" + std::string(d) + "' is not an int";
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
  if (ec != std::errc() || end != d.data() + d.size()) return "'" + std::string(d) + "' does not fit in int64";
  // The generated C++ default is the literal as written: "-9223372036854775808" is minus a constant beyond
  // int64 (GCC: "so large that it is unsigned"; for a Scalar, an ambiguous conversion that does not compile).
  if (v == std::numeric_limits<std::int64_t>::min())
    return "'" + std::string(d) + "' (the least int64) has no C++ literal: the generated default would not compile";
  return std::nullopt;
}

// A float literal: digits with an optional '.', fraction and exponent, optional '-'; finite.
// (PyTorch refuses inf, nan and a leading '+'.)
std::optional<std::string> floatProblem(std::string_view d) {
  size_t i = d.starts_with('-') ? 1 : 0;
  size_t digits = 0;
  while (i < d.size() && std::isdigit(static_cast<unsigned char>(d[i]))) ++i, ++digits;
  if (i < d.size() && d[i] == '.') {
    ++i;
    while (i < d.size() && std::isdigit(static_cast<unsigned char>(d[i]))) ++i, ++digits;
  }
  if (digits > 0 && i < d.size() && (d[i] == 'e' || d[i] == 'E')) {
    ++i;
    if (i < d.size() && (d[i] == '+' || d[i] == '-')) ++i;
    if (!isDigitsFrom(d.substr(0, d.find_first_not_of("0123456789", i)), i)) return "'" + std::string(d) + "' is not a number";
    while (i < d.size() && std::isdigit(static_cast<unsigned char>(d[i]))) ++i;
  }
  if (digits == 0 || i != d.size()) return "'" + std::string(d) + "' is not a number";
  const std::string text(d);
  if (!std::isfinite(std::strtod(text.c_str(), nullptr))) return "'" + std::string(d) + "' is beyond the range of a double";
  return std::nullopt;
}

bool isBool(std::string_view d) { return d == "True" || d == "False"; }

bool isQuoted(std::string_view d) {
  return d.size() >= 2 && (d.front() == '\'' || d.front() == '"') && d.back() == d.front();
}

// Why the quoted str default `d` would not be the same string for PyTorch's schema parser, the
// generated C++ and the typed Python package, or would break their lines; nullopt when it is.
// Measured with torch._C.parse_schema (1.13.1): it refuses the quote itself inside the string and
// a backslash before the closing quote ("a\", "a"b": the string ends early), and escapes other
// than \\, \', \", \a, \b, \f, \n, \t, \v and octal ones (\r, \0, \x41, \u0041); it accepts
// raw control characters and Unicode line separators, which would end a line of the generated
// code's literals, comments and docstrings. (opgen refuses the octal escapes too: \0 is one.)
std::optional<std::string> strProblem(std::string_view d) {
  const char quote = d.front();
  const std::string_view body = d.substr(1, d.size() - 2);
  for (std::size_t i = 0; i < body.size(); ++i) {
    const auto c = static_cast<unsigned char>(body[i]);
    if (c == static_cast<unsigned char>(quote))
      return std::string("the string ends at its second ") + quote + " (write \\" + quote +
             " inside it): PyTorch's schema parser refuses what follows";
    if (c == '\\') {
      if (i + 1 == body.size())
        return std::string("the string ends with a backslash, which escapes its closing quote: PyTorch's schema parser refuses it");
      const char e = body[++i];
      if (std::string_view("\\'\"abfntv").find(e) == std::string_view::npos)
        return std::string("escape '\\") + (std::isprint(static_cast<unsigned char>(e)) ? std::string(1, e) : "...") +
               "' in a str default: opgen accepts \\\\, \\', \\\", \\a, \\b, \\f, \\n, \\t and \\v, which PyTorch's schema "
               "parser, C++ and Python read alike";
      continue;
    }
    if (c < 0x20 || c == 0x7f)
      return "a control character in a str default would break the generated code's lines: write it as an escape "
             "(\\n, \\t, ...)";
    // U+0085, U+2028 and U+2029 in UTF-8: line breaks to Python.
    const std::string_view rest = body.substr(i);
    if (rest.starts_with("\xC2\x85") || rest.starts_with("\xE2\x80\xA8") || rest.starts_with("\xE2\x80\xA9"))
      return "a Unicode line separator (U+0085, U+2028 or U+2029) in a str default would break the generated "
             "Python's lines";
  }
  return std::nullopt;
}

// Why default `d` does not fit type `t` (not optional, not None), for PyTorch's parser and for the
// C++ that torchgen's translation of defaults makes of it; nullopt when it fits.
std::optional<std::string> valueProblem(const Type& t, std::string_view d) {
  if (t.isList()) {
    const Type& e = t.elem();
    const bool numeric = e.isBase(BaseTy::Int) || e.isBase(BaseTy::SymInt) || e.isBase(BaseTy::Float);
    if (!numeric) return "a " + t.str() + " argument has no default but None (of " + t.str() + "?)";
    if (!(d.size() >= 2 && d.front() == '[' && d.back() == ']')) {
      if (!t.size()) return "the default of an unsized list is a list such as [0, 1]";
      return valueProblem(e, d);  // int[2] x=1: every item 1
    }
    const std::string_view inner = d.substr(1, d.size() - 2);
    if (inner.find_first_not_of(' ') == std::string_view::npos) return std::nullopt;
    for (std::string_view item : support::split(inner, ",")) {
      while (item.starts_with(' ')) item.remove_prefix(1);
      while (item.ends_with(' ')) item.remove_suffix(1);
      if (auto why = valueProblem(e, item)) return "item " + *why;
    }
    return std::nullopt;
  }
  if (t.kind() != Type::Kind::Base) return "a " + t.str() + " argument has no default";
  switch (t.baseTy()) {
    case BaseTy::Int:
    case BaseTy::SymInt:
      if (d == "Mean") return std::nullopt;  // at::Reduction::Mean, as in ATen's losses
      return intProblem(d);
    case BaseTy::Float: return floatProblem(d);
    case BaseTy::Bool:
      if (isBool(d)) return std::nullopt;
      return "a bool default is True or False, not '" + std::string(d) + "'";
    case BaseTy::Scalar:
      // PyTorch reads a literal without '.' or exponent as an int64 (and fails beyond it).
      if (isDigitsFrom(d, d.starts_with('-') ? 1 : 0)) return intProblem(d);
      if (isBool(d) || !floatProblem(d)) return std::nullopt;
      return "a Scalar default is a number, True or False, not '" + std::string(d) + "'";
    case BaseTy::Str:
      if (isQuoted(d)) return strProblem(d);
      return "a str default is a quoted string such as 'mean', not " + std::string(d);
    case BaseTy::ScalarType:
      if (d == "long") return std::nullopt;  // at::kLong, the one dtype default torchgen translates
      return "the ScalarType defaults opgen can translate to C++ are long and None (of ScalarType?), not '" + std::string(d) + "'";
    case BaseTy::MemoryFormat:
      if (d == "contiguous_format") return std::nullopt;
      return "the MemoryFormat defaults opgen can translate to C++ are contiguous_format and None (of MemoryFormat?), not '" + std::string(d) + "'";
    case BaseTy::Tensor: return "a Tensor argument has no default (None is the default of Tensor?)";
    default: return "a " + t.str() + " argument has no default but None (of " + t.str() + "?)";
  }
}

std::optional<std::string> defaultProblem(const Type& t, std::string_view d) {
  if (d == "None") {
    // (not a plain Tensor's either, which PyTorch's parser accepts: its C++ parameter, const at::Tensor &,
    // has no default nullopt; found by the compile step of tool/test/differential)
    if (t.isOptional()) return std::nullopt;
    return "None is the default of optional types only (" + t.str() + "? for this one)";
  }
  return valueProblem(t.isOptional() ? t.elem() : t, d);
}

// Why a base type cannot be used with the given libtorch (its schema parser refuses it); nullopt if it can.
std::optional<std::string> typeProblem(const Type& t, const LibtorchFacts& libtorch) {
  if (t.kind() == Type::Kind::Optional || t.kind() == Type::Kind::List) return typeProblem(t.elem(), libtorch);
  if (t.kind() != Type::Kind::Base) return std::nullopt;
  const BaseTy b = t.baseTy();
  if (b == BaseTy::GraphModule || b == BaseTy::DimVector)
    return "type " + std::string(model::baseTyName(b)) + " is torchgen's own: PyTorch's schema parser refuses it";
  if (!libtorch.deviceIndexAndSymBool && (b == BaseTy::DeviceIndex || b == BaseTy::SymBool))
    return "PyTorch 1.x has no type " + std::string(model::baseTyName(b)) + " (the library is generated for 1.x)";
  if (!libtorch.symBoolSchemaType && b == BaseTy::SymBool)
    return "this PyTorch's schema parser has no type SymBool (2.6's refuses it; opgen allows it from 2.14)";
  if (!libtorch.namedTensors && b == BaseTy::Dimname)
    return "this PyTorch has no type Dimname (named tensors are gone from its libtorch)";
  return std::nullopt;
}

// The checks of one function, located in its schema text.
class FunctionChecker {
 public:
  // `signatureProblems`: what the generated C++ cannot pass (api/LibrarySignatures.h).
  FunctionChecker(const model::NativeFunction& f, std::vector<api::SignatureProblem> signatureProblems,
                  const LibraryRulesOptions& options, support::Diagnostics& diags)
      : f_(f), signatureProblems_(std::move(signatureProblems)), options_(options), diags_(diags), text_(f.schemaString) {}

  void run() {
    const model::OperatorName& op = f_.func.name;
    name("operator name", op.name.base, 0, /*cpp=*/true);
    if (!op.overloadName.empty()) {
      const size_t at = op.name.str().size() + 1;
      // PyTorch's schema parser reserves these (1.13.1 and 2.14.1 alike); found by the differential
      // test of tool/test/differential.
      if (op.overloadName == "default" || op.overloadName.starts_with("__"))
        error(at, "overload name '" + op.overloadName +
                      "' is reserved: PyTorch's schema parser refuses 'default' and names starting with '__'");
      else
        name("overload name", op.overloadName, at, /*cpp=*/false);
    }
    size_t cursor = text_.find('(');
    std::set<std::string> seen;
    std::set<std::string> unsupported;  // arguments whose type is reported already
    f_.func.arguments.anyOf([&](const model::Argument& a) {
      const size_t at = find(a.name, cursor);
      cursor = at + a.name.size();
      name("argument name", a.name, at, /*cpp=*/true);
      if (!seen.insert(a.name).second) error(at, "argument '" + a.name + "' is declared twice");
      if (auto why = typeProblem(a.type, options_.libtorch)) {
        error(typeStart(at), "argument '" + a.name + "': " + *why);
        unsupported.insert(a.name);
      } else if (auto stable = options_.stableAbi ? stableTypeProblem(a.type, *options_.stableAbi) : std::nullopt) {
        error(typeStart(at), "argument '" + a.name + "': " + *stable + " (STABLE_ABI " + options_.stableAbi->str() + ")");
        unsupported.insert(a.name);
      }
      if (a.defaultValue)
        if (auto why = defaultProblem(a.type, *a.defaultValue))
          error(at + a.name.size() + 1, "default of '" + a.name + "': " + *why);
      return false;
    });
    // After a positional argument with a default, every positional one needs one (PyTorch asserts).
    bool sawDefault = false;
    f_.func.arguments.anyOf([&](const model::Argument& a) {
      if (a.defaultValue) {
        sawDefault = true;
      } else if (sawDefault) {
        error(find(a.name, text_.find('(')), "positional argument '" + a.name +
                                                 "' has no default but follows one that has: PyTorch's schema parser "
                                                 "refuses this (give it a default, or make it keyword-only after '*')");
        unsupported.insert(a.name);  // (the C++ defaults' rule would report it again)
      }
      return false;
    }, {.positional = true, .kwargOnly = false, .out = false});
    // What the generated C++ cannot pass, once per argument.
    const size_t returnsAt = text_.find(") -> ");
    for (const api::SignatureProblem& p : signatureProblems_) {
      if (p.argument == nullptr) {
        error(returnsAt == std::string::npos ? 0 : returnsAt + 5, "return: " + p.message);
      } else if (unsupported.insert(p.argument->name).second) {
        error(typeStart(find(p.argument->name, text_.find('('))), "argument '" + p.argument->name + "': " + p.message);
      }
    }
    cursor = returnsAt;
    std::set<std::string> returns;
    for (const model::Return& r : f_.func.returns) {
      if (auto why = typeProblem(r.type, options_.libtorch)) error(cursor == std::string::npos ? 0 : cursor + 5, "return: " + *why);
      else if (auto stable = options_.stableAbi ? stableTypeProblem(r.type, *options_.stableAbi, /*isReturn=*/true) : std::nullopt)
        error(cursor == std::string::npos ? 0 : cursor + 5, "return: " + *stable + " (STABLE_ABI " + options_.stableAbi->str() + ")");
      if (!r.name) continue;
      const size_t at = find(*r.name, cursor);
      cursor = at + r.name->size();
      name("return name", *r.name, at, /*cpp=*/true);
      if (!returns.insert(*r.name).second) error(at, "return '" + *r.name + "' is named twice");
    }
  }

 private:
  // The offset of `word` as a whole name at or after `from` in the schema text (0 if not found).
  size_t find(const std::string& word, size_t from) const {
    if (from == std::string::npos) from = 0;
    for (size_t at = text_.find(word, from); at != std::string::npos; at = text_.find(word, at + 1)) {
      const bool before = at > 0 && (text_[at - 1] == ' ');
      const size_t end = at + word.size();
      const bool after = end == text_.size() || text_[end] == ',' || text_[end] == ')' || text_[end] == '=';
      if (before && after) return at;
    }
    return 0;
  }
  // Where the type of the argument whose name is at `nameAt` starts.
  // (the ',' or '(' before it outside the type's own parentheses: "Tensor(a!)? x")
  size_t typeStart(size_t nameAt) const {
    int depth = 0;
    for (size_t i = nameAt; i-- > 0;) {
      const char c = text_[i];
      if (c == ')') ++depth;
      else if (c == '(' && depth > 0) --depth;
      else if (c == ',' || c == '(') return text_.find_first_not_of(' ', i + 1);
    }
    return 0;
  }

  void name(std::string_view what, const std::string& n, size_t at, bool cpp) {
    if (!isIdentifier(n))
      error(at, std::string(what) + " '" + n + "' is not an identifier (letters, digits and _, not starting with a digit)");
    else if (isSchemaKeyword(n))
      error(at, std::string(what) + " '" + n + "' is a keyword of PyTorch's schema parser, which refuses it");
    else if (cpp && isCppKeyword(n))
      error(at, std::string(what) + " '" + n + "' is a C++ keyword: the generated code would not compile");
    else if (auto macro = cpp ? macroProblem(n) : std::nullopt)
      error(at, std::string(what) + " " + *macro);
    else if (options_.pythonModule && model::isPythonKeyword(n))
      // (the loader refuses argument names too, but only warns in a file that uses Dimname, as torchgen
      // does for ATen's older files; found by the differential test's Python check)
      error(at, std::string(what) + " '" + n + "' is a Python keyword: the typed Python package could not use it");
  }

  void error(size_t offset, const std::string& message) {
    if (f_.schemaLoc.line > 0) {
      const support::SourceLoc at{f_.schemaLoc.file, f_.schemaLoc.line, f_.schemaLoc.column};
      diags_.errorAbout(at.shifted(static_cast<int>(offset)), f_.func.name.str(), message);
    } else {
      model::reportError(diags_, f_, message);
    }
  }

  const model::NativeFunction& f_;
  const std::vector<api::SignatureProblem> signatureProblems_;
  const LibraryRulesOptions& options_;
  support::Diagnostics& diags_;
  const std::string& text_;
};

// Kernel names and their namespaces become C++ names.
void checkKernels(const model::Operators& ops, std::string_view libraryNs, support::Diagnostics& diags) {
  std::map<std::string, const model::NativeFunction*, std::less<>> byName;
  for (const model::NativeFunction* g : ops.functions()) byName.emplace(g->func.name.str(), g);
  for (const model::BackendIndex& index : ops.backendIndices())
    for (const auto& [opName, m] : index.entries()) {
      std::vector<std::string_view> names = {m.kernel};
      if (!m.cppNamespace.empty())
        for (std::string_view part : support::split(m.cppNamespace, "::")) names.push_back(part);
      for (std::string_view n : names) {
        if ((isIdentifier(n) && !isCppKeyword(n) && !macroProblem(n)) || n == libraryNs) continue;  // (the namespace is reported once)
        const auto found = byName.find(opName);
        const model::NativeFunction* f = found == byName.end() ? nullptr : found->second;
        if (f && n == m.kernel && m.kernel == f->func.name.name.base) break;  // named after the operator: reported there
        const std::string what = "kernel '" + (m.cppNamespace.empty() ? "" : m.cppNamespace + "::") + m.kernel + "'";
        const std::optional<std::string> macro = isIdentifier(n) ? macroProblem(n) : std::nullopt;
        const std::string why = macro                ? *macro
                                : isIdentifier(n) ? "'" + std::string(n) + "' is a C++ keyword"
                                                  : "'" + std::string(n) + "' is not a C++ identifier";
        if (f) model::reportError(diags, *f, what + ": " + why);
        else diags.error({}, what + ": " + why);
        break;
      }
    }
}

// Each function's signature problems; a structured operator's are reported at its out= function (the
// group's other functions share its arguments).
std::map<const model::NativeFunction*, std::vector<SignatureProblem>> signatureProblemsByFunction(const model::Operators& ops,
                                                                                            const LibtorchFacts& libtorch) {
  std::map<const model::NativeFunction*, const model::NativeFunctionsGroup*> structuredGroup;
  for (const model::NativeFunctionsGroup* g : ops.groups())
    if (g->structured()) g->forEachFunction([&](const model::NativeFunction& m) { structuredGroup.emplace(&m, g); });
  std::map<const model::NativeFunction*, std::vector<SignatureProblem>> problems;
  for (const model::NativeFunction* f : ops.functions()) {
    const auto group = structuredGroup.find(f);
    const bool isOut = group != structuredGroup.end() && group->second->out == f;
    problems[f] = api::librarySignatureProblems(*f, isOut ? group->second : nullptr, libtorch);
  }
  // A variant autogen: made has its origin's arguments, whose problems are reported at the origin.
  std::set<std::pair<std::string, std::string>> reported;  // (root name, argument)
  for (const auto& [f, list] : problems)
    if (!f->generated())
      for (const SignatureProblem& p : list)
        if (p.argument) reported.emplace(f->rootName(), p.argument->name);
  for (auto& [f, list] : problems) {
    const std::string root = f->rootName();  // (clang 14, the fuzzers' compiler, captures no structured binding)
    if (f->generated())
      std::erase_if(list, [&](const SignatureProblem& p) { return p.argument && reported.count({root, p.argument->name}); });
    const auto group = structuredGroup.find(f);
    if (group == structuredGroup.end() || group->second->out == f) continue;
    const std::vector<SignatureProblem>& atOut = problems.at(group->second->out);
    std::erase_if(list, [&](const SignatureProblem& p) {
      return p.argument && std::any_of(atOut.begin(), atOut.end(), [&](const SignatureProblem& o) {
               return o.argument && o.argument->name == p.argument->name;
             });
    });
  }
  return problems;
}

// Every name an `autogen:` entry lists is a variant the model generated. torchgen ignores an entry
// whose operator family it generates nothing for (an operator without a dispatch: kernel, a view, a
// functional operator that lists no out= variant): a library would lack operators its YAML declares.
// A function with `structured_delegate: OUT` gets its kernels from OUT's structured kernel only as a
// member of OUT's group (the functional, in-place and out= overloads of one signature: the same
// argument names and types). Outside it, torchgen registers no kernel for it at all, and every call
// fails at run time ("Could not run ... with arguments from the 'CPU' backend"): an error at its entry.
void checkStructuredDelegates(const model::Operators& ops, support::Diagnostics& diags) {
  std::set<const model::NativeFunction*> grouped;
  for (const model::NativeFunctionsGroup* g : ops.groups())
    g->forEachFunction([&](const model::NativeFunction& f) { grouped.insert(&f); });
  for (const model::NativeFunction* f : ops.functions()) {
    if (!f->structuredDelegate || grouped.count(f) > 0) continue;
    const std::string out = f->structuredDelegate->str();
    const model::NativeFunction* delegate = nullptr;
    for (const model::NativeFunction* o : ops.functions())
      if (o->func.name.str() == out) delegate = o;
    diags.errorAbout(f->loc.sourceLoc(), f->func.name.str(),
                     "structured_delegate: " + out + ", but it is not in the group of " + out +
                         (delegate ? " (" + f->func.signature().str() + " against " + delegate->func.signature().str() +
                                         "): its arguments must have the same names and types as " + out +
                                         "'s, but for the out= ones (an in-place overload's first one is `self`)"
                                   : ": no such function") +
                         "; as it is, no kernel would be registered for it");
  }
}

void checkAutogen(const model::Operators& ops, support::Diagnostics& diags) {
  std::set<std::string> generated;
  for (const model::NativeFunction* f : ops.functions())
    if (f->generated()) generated.insert(f->func.name.str());
  for (const model::NativeFunction* f : ops.functions()) {
    bool returnsTensor = f->func.kind() == model::SchemaKind::Inplace;
    for (const auto& r : f->func.returns) returnsTensor = returnsTensor || r.type.isTensorLike();
    int offset = 0;
    for (const model::OperatorName& op : f->autogen) {
      const std::string name = op.str();
      if (!generated.count(name)) {
        const std::string_view why =
            f->hasCompositeImplicitAutogradKernel
                ? "an operator without a dispatch: kernel (CompositeImplicitAutograd) gets no generated variants"
            : f->isViewOp() ? "a view operator gets no generated variants"
            : !returnsTensor ? "an operator that returns no tensor gets no out= variant (torchgen's rule: it would "
                               "have nothing to write to out)"
                            : "autogen makes only the out= variant of an operator and the functional variant of an "
                              "in-place or mutable one";
        // Appended piece by piece: "literal" + std::string trips GCC 12's -Wrestrict false positive.
        std::string message = "autogen: '";
        message.append(name).append("' is not generated: ").append(why);
        diags.errorAbout(model::autogenSourceLoc(*f).shifted(offset), f->func.name.str(), message);
      }
      offset += static_cast<int>(name.size()) + 2;
    }
  }
}

// What a stable-ABI library cannot have, each at its entry: structured kernels (their meta and impl
// steps are ATen's classes), autogen: (the generated kernels call ATen), and tags before 2.12 (the
// stable registration takes them from 2.12 on: torch_library_def_with_tags).
void checkStableAbi(const model::Operators& ops, StableAbi abi, const LibtorchFacts& libtorch, support::Diagnostics& diags) {
  const std::string with = "with STABLE_ABI " + abi.str() + ", ";
  for (const model::NativeFunction* f : ops.functions()) {
    if (f->generated()) continue;  // (reported at its origin's autogen:)
    const std::string name = f->func.name.str();
    if (f->structured || f->structuredDelegate)
      diags.errorAbout(f->loc.sourceLoc(), name,
                       with + "structured kernels are not available: their meta and impl steps are ATen's C++ "
                              "classes (at::meta, TensorIterator), outside the stable ABI; declare the kernels of "
                              "each overload in `dispatch:`");
    if (!f->autogen.empty())
      diags.errorAbout(model::autogenSourceLoc(*f), name,
                       with + "autogen: is not available: the generated kernels call ATen's C++ API, outside the "
                              "stable ABI; declare the variants and their kernels yourself");
    for (const auto& [tag, loc] : f->tagLocs) {
      if (!abi.atLeast(2, 12))
        diags.errorAbout(loc.sourceLoc(), name,
                         with + "tag '" + tag + "' cannot be registered: the stable ABI registers schemas with tags "
                                "from PyTorch 2.12 on (torch_library_def_with_tags); target 2.12 or drop the tag");
      else if (!libtorch.stableInplaceOutTags && (tag == "inplace" || tag == "out"))
        diags.errorAbout(loc.sourceLoc(), name,
                         with + "tag '" + tag + "' cannot be registered: the stable ABI's Tag conversion has no '" +
                             tag + "' (torch/csrc/stable/stableivalue_conversions.h), and registering it aborts "
                                   "when the library loads");
    }
  }
}

}  // namespace

bool isIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool isSchemaKeyword(std::string_view word) { return contains(kSchemaKeywords, word); }
bool isCppKeyword(std::string_view word) { return contains(kCppKeywords, word); }

std::string checkLibrary(const model::Operators& ops, std::string_view ns, const LibraryRulesOptions& options,
                         support::Diagnostics& diags) {
  const int errorsBefore = diags.errorCount();
  const std::vector<const model::NativeFunction*>& fs = ops.functions();
  std::string libraryNs(ns);
  const char* from = " (NAMESPACE)";
  if (libraryNs.empty() && !fs.empty() && fs.front()->explicitNamespace) {
    libraryNs = fs.front()->ns;
    from = " (the first operator's)";
  }
  const auto at = [](const model::NativeFunction& f) {
    return f.schemaLoc.line > 0 ? support::SourceLoc{f.schemaLoc.file, f.schemaLoc.line, f.schemaLoc.column}
                                : f.loc.sourceLoc();
  };
  if (!libraryNs.empty()) {
    // The namespace as written in the first operator (or NAMESPACE, which has no line).
    const support::SourceLoc nsLoc = ns.empty() ? at(*fs.front()).shifted(-static_cast<int>(libraryNs.size()) - 2) : support::SourceLoc{};
    if (!isIdentifier(libraryNs))
      diags.error(nsLoc, "namespace '" + libraryNs + "' is not an identifier");
    else if (isSchemaKeyword(libraryNs) || isCppKeyword(libraryNs) || (options.pythonModule && model::isPythonKeyword(libraryNs)))
      diags.error(nsLoc, "namespace '" + libraryNs + "' is a keyword");
    else if (contains(kPyTorchNamespaces, libraryNs))
      diags.error(nsLoc, "namespace '" + libraryNs + "' is PyTorch's own: loading a second library of it aborts the "
                         "process; choose the library's own namespace");
    else if (auto why = namespaceProblem(libraryNs))
      diags.error(nsLoc, *why);
    else if (auto shadows = options.pythonModule ? pythonPackageProblem(libraryNs) : std::nullopt)
      diags.error(nsLoc, "namespace '" + libraryNs + "': " + *shadows);
  }
  // (on the stable ABI, the unstable conventions' problems do not arise: its own are checked per type)
  std::map<const model::NativeFunction*, std::vector<SignatureProblem>> signatureProblems;
  if (options.stableAbi) {
    for (const model::NativeFunction* f : fs) signatureProblems[f];
  } else {
    signatureProblems = signatureProblemsByFunction(ops, options.libtorch);
  }
  for (const model::NativeFunction* f : fs) {
    if (!f->explicitNamespace) {
      const std::string shown = libraryNs.empty() ? "NS" : libraryNs;
      diags.errorAbout(at(*f), f->func.name.str(),
                       "an operator library's operators are declared with their namespace: '" + shown + "::" +
                           f->func.name.str() + "(...)'" + (libraryNs.empty() ? " (NS: the library's namespace)" : ""));
    } else if (!libraryNs.empty() && f->ns != libraryNs) {
      diags.error(at(*f).shifted(-static_cast<int>(f->ns.size()) - 2),
                       "operator '" + f->ns + "::" + f->func.name.str() + "' is not in the library's namespace '" +
                           libraryNs + "'" + from);
    }
    FunctionChecker(*f, signatureProblems.at(f), options, diags).run();
  }
  checkKernels(ops, libraryNs, diags);
  checkStructuredDelegates(ops, diags);
  checkAutogen(ops, diags);
  if (options.stableAbi) checkStableAbi(ops, *options.stableAbi, options.libtorch, diags);
  return diags.errorCount() == errorsBefore ? libraryNs : std::string();
}

}  // namespace opgen::api
