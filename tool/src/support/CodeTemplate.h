// CodeTemplate: torchgen's template engine (torchgen/code_template.py), parsed once, rendered many
// times.
//
// Placeholders are `$name`, `${name}`, `${,name}`, `${name,}` and `${,name,}` with
// name = [A-Za-z_][A-Za-z0-9_]*. A `$` that does not start a placeholder is copied as is.
//
// - Block: when only whitespace other than '\n' precedes the `$` on its line (or it starts the
//   line), the indentation and the placeholder are replaced by the value's lines (a string counts
//   as a one-element list; each element is split like Python's str.splitlines()), each line that is
//   not blank prefixed with the indentation, every line right-stripped, the whole right-stripped.
// - Inline: a list is joined with ", "; when it is not empty, `${,name}` adds ", " before it and
//   `${name,}` after it. A string is inserted as is (the commas are ignored).
// - A name the environment does not define is an error at the `$`:
//   "FILE:LINE:COL: error: template variable 'name' is not defined".
//
// Whitespace and line breaks follow Python's definitions (str.isspace, str.splitlines) on UTF-8
// text. Known difference: torchgen's names may contain non-ASCII letters; here they are ASCII only.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "support/Diagnostics.h"

namespace opgen::support {

class InputFiles;

// A template variable's value: a string or a list of strings. A string is kept as itself (not as a
// list of one): most values are, and an environment is made for every snippet rendered. One of the
// three forms is held (a variant: environments are made and moved millions of times a run).
class TemplateValue {
 public:
  explicit TemplateValue(std::string s) : value_(std::move(s)) {}
  explicit TemplateValue(std::vector<std::string> items) : value_(std::move(items)) {}
  // A list of strings owned elsewhere, which must outlive every rendering with this value (the
  // text of a file that concatenates lists kept for other files, without copying them).
  static TemplateValue borrowedList(std::vector<std::string_view> items) { return TemplateValue(std::move(items)); }

  bool isList() const { return value_.index() != kText; }
  bool isBorrowed() const { return value_.index() == kBorrowed; }
  // A string's text (empty for a list).
  const std::string& text() const { return isList() ? empty<std::string>() : std::get<kText>(value_); }
  // A list's elements (empty for a string). Not of a borrowed list (see borrowed()).
  const std::vector<std::string>& items() const {
    return value_.index() == kItems ? std::get<kItems>(value_) : empty<std::vector<std::string>>();
  }
  // A borrowed list's elements.
  const std::vector<std::string_view>& borrowed() const {
    return isBorrowed() ? std::get<kBorrowed>(value_) : empty<std::vector<std::string_view>>();
  }

 private:
  enum : std::size_t { kText, kItems, kBorrowed };
  explicit TemplateValue(std::vector<std::string_view> items) : value_(std::move(items)) {}
  template <class T>
  static const T& empty() {
    static const T none;
    return none;
  }

  std::variant<std::string, std::vector<std::string>, std::vector<std::string_view>> value_;
};

// The variables of one rendering. Setting a name again replaces its value. Kept in a vector searched
// from the front: an environment holds a handful of names, and one is made for every snippet.
class TemplateEnv {
 public:
  TemplateEnv& set(std::string key, std::string value);
  TemplateEnv& set(std::string key, const char* value) { return set(std::move(key), std::string(value)); }
  TemplateEnv& set(std::string key, std::vector<std::string> items);
  // Makes set("xs", {"a", "b"}) and set("xs", {}) lists (not a std::string built from two pointers).
  TemplateEnv& set(std::string key, std::initializer_list<std::string> items) {
    return set(std::move(key), std::vector<std::string>(items));
  }
  TemplateEnv& set(std::string key, TemplateValue value);

  const TemplateValue* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }

 private:
  std::vector<std::pair<std::string, TemplateValue>> values_;
};

class CodeTemplate {
 public:
  // Parses `text`; `filename` only names the template in diagnostics.
  explicit CodeTemplate(std::string_view text, std::string filename = {});

  // Reads and parses a template file. Like Python's text mode, "\r\n" and "\r" become "\n".
  // An unreadable file is reported as "PATH: error: cannot read template: REASON".
  static std::optional<CodeTemplate> fromFile(const std::string& path, Diagnostics& diags);
  // The same, recording the file in `inputs` (for depfiles).
  static std::optional<CodeTemplate> fromFile(const std::string& path, InputFiles& inputs);

  // The rendered text, or nullopt after reporting each undefined name (once per name).
  std::optional<std::string> substitute(const TemplateEnv& env, Diagnostics& diags) const;
  // The same, appended to `out` (which is left as it was when a name is undefined): a caller that
  // renders many files can keep one buffer, whose memory is then allocated and touched once.
  bool substituteInto(std::string& out, const TemplateEnv& env, Diagnostics& diags) const;

  const std::string& filename() const { return filename_; }
  // The names the template uses, in order of first use.
  std::vector<std::string> variables() const;

 private:
  enum class Kind { Literal, Inline, Block };
  struct Segment {
    Kind kind = Kind::Literal;
    std::string text;  // Literal: the text; Block: the indentation
    std::string name;  // Inline, Block: the variable
    bool commaBefore = false;
    bool commaAfter = false;
    int line = 0;  // of the `$`
    int column = 0;
  };

  void addLiteral(std::string_view text);

  std::string filename_;
  std::vector<Segment> segments_;
  size_t literalSize_ = 0;  // total size of the literal text, to reserve the output
};

}  // namespace opgen::support
