// `opgen parse`: loads a native_functions.yaml (and its tags.yaml) and describes the model as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "model/Operators.h"

namespace opgen::gen {

// The model as documented in docs/commands.md ("opgen parse"): native_functions, groups, view_groups, counts, backend_indices.
nlohmann::ordered_json describeModel(const model::Operators& ops);

}  // namespace opgen::gen
