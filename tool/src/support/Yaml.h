// YAML reading with source locations, and PyYAML's reading of plain scalars, so that
// `structured: True` is a bool and `variants: function` a string, exactly as torchgen sees them.
//
// Documents are read with libyaml, the parser behind PyYAML's C loader that torchgen itself uses
// (same YAML 1.1 grammar), into trees of YamlNode; nothing above this file sees the parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/Diagnostics.h"

namespace opgen::support {

class YamlNode {
 public:
  enum class Kind : std::uint8_t { Undefined, Null, Scalar, Sequence, Map };

  YamlNode() = default;  // undefined: what a lookup of a missing key gives
  static YamlNode null(int line, int column) { return YamlNode(Kind::Null, line, column); }
  static YamlNode scalar(std::string text, bool plain, int line, int column);
  static YamlNode sequence(int line, int column) { return YamlNode(Kind::Sequence, line, column); }
  static YamlNode map(int line, int column) { return YamlNode(Kind::Map, line, column); }
  // Building: an item of a sequence, an entry of a mapping (duplicate keys are kept, in order).
  void push(YamlNode item) { children_.push_back(std::move(item)); }
  // Moves the items of another sequence to the end of this one.
  void appendItems(YamlNode&& other) {
    for (YamlNode& item : other.children_) children_.push_back(std::move(item));
    other.children_.clear();
  }
  void add(YamlNode key, YamlNode value) {
    children_.push_back(std::move(key));
    children_.push_back(std::move(value));
  }

  Kind kind() const { return kind_; }
  bool isDefined() const { return kind_ != Kind::Undefined; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isScalar() const { return kind_ == Kind::Scalar; }
  bool isSequence() const { return kind_ == Kind::Sequence; }
  bool isMap() const { return kind_ == Kind::Map; }
  // A scalar's text; empty for other kinds.
  const std::string& text() const { return text_; }
  // Whether a scalar was written plain, not quoted: only plain scalars resolve to null, bools, numbers.
  bool isPlain() const { return plain_; }
  // Where the node starts (0-based), or -1 when unknown.
  int line() const { return line_; }
  int column() const { return column_; }

  // The number of items of a sequence or entries of a mapping.
  std::size_t size() const { return kind_ == Kind::Map ? children_.size() / 2 : kind_ == Kind::Sequence ? children_.size() : 0; }
  // A sequence's items.
  const std::vector<YamlNode>& items() const { return kind_ == Kind::Sequence ? children_ : noChildren(); }
  // A mapping's entries: `for (const auto& [key, value] : node.entries())`.
  struct Entry {
    const YamlNode& key;
    const YamlNode& value;
  };
  class Entries {
   public:
    struct Iterator {
      const YamlNode* at;
      Entry operator*() const { return {at[0], at[1]}; }
      Iterator& operator++() {
        at += 2;
        return *this;
      }
      bool operator!=(const Iterator& other) const { return at != other.at; }
    };
    explicit Entries(const std::vector<YamlNode>& children) : children_(children) {}
    Iterator begin() const { return {children_.data()}; }
    Iterator end() const { return {children_.data() + children_.size()}; }

   private:
    const std::vector<YamlNode>& children_;
  };
  Entries entries() const { return Entries(kind_ == Kind::Map ? children_ : noChildren()); }
  // The value of a mapping's first entry whose key is the scalar `key`; an undefined node otherwise.
  const YamlNode& operator[](std::string_view key) const;

  // Equal kinds, texts, plainness, locations and children (for tests).
  bool operator==(const YamlNode& other) const = default;

 private:
  YamlNode(Kind kind, int line, int column) : kind_(kind), line_(line), column_(column) {}
  static const std::vector<YamlNode>& noChildren();
  static const YamlNode& undefined();

  Kind kind_ = Kind::Undefined;
  bool plain_ = false;
  int line_ = -1;
  int column_ = -1;
  std::string text_;
  std::vector<YamlNode> children_;  // a sequence's items; a mapping's keys and values, alternating
};

// Limits that keep memory and time proportional to the text: collections nest at most
// kMaxYamlDepth deep; aliases copy at most kMaxYamlAliasNodes nodes plus one per byte of the text.
inline constexpr std::size_t kMaxYamlDepth = 256;
inline constexpr std::size_t kMaxYamlAliasNodes = 100000;

// Parses a whole document; a syntax error or a limit exceeded becomes "FILE:LINE:COL: error: ..."
// and nullopt. An empty document is a null node.
std::optional<YamlNode> parseYaml(std::string_view content, const std::string& path, Diagnostics& diags);

namespace detail {
// libyaml's tree of a document, or nullopt on a syntax error (for tests).
std::optional<YamlNode> readWithLibyaml(std::string_view text);
}  // namespace detail

// The 1-based position of a node.
SourceLoc locOf(const YamlNode& node, const std::string& path);

// What PyYAML's safe loader makes of a scalar (YAML 1.1 resolution of plain scalars).
enum class ScalarKind { Null, Bool, Int, Float, String, Collection };  // Collection: a mapping or list
ScalarKind scalarKind(const YamlNode& node);
// The boolean value of a scalar of kind Bool.
bool scalarBool(const YamlNode& node);

// "a mapping", "a list", "a string", "a bool", ... for error messages.
std::string describeNode(const YamlNode& node);

}  // namespace opgen::support
