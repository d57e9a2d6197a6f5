// YAML reading with source locations (yaml-cpp underneath), and PyYAML's reading of plain scalars,
// so that `structured: True` is a bool and `variants: function` a string, exactly as torchgen sees them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "support/Diagnostics.h"

namespace opgen::support {

// Parses a whole document; a syntax error becomes "FILE:LINE:COL: error: ..." and nullopt.
std::optional<YAML::Node> parseYaml(std::string_view content, const std::string& path, Diagnostics& diags);

// The 1-based position of a node.
SourceLoc locOf(const YAML::Node& node, const std::string& path);

// What PyYAML's safe loader makes of a scalar (YAML 1.1 resolution of plain scalars).
enum class ScalarKind { Null, Bool, Int, Float, String, Collection };  // Collection: a mapping or list
ScalarKind scalarKind(const YAML::Node& node);
// The boolean value of a scalar of kind Bool.
bool scalarBool(const YAML::Node& node);

// "a mapping", "a list", "a string", "a bool", ... for error messages.
std::string describeNode(const YAML::Node& node);

}  // namespace opgen::support
