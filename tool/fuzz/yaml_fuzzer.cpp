// The YAML reader (support/Yaml parseYaml): any bytes give a tree or one located error, within the
// nesting and alias limits; every scalar of a tree is then classified as PyYAML would.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "FuzzCheck.h"
#include "support/Yaml.h"

namespace {

using opgen::support::YamlNode;

void visit(const YamlNode& node, std::size_t depth) {
  if (depth > opgen::support::kMaxYamlDepth + 1) opgen::fuzz::fail("a tree nests beyond the limit", "");
  (void)opgen::support::describeNode(node);
  (void)opgen::support::locOf(node, "in.yaml");
  if (node.isScalar()) {
    if (opgen::support::scalarKind(node) == opgen::support::ScalarKind::Bool) (void)opgen::support::scalarBool(node);
  }
  for (const YamlNode& item : node.items()) visit(item, depth + 1);
  for (const auto& [key, value] : node.entries()) {
    visit(key, depth + 1);
    visit(value, depth + 1);
    if (key.isScalar() && !node[key.text()].isDefined()) opgen::fuzz::fail("a key is not found", key.text());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  opgen::support::Diagnostics diags;
  const std::optional<YamlNode> tree = opgen::support::parseYaml(text, "in.yaml", diags);
  opgen::fuzz::checkDiagnostics(diags, !tree);
  if (tree) visit(*tree, 0);
  return 0;
}
