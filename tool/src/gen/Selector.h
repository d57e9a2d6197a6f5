// Selective build: which operators a (mobile, custom) build includes. torchgen's SelectiveBuilder and
// SelectiveBuildOperator (torchgen/selective_build/selector.py, operator.py), read from an operator
// selection YAML file (--op-selection-yaml-path) or from a list of operator names
// (--op-registration-whitelist), or selecting everything.
//
// A selection file is a mapping with the keys include_all_operators, include_all_non_op_selectives,
// debug_info, operators (NAME -> {is_root_operator, is_used_for_training, include_all_overloads,
// debug_info}), kernel_metadata, et_kernel_metadata, custom_classes and build_features; torchgen's
// checks apply, reported as FILE:LINE:COL: error: ....
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dest/common/Emit.h"
#include "support/Diagnostics.h"

namespace opgen::gen {

struct SelectiveBuildOperator {
  // "ns::op" or "ns::op.overload". Without an overload it may stand for every overload
  // (includeAllOverloads).
  std::string name;
  bool isRootOperator = true;
  bool isUsedForTraining = true;
  bool includeAllOverloads = true;
  std::optional<std::vector<std::string>> debugInfo;
};

class SelectiveBuilder final : public dest::OperatorSelector {
 public:
  // Selects every operator (torchgen's get_nop_selector).
  static SelectiveBuilder selectAll();
  // torchgen's from_legacy_op_registration_allow_list: each name selects all its overloads.
  static SelectiveBuilder fromLegacyAllowList(const std::vector<std::string>& names, bool isRootOperator,
                                              bool isUsedForTraining);
  // torchgen's from_yaml_path / from_yaml_str; nullopt after reporting errors.
  static std::optional<SelectiveBuilder> fromYamlFile(const std::string& path, support::Diagnostics& diags);
  static std::optional<SelectiveBuilder> fromYamlText(std::string_view text, const std::string& path,
                                                      support::Diagnostics& diags);

  bool includesAllOperators() const override { return includeAllOperators_; }
  bool isOperatorSelected(std::string_view name) const override;

  const std::map<std::string, SelectiveBuildOperator, std::less<>>& operators() const { return operators_; }

 private:
  const SelectiveBuildOperator* find(std::string_view name) const;

  bool includeAllOperators_ = false;
  std::map<std::string, SelectiveBuildOperator, std::less<>> operators_;
};

// torchgen's op name without its overload: "aten::add.Tensor" -> "aten::add".
std::string_view stripOverloadName(std::string_view name);

}  // namespace opgen::gen
