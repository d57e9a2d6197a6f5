// What torchgen's format_yaml() prints: PyYAML's yaml.dump(data, Dumper=CSafeDumper,
// default_flow_style=False, width=1e9), i.e. libyaml 0.2.5's emitter fed by PyYAML's SafeRepresenter
// and Resolver. Only what Declarations.yaml needs is here:
//
//   - block sequences and block mappings (empty ones print in flow style, `[]` and `{}`),
//   - scalars of the Python types str, bool, int, float and None, represented as PyYAML does
//     (true/false, the decimal digits, repr() with ".0" before an exponent, null),
//   - no anchors (torchgen turns aliases off), no tags, no line folding (the width is 10^9).
//
// A str is written plain when libyaml allows it and PyYAML's resolver would read it back as a str
// (not as a bool, int, float, null, timestamp, merge or value); otherwise single-quoted when libyaml
// allows it, else double-quoted with libyaml's escapes (non-ASCII characters are escaped: PyYAML
// does not pass allow_unicode).
//
// Also here, from support/PythonNumbers.h: the Python conversions torchgen's pythonify_default()
// relies on (int(s), float(s)).
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/PythonNumbers.h"

namespace opgen::support::pyyaml {

// A Python scalar as PyYAML's SafeRepresenter sees it.
class Scalar {
 public:
  enum class Kind { Str, Bool, Int, Float, None };

  static Scalar str(std::string_view s) { return Scalar(Kind::Str, std::string(s)); }
  static Scalar boolean(bool b) { return Scalar(Kind::Bool, b ? "true" : "false"); }
  static Scalar integer(long long n) { return Scalar(Kind::Int, std::to_string(n)); }
  // `digits`: an integer already in Python's str(int) form ("-12").
  static Scalar integerText(std::string digits) { return Scalar(Kind::Int, std::move(digits)); }
  static Scalar real(double d);
  static Scalar none() { return Scalar(Kind::None, "null"); }

  Kind kind() const { return kind_; }
  // The str itself, or the text PyYAML writes for the other kinds.
  const std::string& text() const { return text_; }

 private:
  Scalar(Kind k, std::string text) : kind_(k), text_(std::move(text)) {}
  Kind kind_;
  std::string text_;
};

// Python's int(s), float(s) and repr(float) (support/PythonNumbers.h).
using opgen::support::pythonFloat;
using opgen::support::pythonFloatRepr;
using opgen::support::pythonInt;

// Whether PyYAML's Resolver reads the plain scalar `s` back as a str (no implicit resolver matches).
bool resolvesToStr(std::string_view s);

// A str that is known, when the program is compiled, to print plain and unquoted: a letter, then
// letters, digits and '_', and no spelling of a YAML bool or null (which the resolver would read back
// as one). Mapping keys and fixed values; the emitter writes them without str()'s analysis.
class Word {
 public:
  // consteval: a text that is not a plain word does not compile.
  consteval Word(const char* text) : text_(text) {  // NOLINT: implicit by design
    if (!isPlainWord(text_)) throw "not a plain YAML word";
  }
  std::string_view text() const { return text_; }

 private:
  // (Without a std::string: clang 14 cannot evaluate libstdc++ 12's at compile time.)
  static consteval bool isPlainWord(std::string_view s) {
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (s.empty() || !letter(s.front())) return false;
    for (char c : s)
      if (!letter(c) && c != '_' && !(c >= '0' && c <= '9')) return false;
    for (std::string_view resolved : {"yes", "no", "true", "false", "on", "off", "null"}) {
      bool same = resolved.size() == s.size();
      for (size_t i = 0; same && i < s.size(); ++i) same = lower(s[i]) == resolved[i];
      if (same) return false;
    }
    return true;
  }
  std::string_view text_;
};

// The emitter: one YAML document, driven by events in document order. Every sequence and mapping
// must be closed; a mapping takes key, value, key, value, ... (keys are scalars).
class Emitter {
 public:
  // `sizeHint`: the document's expected size in bytes, reserved at once (a longer one grows by doubling).
  // `storage`: a string whose memory the document reuses (its text is dropped).
  explicit Emitter(size_t sizeHint = size_t{1} << 16, std::string storage = {});

  void scalar(const Scalar& s);
  void str(std::string_view s);
  // The same as str(w.text()), without analysing the text.
  void word(Word w) { plainNode(w.text()); }
  // The same as scalar(Scalar::boolean(b)) and scalar(Scalar::none()), without making the Scalar.
  void boolean(bool b) { plainNode(b ? std::string_view("true") : std::string_view("false")); }
  void none() { plainNode("null"); }
  // A block sequence / mapping with at least one element; empty ones are emptySequence() / emptyMapping().
  void beginSequence();
  void endSequence();
  void beginMapping();
  void endMapping();
  void emptySequence();
  void emptyMapping();

  // The document (ends with a line break). The emitter is spent afterwards.
  std::string finish();

  // Repeated sequence items. An item of a block sequence that starts on a new line prints the same
  // text for the same events at the same indent, whatever came before. So its text can be recorded
  // and copied later instead of emitting its events again:
  //   ItemStart start = y.itemStart();  // the next node is an item of the current block sequence
  //   ... the item's events ...
  //   Item item = y.item(start);
  //   ... later, where the same events would be the next item:  if (!y.repeatItem(item)) emit them.
  struct ItemStart {
    size_t offset;
    int indent;
  };
  struct Item {
    size_t begin = 0, end = 0;  // the text, in this emitter's output
    int indent = 0;
    bool newLine = false;  // it started on a new line (else it cannot be repeated)
    long column = 0;       // the state after it
    bool whitespace = false, indention = false, mappingContext = false;
  };
  ItemStart itemStart() const;
  Item item(const ItemStart& start) const;
  // Writes the item again and returns true, when the next node is an item of a block sequence at the
  // item's indent and would start on a new line; otherwise writes nothing and returns false.
  bool repeatItem(const Item& item);

 private:
  enum class Context { Root, SequenceItem, MappingKey, MappingValue };
  struct Level {
    bool mapping = false;
    bool expectValue = false;  // mappings: the next node is a value
    bool simpleKey = true;     // mappings: the current key was written as a simple key
  };

  // Writes what comes before a node (a sequence's "-", a mapping's key/value indicators) and says
  // in which context the node is emitted. `scalarText`: the scalar's text, nullptr for collections.
  Context beforeNode(const std::string_view* scalarText, bool multiline);
  // Whether writeIndent() would start a new line.
  bool breaksLine() const;
  // A scalar known to print plain (a word, a bool, null, a number, a str that plainAtOnce accepts).
  void plainNode(std::string_view text);
  // A str through libyaml's whole analysis and style selection.
  void analyzedStr(std::string_view text);
  void afterNode();
  void increaseIndent(bool flow, bool indentless);
  void writeIndent();
  void writeIndicator(std::string_view indicator, bool needWhitespace, bool isWhitespace, bool isIndention);
  void put(char c);
  void putBreak();
  void writePlain(std::string_view s);
  void writeSingleQuoted(std::string_view s);
  void writeDoubleQuoted(std::string_view s);

  // The output: out_ is kept longer than the text written so far (its first size_ bytes), so that an
  // append is a copy after one length check; finish() cuts it to size.
  char* room(size_t n) {
    if (n > out_.size() - size_) grow(n);
    char* at = out_.data() + size_;
    size_ += n;
    return at;
  }
  void append(std::string_view s) { std::memcpy(room(s.size()), s.data(), s.size()); }
  void append(char c) { *room(1) = c; }
  void grow(size_t n);

  std::string out_;
  size_t size_ = 0;
  std::vector<Level> levels_;
  std::vector<int> indents_;
  int indent_ = -1;
  long column_ = 0;
  bool whitespace_ = true;
  bool indention_ = true;
  bool mappingContext_ = false;  // libyaml's mapping_context of the node being emitted
};

}  // namespace opgen::support::pyyaml
