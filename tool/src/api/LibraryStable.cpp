#include "api/LibraryStable.h"

#include <cstdio>
#include <cstdlib>

#include "api/Cpp.h"
#include "support/Strings.h"

namespace opgen::api {

namespace {

using model::BaseTy;
using model::Type;

constexpr std::string_view kTensor = "torch::stable::Tensor";

// The stable C++ type of a value of base type `b`, or nullopt when the stable ABI has none.
// (stableivalue_conversions.h: StableIValue holds these; Layout, MemoryFormat, Device and str from 2.10.)
std::optional<std::string> baseType(BaseTy b) {
  switch (b) {
    case BaseTy::Tensor: return std::string(kTensor);
    case BaseTy::Int: return "int64_t";
    case BaseTy::Float: return "double";
    case BaseTy::Bool: return "bool";
    case BaseTy::Str: return "std::string";
    case BaseTy::ScalarType: return "torch::headeronly::ScalarType";
    case BaseTy::Layout: return "torch::headeronly::Layout";
    case BaseTy::MemoryFormat: return "torch::headeronly::MemoryFormat";
    case BaseTy::Device: return "torch::stable::Device";
    default: return std::nullopt;
  }
}

// Why a base type is refused, with what to declare instead where there is something.
std::string baseProblem(BaseTy b, StableAbi abi) {
  const std::string name(model::baseTyName(b));
  const std::string head = "type " + name + " cannot pass the stable ABI of PyTorch " + abi.str();
  switch (b) {
    case BaseTy::Scalar:
      return head + " (it has no Scalar: c10::Scalar is not header-only; declare the argument float or int)";
    case BaseTy::SymInt:
      return head + " (it has no symbolic integers; declare the argument int)";
    case BaseTy::SymBool: return head + " (it has no symbolic booleans; declare the argument bool)";
    case BaseTy::Generator:
      return head + " (torch::stable::Generator passes from 2.13 on; opgen's stable-ABI libraries do not pass it yet)";
    case BaseTy::Dimname: return head + " (it has no named tensors)";
    default: return head + " (stableivalue_conversions.h has no conversion for it)";
  }
}

std::string hexTarget(const StableAbi& abi) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%02x%02x000000000000", static_cast<unsigned>(abi.major),
                static_cast<unsigned>(abi.minor));
  return buffer;
}

}  // namespace

support::Expected<StableAbi> StableAbi::parse(std::string_view text) {
  const std::string t(text);
  const auto bad = [&] {
    return support::makeError("needs a PyTorch release like 2.10 (major.minor, 2.10 or later), not '" + t + "'");
  };
  char* end = nullptr;
  const long maj = std::strtol(t.c_str(), &end, 10);
  if (end == t.c_str() || *end != '.') return bad();
  const char* start = end + 1;
  const long min = std::strtol(start, &end, 10);
  if (end == start || *end != '\0' || maj < 0 || min < 0 || maj > 255 || min > 255) return bad();
  StableAbi abi{static_cast<int>(maj), static_cast<int>(min)};
  if (!abi.atLeast(2, 10))
    return support::makeError("the stable ABI of operator libraries starts with PyTorch 2.10 (torch_library_impl, "
                              "torch_call_dispatcher), not " + t);
  return abi;
}

std::string StableAbi::str() const { return std::to_string(major) + "." + std::to_string(minor); }
std::string StableAbi::targetVersion() const { return hexTarget(*this); }
std::string StableAbi::compileDefinition() const { return "TORCH_TARGET_VERSION=" + targetVersion(); }

std::optional<std::string> stableTypeProblem(const Type& t, StableAbi abi, bool isReturn) {
  switch (t.kind()) {
    case Type::Kind::CustomClass:
      return "type " + t.str() + " cannot pass the stable ABI of PyTorch " + abi.str() + " (it has no custom classes)";
    case Type::Kind::Base:
      if (baseType(t.baseTy())) return std::nullopt;
      return baseProblem(t.baseTy(), abi);
    case Type::Kind::Optional:
      if (t.elem().isOptional() || (t.elem().isList() && !t.elem().elem().isBase()))
        return "type " + t.str() + " cannot pass the stable ABI of PyTorch " + abi.str() +
               " (opgen passes optionals of base types and of their lists only)";
      if (isReturn) return "return type " + t.str() + ": opgen's stable-ABI libraries return no optionals";
      return stableTypeProblem(t.elem(), abi, isReturn);
    case Type::Kind::List: {
      const Type& e = t.elem();
      if (!e.isBase())
        return "type " + t.str() + " cannot pass the stable ABI of PyTorch " + abi.str() +
               " (lists of optionals or lists have no stable conversion; a list of a base type has)";
      if (e.isBase(BaseTy::Bool))
        return "type " + t.str() + " cannot pass the stable ABI of PyTorch " + abi.str() +
               " (a list is a torch::headeronly::HeaderOnlyArrayRef, which std::vector<bool> cannot back)";
      if (!e.isBase(BaseTy::Int) && !e.isBase(BaseTy::Float) && !e.isBase(BaseTy::Tensor)) {
        if (!baseType(e.baseTy())) return baseProblem(e.baseTy(), abi);
        return "type " + t.str() + " cannot pass the stable ABI of PyTorch " + abi.str() +
               " (opgen passes lists of int, float and Tensor)";
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {

// The parameter type of an argument of type `t` (stableTypeProblem(t) is nullopt).
std::string parameterType(const Type& t) {
  if (t.isBase()) {
    const std::string b = *baseType(t.baseTy());
    if (t.isBase(BaseTy::Tensor) || t.isBase(BaseTy::Str) || t.isBase(BaseTy::Device)) return "const " + b + "&";
    return b;
  }
  if (t.isList()) return "torch::headeronly::HeaderOnlyArrayRef<" + *baseType(t.elem().baseTy()) + ">";
  // Optional: of a base type or of a list of one.
  const Type& e = t.elem();
  const std::string inner =
      e.isList() ? "torch::headeronly::HeaderOnlyArrayRef<" + *baseType(e.elem().baseTy()) + ">" : *baseType(e.baseTy());
  return "const std::optional<" + inner + ">&";
}

// The type of a return of type `t`: owning (lists as std::vector).
std::string returnType(const Type& t) {
  if (t.isList()) return "std::vector<" + *baseType(t.elem().baseTy()) + ">";
  return *baseType(t.baseTy());
}

}  // namespace

std::string StableSignature::declaration(std::string_view name) const {
  std::string out = returnType;
  out.append(" ").append(name).append("(");
  bool first = true;
  for (const StableParameter& p : parameters) {
    if (!first) out += ", ";
    first = false;
    out.append(p.type).append(" ").append(p.name);
  }
  return out + ")";
}

support::Expected<StableSignature> stableSignature(const model::FunctionSchema& func, StableAbi abi) {
  StableSignature sig;
  std::optional<std::string> problem;
  func.arguments.anyOf([&](const model::Argument& a) {
    if ((problem = stableTypeProblem(a.type, abi))) {
      problem = "argument '" + a.name + "': " + *problem;
      return true;
    }
    sig.parameters.push_back({parameterType(a.type), a.name});
    return false;
  });
  if (problem) return support::makeError(*problem);
  for (const model::Return& r : func.returns) {
    if ((problem = stableTypeProblem(r.type, abi, /*isReturn=*/true))) return support::makeError("return: " + *problem);
    sig.returns.push_back(returnType(r.type));
  }
  if (sig.returns.empty()) sig.returnType = "void";
  else if (sig.returns.size() == 1) sig.returnType = sig.returns.front();
  else sig.returnType = "std::tuple<" + support::join(sig.returns, ", ") + ">";
  return sig;
}

std::optional<std::string> stableCallProblem(const model::FunctionSchema& func) {
  for (const model::Return& r : func.returns)
    if (!(r.type == func.returns.front().type))
      return "the stable C++ API has no function for it: its returns differ in type, and PyTorch's "
             "torch_call_dispatcher converts each return with the type of another (the return at the mirrored "
             "position), which fails at the call; call it through Python, or make its returns one type";
  return std::nullopt;
}

void warnStableCallGaps(const std::vector<const model::NativeFunction*>& functions, support::Diagnostics& diags) {
  for (const model::NativeFunction* f : functions)
    if (std::optional<std::string> why = stableCallProblem(f->func))
      diags.warning(f->loc.sourceLoc(), support::aboutOperator(f->func.name.str(), *why));
}

std::string stableFunctionName(const model::FunctionSchema& func) {
  return cpp::name(func, /*faithfulNameForOutOverloads=*/true);
}

}  // namespace opgen::api
