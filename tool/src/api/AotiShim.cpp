#include "api/AotiShim.h"

#include <optional>

#include "api/Cpp.h"
#include "support/Strings.h"

namespace opgen::api::aoti {

namespace {

using model::BaseTy;

struct BaseMapping {
  BaseTy type;
  std::string_view cType;
  std::string_view atenType;
  std::string_view convert;  // applied to the C value at the call; empty: passed as is
};

constexpr BaseMapping kBaseMappings[] = {
    {BaseTy::Tensor, "AtenTensorHandle", "at::Tensor", "resolve_tensor_dispatch_flags"},
    {BaseTy::Bool, "int32_t", "bool", ""},
    {BaseTy::Int, "int64_t", "int64_t", ""},
    {BaseTy::SymInt, "int64_t", "c10::SymInt", ""},
    {BaseTy::Scalar, "double", "c10::Scalar", ""},
    {BaseTy::Float, "double", "double", ""},
    {BaseTy::Str, "const char*", "::std::string_view", ""},
    {BaseTy::DeviceIndex, "int32_t", "c10::DeviceIndex", "static_cast<c10::DeviceIndex>"},
    {BaseTy::Layout, "int32_t", "c10::Layout", "static_cast<c10::Layout>"},
    {BaseTy::MemoryFormat, "int32_t", "c10::MemoryFormat", "static_cast<c10::MemoryFormat>"},
    {BaseTy::ScalarType, "int32_t", "c10::ScalarType", "static_cast<c10::ScalarType>"},
    {BaseTy::Generator, "AtenGeneratorHandle", "at::Generator", "*generator_handle_to_generator_pointer"},
};

const BaseMapping* baseMapping(const model::Type& t) {
  if (!t.isBase()) return nullptr;
  for (const BaseMapping& m : kBaseMappings)
    if (m.type == t.baseTy()) return &m;
  return nullptr;
}

// One argument's C parameters (types and names, pairwise), ATen types and call expressions.
struct CArgument {
  std::vector<std::string> cTypes, names, atenTypes, exprs;
};

std::optional<CArgument> convertArgument(const model::Type& t, const std::string& name, bool isWrite,
                                         Unsupported& why) {
  if (const BaseMapping* m = baseMapping(t)) {
    std::string expr;
    if (t.isBase(BaseTy::Tensor) && isWrite) {
      // The usual conversion gives an rvalue, which cannot bind to at::Tensor&.
      expr = "*tensor_handle_to_tensor_pointer(" + name + ")";
    } else {
      expr = m->convert.empty() ? name : std::string(m->convert) + "(" + name + ")";
    }
    return CArgument{{std::string(m->cType)}, {name}, {std::string(m->atenType)}, {std::move(expr)}};
  }
  if (t.isBase(BaseTy::Device)) {
    return CArgument{{"int32_t", "int32_t"},
                     {name, name + "_index_"},
                     {"c10::Device"},
                     {"c10::Device(static_cast<c10::DeviceType>(" + name + "), static_cast<c10::DeviceIndex>(" + name +
                      "_index_))"}};
  }
  if (t.isOptional()) {
    std::optional<CArgument> inner = convertArgument(t.elem(), name, false, why);
    if (!inner) return std::nullopt;
    CArgument r{inner->cTypes, inner->names, {}, {}};
    size_t j = 0;  // the C parameter of the current ATen value
    for (const std::string& aten : inner->atenTypes) {
      r.cTypes[j] += "*";  // optionals are pointers
      r.atenTypes.push_back("::std::optional<" + aten + ">");
      if (support::startsWith(aten, "c10::ArrayRef<")) {
        const std::string elem = aten.substr(14, aten.size() - 15);
        r.exprs.push_back("pointer_to_optional_list<" + elem + ">(" + r.names[j] + ", " + r.names[j + 1] + ")");
        j += 2;
      } else if (aten == "c10::Device") {
        r.exprs.push_back("pointer_to_optional_device(" + r.names[j] + ", " + r.names[j + 1] + ")");
        j += 2;
      } else if (aten == "at::Tensor") {
        r.exprs.push_back("resolve_tensor_dispatch_flags(" + r.names[j] + ")");
        j += 1;
      } else {
        r.exprs.push_back("pointer_to_optional<" + aten + ">(" + r.names[j] + ")");
        j += 1;
      }
    }
    return r;
  }
  if (t.isList()) {
    std::optional<CArgument> inner = convertArgument(t.elem(), name, false, why);
    if (!inner) return std::nullopt;
    if (inner->cTypes.size() != 1) {
      why = Unsupported{true, "a list of '" + t.elem().str() + "' has no C shim type"};
      return std::nullopt;
    }
    CArgument r;
    r.cTypes = {"const " + inner->cTypes[0] + "*", "int64_t"};
    r.names = {inner->names[0], inner->names[0] + "_len_"};
    const std::string& aten = inner->atenTypes[0];
    const std::string& n = r.names[0];
    if (aten == "bool") {
      if (!t.size()) {
        why = Unsupported{true, "bool[] without a size has no C shim type"};
        return std::nullopt;
      }
      r.exprs.push_back("pointer_to_list<" + std::to_string(*t.size()) + ">(" + n + ")");
    } else if (aten == "at::Tensor" && !isWrite) {
      r.exprs.push_back("resolve_tensor_list_dispatch_flags(" + n + ", " + n + "_len_)");
    } else if (aten == "::std::optional<at::Tensor>") {
      r.exprs.push_back("c10::List<" + aten + ">(c10::ArrayRef<" + aten + ">(resolve_tensor_list_dispatch_flags(" + n +
                        ", " + n + "_len_)))");
    } else {
      r.exprs.push_back("pointer_to_list<" + aten + ">(" + n + ", " + n + "_len_)");
    }
    for (const std::string& a : inner->atenTypes) r.atenTypes.push_back("c10::ArrayRef<" + a + ">");
    return r;
  }
  why = Unsupported{false, "argument type '" + t.str() + "'"};
  return std::nullopt;
}

}  // namespace

// torchgen's gen_arguments: arguments of newer versions (`skipped`) are passed their defaults.
bool shimArguments(const std::vector<const model::Argument*>& args, const std::set<std::string_view>& skipped,
                   ShimParameters& out, Unsupported& why) {
  for (const model::Argument* a : args) {
    if (skipped.count(a->name)) {
      out.exprs.push_back(a->defaultValue ? cpp::defaultExpr(*a->defaultValue, a->type, /*symint=*/false)
                                          : "std::nullopt");
      continue;
    }
    std::optional<CArgument> c = convertArgument(a->type, a->name, a->isWrite(), why);
    if (!c) return false;
    for (size_t i = 0; i < c->cTypes.size() && i < c->names.size(); ++i)
      out.declarations.push_back(c->cTypes[i] + " " + c->names[i]);
    for (std::string& e : c->exprs) out.exprs.push_back(std::move(e));
  }
  return true;
}

// torchgen's gen_returns: returns are written through pointer parameters ret0, ret1, ...
bool shimReturns(const model::FunctionSchema& func, bool nullable, ShimParameters& params,
                 std::vector<std::string>& assignments, Unsupported& why) {
  const auto& returns = func.returns;
  for (size_t i = 0; i < returns.size(); ++i) {
    const BaseMapping* m = baseMapping(returns[i].type);
    if (!m) {
      why = Unsupported{false, "return type '" + returns[i].type.str() + "'"};
      return false;
    }
    params.declarations.push_back(std::string(m->cType) + "* ret" + std::to_string(i));
  }
  for (size_t i = 0; i < returns.size(); ++i) {
    const std::string tmp = returns.size() == 1 ? "tmp_result" : "std::get<" + std::to_string(i) + ">(tmp_result)";
    std::string value;
    switch (returns[i].type.baseTy()) {
      case BaseTy::Tensor: value = "new_tensor_handle(std::move(" + tmp + "))"; break;
      case BaseTy::SymInt: value = tmp + ".expect_int()"; break;
      case BaseTy::Scalar: value = tmp + ".toDouble()"; break;
      default: value = tmp;
    }
    const std::string ret = "ret" + std::to_string(i);
    assignments.push_back(nullable ? "if (" + ret + ") { *" + ret + " = " + value + "; }"
                                   : "*" + ret + " = " + value + ";");
  }
  return true;
}

}  // namespace opgen::api::aoti
