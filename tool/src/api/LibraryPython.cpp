#include "api/LibraryPython.h"

#include <algorithm>
#include <cctype>

#include "support/Strings.h"

namespace opgen::api::library_python {

namespace {

using model::BaseTy;

std::string baseType(BaseTy t) {
  switch (t) {
    case BaseTy::Tensor: return "torch.Tensor";
    case BaseTy::Int:
    case BaseTy::SymInt:
    case BaseTy::DeviceIndex: return "int";
    case BaseTy::Float: return "float";
    case BaseTy::Bool:
    case BaseTy::SymBool: return "bool";
    case BaseTy::Str:
    case BaseTy::Dimname: return "str";
    case BaseTy::Scalar: return "Union[int, float, bool]";
    case BaseTy::ScalarType: return "torch.dtype";
    case BaseTy::Layout: return "torch.layout";
    case BaseTy::Device: return "torch.device";
    case BaseTy::Generator: return "torch.Generator";
    case BaseTy::MemoryFormat: return "torch.memory_format";
    case BaseTy::QScheme: return "torch.qscheme";
    case BaseTy::DimVector: return "List[int]";
    case BaseTy::Storage:
    case BaseTy::Stream:
    case BaseTy::GraphModule: return "Any";
  }
  return "Any";
}

bool isNumber(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  bool digits = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) digits = true;
    else if (c == '.' || c == 'e' || c == 'E' || ((c == '-' || c == '+') && (s[i - 1] == 'e' || s[i - 1] == 'E'))) continue;
    else return false;
  }
  return digits;
}

// A Python string literal with the same characters as the schema's (quoted) string.
std::string pythonString(std::string_view quoted) {
  std::string_view body = quoted.substr(1, quoted.size() - 2);
  std::string out = "\"";
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '\\' && i + 1 < body.size()) {  // an escape: keep it as written
      out += c;
      out += body[++i];
    } else if (c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// One scalar default (or list element) of base type `t`.
support::Expected<std::string> scalarLiteral(std::string_view v, const model::Type& elem) {
  if (v == "None") return std::string("None");
  if (v == "True" || v == "False") return std::string(v);
  if (isNumber(v)) return std::string(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) return pythonString(v);
  if (elem.isBaseTyLike(BaseTy::MemoryFormat) || elem.isBaseTyLike(BaseTy::ScalarType) ||
      elem.isBaseTyLike(BaseTy::Layout)) {
    // contiguous_format, long, strided: the torch attribute of that name
    if (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
      return "torch." + std::string(v);
  }
  if (elem.isBaseTyLike(BaseTy::Int)) {  // at::Reduction
    if (v == "Mean") return std::string("1");
    if (v == "Sum") return std::string("2");
  }
  if (v == "inf") return std::string("float(\"inf\")");
  if (v == "-inf") return std::string("float(\"-inf\")");
  return support::makeError("the default '" + std::string(v) + "' has no Python spelling");
}

// The operator's name without a namespace: scale_add_, __iand__.
// "[a, b]" (built by appending: "literal" + std::string trips GCC 12's -Wrestrict false positive).
std::string bracketed(const std::vector<std::string>& items) {
  std::string out = "[";
  out += support::join(items, ", ");
  out += "]";
  return out;
}

std::string opName(const model::FunctionSchema& func) {
  model::BaseOperatorName base = func.name.name;
  base.ns.clear();
  return base.str();
}

}  // namespace

std::string functionName(const model::FunctionSchema& func) {
  std::string name = opName(func);
  if (!func.name.overloadName.empty()) name += "_" + func.name.overloadName;
  return name;
}

std::string pythonType(const model::Type& type) {
  switch (type.kind()) {
    case model::Type::Kind::Base: return baseType(type.baseTy());
    case model::Type::Kind::Optional: return "Optional[" + pythonType(type.elem()) + "]";
    case model::Type::Kind::List: return "List[" + pythonType(type.elem()) + "]";
    case model::Type::Kind::CustomClass: return "Any";
  }
  return "Any";
}

std::string returnType(const std::vector<model::Return>& returns) {
  if (returns.empty()) return "None";
  if (returns.size() == 1) return pythonType(returns[0].type);
  return "Tuple[" + support::joinMapped(returns, ", ", [](const model::Return& r) { return pythonType(r.type); }) + "]";
}

support::Expected<std::string> pythonDefault(const model::Argument& arg) {
  if (!arg.defaultValue) return support::makeError("argument '" + arg.name + "' has no default");
  const std::string_view v = support::trim(*arg.defaultValue);
  auto fail = [&](const std::string& why) {
    return support::makeError("argument '" + arg.name + "': " + why);
  };
  const model::Type* list = arg.type.listLike();
  if (list != nullptr && v != "None") {
    const model::Type& elem = list->elem();
    if (!v.empty() && v.front() == '[') {
      if (v.back() != ']') return fail("the default '" + std::string(v) + "' is not a list");
      std::vector<std::string> items;
      const std::string_view body = support::trim(v.substr(1, v.size() - 2));
      if (!body.empty())
        for (std::string_view item : support::split(body, ",")) {
          support::Expected<std::string> lit = scalarLiteral(support::trim(item), elem);
          if (!lit) return fail(lit.error().message);
          items.push_back(*lit);
        }
      return bracketed(items);
    }
    // int[2] stride=1: the value for every element.
    support::Expected<std::string> lit = scalarLiteral(v, elem);
    if (!lit) return fail(lit.error().message);
    if (!list->size()) return fail("the default '" + std::string(v) + "' of a list without a size");
    return bracketed(std::vector<std::string>(static_cast<std::size_t>(*list->size()), *lit));
  }
  support::Expected<std::string> lit = scalarLiteral(v, arg.type);
  if (!lit) return fail(lit.error().message);
  return *lit;
}

support::Expected<Function> function(const model::NativeFunction& f, const std::string& ns) {
  Function fn;
  fn.name = functionName(f.func);
  const model::Arguments& args = f.func.arguments;
  std::vector<std::pair<const model::Argument*, bool>> all;
  for (const model::Argument* a : args.flatPositional()) all.emplace_back(a, false);
  for (const model::Argument* a : args.flatKwargOnly()) all.emplace_back(a, true);
  for (const model::Argument& a : args.out) all.emplace_back(&a, true);
  std::vector<std::string> params, callArgs;
  bool star = false, positionalDefault = false;
  for (const auto& [a, kwOnly] : all) {
    Parameter p{.name = a->name, .annotation = pythonType(a->type), .defaultValue = {}, .keywordOnly = kwOnly};
    if (a->defaultValue) {
      support::Expected<std::string> d = pythonDefault(*a);
      if (!d) return d.error();
      p.defaultValue = *d;
    }
    if (!kwOnly) {
      if (p.defaultValue.empty() && positionalDefault)
        return support::makeError("argument '" + a->name + "' has no default but follows one that has (Python forbids that)");
      positionalDefault = positionalDefault || !p.defaultValue.empty();
    }
    if (kwOnly && !star) {
      params.emplace_back("*");
      star = true;
    }
    params.push_back(p.name + ": " + p.annotation + (p.defaultValue.empty() ? "" : " = " + p.defaultValue));
    callArgs.push_back(kwOnly ? p.name + "=" + p.name : p.name);
    fn.parameters.push_back(std::move(p));
  }
  fn.returns = returnType(f.func.returns);
  fn.signature = fn.name + "(" + support::join(params, ", ") + ") -> " + fn.returns;
  const std::string overload = f.func.name.overloadName.empty() ? "default" : f.func.name.overloadName;
  fn.call = "torch.ops." + ns + "." + opName(f.func) + "." + overload + "(" + support::join(callArgs, ", ") + ")";
  fn.doc = f.doc.empty() ? "" : f.doc + "\n\n";
  // (A variant that autogen: adds has no comment of its own.)
  if (f.generated()) fn.doc = "A variant that `autogen:` adds (its kernel is generated).\n\n";
  fn.doc += ns + "::" + f.func.str();
  return fn;
}

}  // namespace opgen::api::library_python
