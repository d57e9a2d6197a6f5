// The dispatch half of api/Python.h: the dispatch lambda and the binding of the parser's outputs to
// its arguments (torchgen's api/python.py, "C++ Function Dispatch" and "Python / C++ Args Binding").
#include <algorithm>
#include <set>

#include "api/Cpp.h"
#include "api/Python.h"
#include "api/Types.h"

namespace opgen::api::python {

using model::BaseTy;
using model::Type;
using support::Expected;
using support::makeError;

namespace {

bool hasTensorOptions(const model::NativeFunction& f) { return f.func.arguments.tensorOptions.has_value(); }

const std::set<std::string> kSupportedReturnTypes = {
    "at::Tensor",
    "::std::tuple<at::Tensor,at::Tensor>",
    "::std::tuple<at::Tensor,at::Tensor,at::Tensor>",
    "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor>",
    "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,at::Tensor>",
    "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,at::Tensor,at::Tensor>",
    "::std::tuple<at::Tensor,at::Tensor,at::Tensor,int64_t>",
    "::std::tuple<at::Tensor,at::Tensor,double,int64_t>",
    "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,int64_t>",
    "::std::tuple<at::Tensor,at::Tensor,double,at::Tensor,int64_t>",
    "::std::tuple<double,int64_t>",
    "::std::tuple<at::Tensor,::std::vector<at::Tensor>>",
    "::std::vector<at::Tensor>",
    "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,c10::SymInt,c10::SymInt,at::Tensor,at::Tensor,at::Tensor>",
    "at::Scalar",
    "bool",
    "int64_t",
    "void*",
    "void",
    "at::QScheme",
    "double",
    "at::IntArrayRef",
    "at::ScalarType",
    "at::Stream",
};

// Which types may fall back to a default_init expression.
bool acceptsDefaultInit(const std::string& t) {
  static const std::set<std::string> kTypes = {"ScalarType?", "ScalarType", "Device", "Device?",
                                               "Layout",      "Layout?",    "bool",   "bool?"};
  return kTypes.count(t) != 0;
}

}  // namespace

std::vector<DispatchLambdaArgument> dispatchLambdaArgs(const PythonSignature& ps, const model::NativeFunction& f,
                                                       bool symint) {
  const model::FunctionSchema& schema = ps.deprecated ? ps.deprecated->schema : f.func;
  const std::vector<Binding> cppArgs =
      cpp::arguments(schema.arguments, cpp::Flavor{.faithful = false, .symint = symint, .method = false},
                     f.cppNoDefaultArgs, Options::of(f));
  std::set<std::string> outArgs;
  for (const auto& a : schema.arguments.out) outArgs.insert(a.name);
  std::vector<DispatchLambdaArgument> out;
  for (const Binding& b : cppArgs) {
    std::string type = b.type();
    const bool isOut = outArgs.count(b.name) != 0;
    if (ps.method && b.name == "self") {
      type = "const at::Tensor &";  // a method's self: mutability does not matter
    } else if ((outArgs.size() <= 1 || !isOut) && type == "at::Tensor &") {
      type = "at::Tensor";  // taken by value, so that the parser's temporaries do not dangle
    }
    out.push_back({b.name, std::move(type), isOut});
  }
  return out;
}

Expected<std::string> dispatchLambdaReturnStr(const model::NativeFunction& f) {
  std::vector<model::Return> returns = f.func.returns;
  for (auto& r : returns) r.annotation.reset();
  const std::string type = cpp::returnsType(returns, Options::of(f)).cppType();
  if (!kSupportedReturnTypes.count(type)) return makeError(f.func.name.str() + " returns unsupported type " + type);
  return type;
}

Expected<std::string> cppDispatchTarget(const model::NativeFunction& f) {
  const std::string name = model::cppName(f.func, false, f.func.hasSymInt());
  if (f.hasVariant(model::Variant::Method)) return "self." + name;
  if (f.hasVariant(model::Variant::Function)) {
    const bool torch = hasTensorOptions(f) || f.func.name.name.base.ends_with("_like");
    return std::string(torch ? "torch::" : "at::") + name;
  }
  return makeError("could not dispatch, neither function nor method: " + f.func.str());
}

std::vector<std::string> cppDispatchExprs(const model::NativeFunction& f, const PythonSignature& ps) {
  std::vector<std::string> exprs;
  if (!ps.deprecated) {
    for (const Binding& b : cpp::arguments(f.func.arguments, cpp::Flavor{}, f.cppNoDefaultArgs, Options::of(f)))
      exprs.push_back(b.name);
  } else {
    for (const std::string& e : ps.deprecated->argsExprs)
      if (e != "out" || f.func.isOutFn()) exprs.push_back(e);
  }
  if (f.hasVariant(model::Variant::Method)) std::erase(exprs, std::string("self"));
  return exprs;
}

Expected<std::string> argParserUnpackMethod(const Type& t, const std::optional<std::string>& defaultValue,
                                            const std::optional<std::string>& defaultInit, bool symint) {
  const bool hasDefaultInit = defaultInit.has_value();
  if (hasDefaultInit && !acceptsDefaultInit(t.str()))
    return makeError("type '" + t.str() + "' does not supported unpacking with default");
  switch (t.kind()) {
    case Type::Kind::Base:
      switch (t.baseTy()) {
        case BaseTy::Tensor: return std::string("tensor");
        case BaseTy::Stream: return std::string("stream");
        case BaseTy::Storage: return std::string("storage");
        case BaseTy::Scalar: return std::string("scalar");
        case BaseTy::ScalarType: return std::string(hasDefaultInit ? "scalartypeWithDefault" : "scalartype");
        case BaseTy::Device: return std::string(hasDefaultInit ? "deviceWithDefault" : "device");
        case BaseTy::DeviceIndex: case BaseTy::Int: return std::string("toInt64");
        case BaseTy::SymInt: return std::string(symint ? "toSymInt" : "toInt64");
        case BaseTy::Bool: return std::string(hasDefaultInit ? "toBoolWithDefault" : "toBool");
        case BaseTy::Float: return std::string("toDouble");
        case BaseTy::Str: return std::string("stringView");
        case BaseTy::Layout: return std::string(hasDefaultInit ? "layoutWithDefault" : "layout");
        case BaseTy::MemoryFormat: return std::string("memoryformat");
        default: break;
      }
      break;
    case Type::Kind::Optional: {
      const std::string elem = t.elem().str();
      if (elem == "Tensor") return std::string("optionalTensor");
      if (elem == "Generator") return std::string("generator");
      const bool noneDefault =
          !defaultValue || *defaultValue == "None" || *defaultValue == "::std::nullopt" || *defaultValue == "std::nullopt";
      if (!hasDefaultInit && noneDefault) {
        auto inner = argParserUnpackMethod(t.elem(), std::nullopt, std::nullopt, symint);
        if (!inner) return inner;
        return *inner + "Optional";
      }
      return argParserUnpackMethod(t.elem(), defaultValue, defaultInit, symint);
    }
    case Type::Kind::List: {
      const std::string elem = t.elem().str();
      if (elem == "Tensor") return t.size() ? "tensorlist_n<" + std::to_string(*t.size()) + ">" : std::string("tensorlist");
      if (elem == "Tensor?") return std::string("list_of_optional_tensors");
      if (elem == "int") return std::string("intlist");
      if (elem == "float") return std::string("doublelist");
      if (elem == "SymInt") return std::string(symint ? "symintlist" : "intlist");
      if (elem == "Scalar") return std::string("scalarlist");
      break;
    }
    case Type::Kind::CustomClass: break;
  }
  return makeError("type '" + t.str() + "' is not supported by PythonArgParser");
}

Expected<std::map<std::string, ArgParserOutputExpr>> argParserOutputExprs(const PythonSignature& ps, bool symint) {
  std::map<std::string, ArgParserOutputExpr> out;
  const auto args = ps.arguments();
  for (size_t i = 0; i < args.size(); ++i) {
    const PythonArgument& a = *args[i];
    auto method = argParserUnpackMethod(a.type, a.defaultValue, a.defaultInit, symint);
    if (!method) return method.error();
    std::string expr = "_r." + *method + "(" + std::to_string(i) + (a.defaultInit ? ", " + *a.defaultInit : "") + ")";
    out.insert_or_assign(a.name, ArgParserOutputExpr{a.name, std::move(expr), i});
  }
  return out;
}

namespace {

// The scattered tensor options fields and their types.
const std::vector<std::pair<std::string, std::string>> kTensorOptionsFields = {
    {"dtype", "ScalarType?"}, {"device", "Device?"}, {"layout", "Layout?"}, {"pin_memory", "bool?"},
    {"requires_grad", "bool?"}};

// The tensor options packed into one TensorOptions (a function that takes them).
Expected<std::string> packedOptions(const PythonSignature& ps, const model::NativeFunction& f,
                                    const std::map<std::string, ArgParserOutputExpr>& outputs) {
  const std::string func = f.func.str();
  if (f.func.isOutFn()) return makeError(func + ": tensor options with output arg");
  std::set<std::string> names;
  for (const auto& a : ps.tensorOptionsArgs) {
    auto field = std::find_if(kTensorOptionsFields.begin(), kTensorOptionsFields.end(),
                              [&](const auto& p) { return p.first == a.name; });
    if (field == kTensorOptionsFields.end())
      return makeError(func + ": unrecognized tensor options field '" + a.name + "' in python binding arguments");
    if (a.type.str() != field->second)
      return makeError(func + ": unrecognized type '" + a.type.str() + "' for tensor options field '" + a.name + "'");
    names.insert(a.name);
  }
  for (const auto& [name, type] : kTensorOptionsFields)
    if (!names.count(name)) return makeError(func + ": incomplete tensor options args");
  const std::string maybeInitializeDevice = ps.method ? "if (!at::impl::tensor_has_dispatch(self)) {\n"
                                                        "  torch::utils::maybe_initialize_device(options);\n"
                                                        "}\n"
                                                      : "torch::utils::maybe_initialize_device(options);\n";
  return "const auto options = TensorOptions()\n"
         "    .dtype(" + outputs.at("dtype").expr + ")\n"
         "    .device(" + outputs.at("device").expr + ")\n"
         "    .layout(" + outputs.at("layout").expr + ")\n"
         "    .requires_grad(" + outputs.at("requires_grad").expr + ")\n"
         "    .pinned_memory(" + outputs.at("pin_memory").expr + ");\n" +
         maybeInitializeDevice;
}

// The check of an out= call's tensor options against its output; nullopt when there is nothing to check.
Expected<std::optional<std::string>> outTypeCheck(const PythonSignature& ps, const model::NativeFunction& f,
                                                  const std::map<std::string, ArgParserOutputExpr>& outputs) {
  std::set<std::string> names;
  for (const auto& a : ps.tensorOptionsArgs) names.insert(a.name);
  if (names.empty()) return std::optional<std::string>();
  std::optional<std::string> check;
  const std::string func = f.func.str();
  if (names.count("dtype")) {
    if (!f.func.isOutFn()) return makeError(func + ": dtype in tensor_options_args without output arg");
    if (!names.count("layout") || !names.count("device"))
      return makeError(func + ": incomplete tensor options for output check");
    const auto& dtype = outputs.at("dtype");
    const auto& device = outputs.at("device");
    check = "check_out_type_matches(" + outputs.at("out").expr + ", " + dtype.expr + ",\n" +
            "                       " + dtype.isNoneExpr() + ", " + outputs.at("layout").expr + ",\n" +
            "                       " + device.expr + ", " + device.isNoneExpr() + ");\n";
  }
  if (!names.count("requires_grad"))
    return makeError(func + ": expected \"requires_grad\" in tensor_options_args absent");
  return check;
}

}  // namespace

Expected<DispatchLambdaArgumentExprs> dispatchLambdaExprs(const PythonSignature& ps, const model::NativeFunction& f,
                                                          bool symint) {
  auto outputs = argParserOutputExprs(ps, symint);
  if (!outputs) return outputs.error();
  const std::vector<DispatchLambdaArgument> lambdaArgs = dispatchLambdaArgs(ps, f, symint);
  DispatchLambdaArgumentExprs result;
  std::map<std::string, std::string> exprs;
  const bool toptions = hasTensorOptions(f);
  for (const PythonArgument* a : ps.arguments(false, true)) {
    const std::string& expr = outputs->at(a->name).expr;
    if (toptions && a->name == "self") {
      result.inits.push_back("auto self = " + expr + ";");
      exprs[a->name] = a->name;
    } else if (a->isOut() && a->outputs.size() > 1 && f.func.isOutFn()) {
      result.inits.push_back("auto out = " + expr + ";");
      for (size_t i = 0; i < a->outputs.size(); ++i) exprs[a->outputs[i].name] = "out[" + std::to_string(i) + "]";
    } else {
      exprs[a->name] = expr;
    }
  }
  if (ps.method) exprs["self"] = "self";
  if (toptions) {
    auto packed = packedOptions(ps, f, *outputs);
    if (!packed) return packed.error();
    result.inits.push_back(*packed);
    exprs["options"] = "options";
  } else {
    auto check = outTypeCheck(ps, f, *outputs);
    if (!check) return check.error();
    if (*check) result.inits.push_back(**check);
  }
  for (const auto& a : lambdaArgs) {
    auto it = exprs.find(a.name);
    if (it == exprs.end()) return makeError(f.func.str() + ": no Python argument binds the C++ argument '" + a.name + "'");
    result.exprs.push_back(it->second);
  }
  return result;
}

}  // namespace opgen::api::python
