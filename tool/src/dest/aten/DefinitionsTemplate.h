// The template of one item's code in Register{Key}.cpp, reduced.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dest/common/Emit.h"

namespace opgen::dest {

// RegisterDispatchDefinitions.ini, which torchgen renders for every item of every key (some 37,000
// times a run), reduced for one key to its literal pieces and the places of the item's variables, so
// that an item's text is assembled without a template environment or a second scan of the template.
// Only a template whose item variables are all blocks (alone on their lines) reduces, and only text
// on which Python's line splitting and stripping are the plain ones ('\n', ' ', '\t'; no other control
// or non-ASCII byte) and that holds no `"""` (torchgen's docstring spacing) is assembled here: render()
// declines the rest, which the caller renders through the template.
class DefinitionsTemplate {
 public:
  // The template, in the ATen template directory.
  static constexpr std::string_view kTemplateName = "RegisterDispatchDefinitions.ini";

  // The item's variables; the others (dispatch_namespace, deferred_dispatch_registrations) are the key's.
  enum Variable { kNsPrologue, kAnonymousDefinitions, kRegistrations, kNamespacedDefinitions, kNsEpilogue, kVariables };
  // Each variable's value: a list, or a string as a list of one.
  using Values = std::array<std::span<const std::string>, kVariables>;

  // Renders the template once with markers for the item's variables. Call it only after the template
  // rendered with the same names defined (it then reports nothing); nullopt when the template does not
  // reduce.
  static std::optional<DefinitionsTemplate> reduce(Writer& templates, std::string_view dispatchNamespace);

  // The lines of what the template renders for `values` that are not empty, joined by '\n' (torchgen
  // splits the text into lines, and the block substitution of dispatch_definitions drops the empty
  // ones); nullopt when the text is not plain (see above).
  std::optional<std::string> lines(const Values& values) const;

 private:
  struct Piece {
    std::string literal;
    Variable variable = kVariables;  // the block after the literal (none after the last piece)
    std::string indent;              // the block's indentation
  };
  std::vector<Piece> pieces_;
  size_t literalSize_ = 0;
  mutable std::vector<char> buffer_;  // where lines() writes: one thread at a time uses an object
};

}  // namespace opgen::dest
