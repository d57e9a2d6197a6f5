#include "api/Autograd.h"

#include "support/CodeText.h"

namespace opgen::api {

namespace {

using model::BaseTy;

constexpr std::string_view kSavedVariable = "torch::autograd::SavedVariable";

// The stored type of a non-tensor base type, or empty.
std::string_view valueType(BaseTy t) {
  switch (t) {
    case BaseTy::Int: return "int64_t";
    case BaseTy::SymInt: return "c10::SymInt";
    case BaseTy::Float: return "double";
    case BaseTy::Bool: return "bool";
    case BaseTy::Scalar: return "at::Scalar";
    case BaseTy::Str: return "std::string";
    case BaseTy::ScalarType: return "at::ScalarType";
    default: return {};
  }
}

}  // namespace

std::string SavedValue::save(const std::string& expr) const { return support::fillSnippet(saveTemplate, {{"expr", expr}}); }

std::vector<std::string> SavedValue::declarations() const {
  std::vector<std::string> out{type + " " + member + ";"};
  if (kind == Kind::TensorList) out.push_back("bool " + name + "_released_ = false;");
  return out;
}

std::vector<std::string> SavedValue::releases() const {
  switch (kind) {
    case Kind::Tensor: return {member + ".reset_data();"};
    case Kind::TensorList: return {member + ".clear();", name + "_released_ = true;"};
    case Kind::Value: break;
  }
  return {};
}

support::Expected<SavedValue> savedArgument(const model::Argument& a, const LibtorchFacts& libtorch) {
  SavedValue v{.name = a.name, .member = a.name + "_", .type = {}, .saveTemplate = "$expr$", .unpack = a.name + "_"};
  const model::Type& t = a.type;
  auto unsupported = [&] {
    return support::makeError("argument '" + a.name + "' of type " + t.str() +
                              " is used by a formula, and graph nodes cannot keep that type yet");
  };
  if (t.isBase(BaseTy::Tensor) || (t.isOptional() && t.elem().isBase(BaseTy::Tensor))) {
    v.type = kSavedVariable;
    v.saveTemplate = std::string(kSavedVariable) + "($expr$, false)";
    v.unpack = v.member + ".unpack()";
    v.kind = SavedValue::Kind::Tensor;
  } else if (t.isList() && t.elem().isBase(BaseTy::Tensor)) {
    v.type = "std::vector<" + std::string(kSavedVariable) + ">";
    v.saveTemplate = "torch::autograd::make_saved_variable_list($expr$)";
    v.unpack = "opgen_unpack_list(" + v.member + ", " + a.name + "_released_)";
    v.kind = SavedValue::Kind::TensorList;
  } else if (t.isBase()) {
    if (valueType(t.baseTy()).empty()) return unsupported();
    v.type = valueType(t.baseTy());
    // A str argument is a c10::string_view, which converts to std::string implicitly in PyTorch 2
    // (std::string_view) and not in 1.x (c10's own class).
    if (t.isBase(BaseTy::Str)) v.saveTemplate = "std::string($expr$)";
  } else if (t.isOptional() && t.elem().isBase() && !valueType(t.elem().baseTy()).empty() &&
             !t.elem().isBase(BaseTy::Scalar) && !t.elem().isBase(BaseTy::Str)) {
    v.type = std::string(Spelling::of(libtorch).optional) + "<" + std::string(valueType(t.elem().baseTy())) + ">";
  } else if (t.isList() && t.elem().isBase() &&
             (t.elem().isBase(BaseTy::Int) || t.elem().isBase(BaseTy::SymInt) || t.elem().isBase(BaseTy::Float))) {
    v.type = "std::vector<" + std::string(valueType(t.elem().baseTy())) + ">";
    v.saveTemplate = "$expr$.vec()";
  } else {
    return unsupported();
  }
  return v;
}

SavedValue savedReturn(const std::string& name, const LibtorchFacts& libtorch, bool inplace) {
  return SavedValue{.name = name,
                    .member = name + "_",
                    .type = std::string(kSavedVariable),
                    .saveTemplate = std::string(kSavedVariable) + (inplace ? "($expr$, true, $expr$.is_view())" : "($expr$, true)"),
                    .unpack = name + "_.unpack(" + std::string(Spelling::of(libtorch).thisNode) + ")",
                    .kind = SavedValue::Kind::Tensor};
}

}  // namespace opgen::api
