#include "api/Python.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <set>
#include <string_view>

#include "api/Cpp.h"
#include "api/Types.h"
#include "support/PythonNumbers.h"
#include "support/Strings.h"

namespace opgen::api::python {

using model::BaseTy;
using model::Type;
using support::Expected;
using support::makeError;

namespace {

// The schema types whose parser name is their schema name.
bool parserNameIsSchemaName(BaseTy t) {
  switch (t) {
    case BaseTy::Tensor: case BaseTy::Bool: case BaseTy::QScheme: case BaseTy::Scalar: case BaseTy::ScalarType:
    case BaseTy::Generator: case BaseTy::Storage: case BaseTy::Layout: case BaseTy::Device: case BaseTy::DeviceIndex:
    case BaseTy::MemoryFormat: case BaseTy::Stream: case BaseTy::SymInt:
      return true;
    default:
      return false;
  }
}

std::string sized(const char* name, std::optional<int> size) {
  return size ? std::string(name) + "[" + std::to_string(*size) + "]" : std::string(name);
}

}  // namespace

std::string pythonifyDefault(const std::string& s) {
  if (s == "true") return "True";
  if (s == "false") return "False";
  if (auto i = support::pythonInt(s)) return *i;
  if (auto f = support::pythonFloat(s)) return support::pythonFloatRepr(*f);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Which functions get bindings

namespace {

// Names (the C++ API's, as regular expressions) that PyTorch binds by hand or does not expose.
const char* const kSkipPatterns[] = {
    "alias", "contiguous", "dim", "get_device", "is_contiguous", "is_cuda", "is_sparse", "is_sparse_csr", "numel",
    "size", "storage_offset", "stride", "sym_is_contiguous", "sym_size", "sym_stride", "sym_storage_offset",
    "sym_numel", ".*_backward", ".*_backward_(out|input|weight|bias)", ".*_forward", ".*_forward_out", ".*_jvp",
    "_unsafe_view", "tensor", "_?sparse_(coo|compressed|csr|csc|bsr|bsc)_tensor.*", "_range.*", "_sparse_add_out",
    "_sparse_div.*", "_sparse_mul.*", "_sparse_sub.*", "_sparse_dense_add_out", "index", "index_out",
    "unique_dim_consecutive", "_cumsum.*", "_cumprod.*", "_sum.*", "_prod.*", "_th_.*", "_thnn_.*", "range.*",
    "_solve.*", "_inverse.*", "_cholesky.*", "_triangular_solve.*", "_qr.*", "_svd.*", "slice", "item",
    "_local_scalar_dense", "to", "_to_copy", "_to_copy_out", "_reshape_copy", "_reshape_copy_out",
    "copy_sparse_to_sparse_", "copy_", "_foreach_copy", "numpy_T", "matrix_H", "mT", "mH",
    "nonzero(_(out|numpy))?", "set_data", ".*_overrideable", "data", "is_leaf", "output_nr", "_version",
    "requires_grad_", "retains_grad", "set_", "_fw_primal", "fake_quantize_per_tensor_affine_cachemask",
    "fake_quantize_per_channel_affine_cachemask", "_new_zeros_with_same_feature_meta", "_has_same_storage_numel",
    "_reshape_alias", "replace_", "copy", "fill.Tensor", "fill.Scalar", "lift.*", "normal_functional", "nbytes",
    "itemsize", "_batch_norm_with_update", "_batch_norm_with_update_out", "_batch_norm_no_update"};

// Schemas (exactly as printed) that are not exposed.
const char* const kSkipSignatures[] = {
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    "mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    "div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
};

// One of kSkipPatterns, matched as Python's re.fullmatch does. A pattern without metacharacters
// matches only itself; any other matches only names that contain its longest required run of plain
// characters (outside groups, without a quantified last character), which is looked for before the
// regular expression runs: one regular expression of all the patterns cost some 27,000 instructions
// a name, 14% of an `opgen python` run.
class SkipPattern {
 public:
  explicit SkipPattern(std::string_view pattern) {
    if (pattern.find_first_of(".*?+()[]{}|^$\\") == std::string_view::npos) {
      literal_ = pattern;
      return;
    }
    regex_.emplace(std::string(pattern), std::regex::optimize);
    int depth = 0;
    std::string run;
    auto endRun = [&] {
      if (run.size() > literal_.size()) literal_ = run;
      run.clear();
    };
    for (const char c : pattern) {
      if (std::string_view("?*+{").find(c) != std::string_view::npos) {
        if (!run.empty()) run.pop_back();  // quantified: not required
        endRun();
      } else if (c == '(' || c == ')' || c == '[' || c == ']') {
        endRun();
        depth += (c == '(' || c == '[') ? 1 : -1;
      } else if (c == '|' && depth == 0) {
        literal_.clear();  // alternatives at the top: nothing is required
        return;
      } else if (depth == 0 && std::string_view(".^$\\").find(c) == std::string_view::npos) {
        run.push_back(c);
      } else {
        endRun();
      }
    }
    endRun();
  }
  bool matches(const std::string& name) const {
    if (!regex_) return name == literal_;
    return name.find(literal_) != std::string::npos && std::regex_match(name, *regex_);
  }

 private:
  std::string literal_;
  std::optional<std::regex> regex_;
};

}  // namespace

bool shouldGeneratePyBinding(const model::NativeFunction& f) {
  if (f.tags.count("generated") && !f.tags.count("view_copy")) return false;
  static const std::vector<SkipPattern> kSkip(std::begin(kSkipPatterns), std::end(kSkipPatterns));
  const std::string name = model::cppName(f.func);
  if (std::any_of(kSkip.begin(), kSkip.end(), [&](const SkipPattern& p) { return p.matches(name); })) return false;
  const std::string schema = f.func.str();
  return std::none_of(std::begin(kSkipSignatures), std::end(kSkipSignatures),
                      [&](const char* s) { return schema == s; });
}

// ---------------------------------------------------------------------------------------------
// Signatures

std::string argumentTypeStr(const Type& t, bool simpleType, bool symint) {
  switch (t.kind()) {
    case Type::Kind::Base:
      switch (t.baseTy()) {
        case BaseTy::Int: return "int64_t";
        case BaseTy::Float: return "double";
        case BaseTy::Str: return "c10::string_view";
        default:
          if (parserNameIsSchemaName(t.baseTy())) return std::string(model::baseTyName(t.baseTy()));
          return "__unsupported__";
      }
    case Type::Kind::Optional: return argumentTypeStr(t.elem(), simpleType, symint) + "?";
    case Type::Kind::List: {
      const std::optional<int> size = simpleType ? std::nullopt : t.size();
      const std::string elem = t.elem().str();
      if (elem == "bool") return "::std::array<bool," + std::to_string(t.size().value_or(0)) + ">";
      if (elem == "int" || (elem == "SymInt" && !symint)) return sized("IntArrayRef", size);
      if (elem == "SymInt") return sized("SymIntArrayRef", size);
      if (elem == "Tensor") return sized("TensorList", size);
      if (elem == "Scalar") return sized("ScalarList", size);
      if (elem == "Tensor?")
        return simpleType ? "c10::List<::std::optional<Tensor>>" : "const c10::List<::std::optional<Tensor>> &";
      return "ArrayRef<" + argumentTypeStr(t.elem(), simpleType, symint) + ">";
    }
    case Type::Kind::CustomClass: break;
  }
  return "__unsupported__";
}

std::string PythonArgument::str(bool method, bool symint) const {
  const std::string typeStr =
      support::replaceAll(support::replaceAll(argumentTypeStr(type, false, symint), "const ", ""), " &", "");
  std::string n = name;
  if (n == "self" && (typeStr == "Tensor" || typeStr == "Number") && !method) n = "input";
  if (!defaultValue) return typeStr + " " + n;
  const std::string& d = *defaultValue;
  const bool none = d == "nullptr" || d == "::std::nullopt" || d == "std::nullopt" || d == "{}";
  return typeStr + " " + n + "=" + (none ? std::string("None") : d);
}

std::vector<const PythonArgument*> PythonSignature::arguments(bool skipOutputs, bool skipTensorOptions) const {
  std::vector<const PythonArgument*> out;
  for (const auto& a : inputArgs) out.push_back(&a);
  for (const auto& a : inputKwargs) out.push_back(&a);
  if (outputArgs && !skipOutputs) out.push_back(&*outputArgs);
  if (!skipTensorOptions)
    for (const auto& a : tensorOptionsArgs) out.push_back(&a);
  return out;
}

std::string PythonSignature::str(bool skipOutputs, bool symint) const {
  std::string out = name + "(";
  const std::vector<const PythonArgument*> args = arguments(skipOutputs);
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    if (i == inputArgs.size()) out += "*, ";
    out += args[i]->str(method, symint);
  }
  out += ")";
  if (deprecated) out += "|deprecated";
  return out;
}

namespace {

PythonArgument pythonArgument(const model::Argument& a) {
  PythonArgument p{a.name, a.type, std::nullopt, std::nullopt, {}};
  if (a.defaultValue) p.defaultValue = pythonifyDefault(cpp::defaultExpr(*a.defaultValue, a.type, false));
  return p;
}

PythonArgument outArgument(std::vector<PythonArgument> outputs) {
  PythonArgument out;
  if (outputs.size() == 1) {
    out.name = outputs[0].name;
    out.type = outputs[0].type;
  } else {
    out.name = "out";
    out.type = Type::list(Type::base(BaseTy::Tensor), static_cast<int>(outputs.size()));
  }
  out.defaultValue = "None";
  out.outputs = std::move(outputs);
  return out;
}

// The default of a tensor options field when the schema gives one.
std::optional<std::string> toptDefaultInit(const model::FunctionSchema& func, const model::Argument model::TensorOptionsArguments::*field) {
  if (!func.arguments.tensorOptions) return std::nullopt;
  const model::Argument& a = (*func.arguments.tensorOptions).*field;
  if (!a.defaultValue || *a.defaultValue == "None") return std::nullopt;
  return cpp::defaultExpr(*a.defaultValue, a.type, false);
}

std::vector<PythonArgument> tensorOptionsArgs(const model::FunctionSchema& func, bool likeOrNew) {
  auto opt = [](BaseTy t) { return Type::optional(Type::base(t)); };
  auto init = [&](const model::Argument model::TensorOptionsArguments::*field) {
    return likeOrNew ? std::nullopt : toptDefaultInit(func, field);
  };
  std::optional<std::string> device = init(&model::TensorOptionsArguments::device);
  if (!likeOrNew && !device) device = "torch::tensors::get_default_device()";
  return {
      {"dtype", opt(BaseTy::ScalarType), "None", init(&model::TensorOptionsArguments::dtype), {}},
      {"layout", opt(BaseTy::Layout), "None", init(&model::TensorOptionsArguments::layout), {}},
      {"device", opt(BaseTy::Device), "None", device, {}},
      {"pin_memory", opt(BaseTy::Bool), "False", std::nullopt, {}},
      {"requires_grad", opt(BaseTy::Bool), "False", std::nullopt, {}},
  };
}

}  // namespace

Expected<PythonSignature> signatureFromSchema(const model::FunctionSchema& func,
                                              const std::optional<std::string>& categoryOverride, bool method) {
  const model::Arguments& args = func.arguments;
  PythonSignature sig;
  sig.name = func.name.name.str();
  sig.method = method;
  sig.returns = func.returns;
  for (const auto& a : args.preSelfPositional) sig.inputArgs.push_back(pythonArgument(a));
  if (!method && args.selfArg) sig.inputArgs.push_back(pythonArgument(*args.selfArg));
  for (const auto& a : args.postSelfPositional) sig.inputArgs.push_back(pythonArgument(a));
  for (const auto& a : args.preTensorOptionsKwargOnly) sig.inputKwargs.push_back(pythonArgument(a));
  for (const auto& a : args.postTensorOptionsKwargOnly) sig.inputKwargs.push_back(pythonArgument(a));
  std::vector<PythonArgument> outputs;
  for (const auto& a : args.out) outputs.push_back(pythonArgument(a));
  if (outputs.size() > 1) {
    for (const auto& o : outputs)
      if (!o.type.isTensorLike()) return makeError("Unsupported output type: " + o.type.str());
  }
  if (!outputs.empty()) sig.outputArgs = outArgument(std::move(outputs));

  for (const model::Argument* a : func.schemaOrderArguments())
    if (a->name == "requires_grad")
      return makeError("argument named requires_grad is reserved, should not explicitly add it in the schema");
  const auto nonOut = args.flatNonOut();
  const bool hasTensorInput = std::any_of(nonOut.begin(), nonOut.end(), [](const model::Argument* a) { return a->type.isTensorLike(); });
  const bool hasTensorReturn =
      std::any_of(func.returns.begin(), func.returns.end(), [](const model::Return& r) { return r.type.isTensorLike(); });
  const std::string name = model::cppName(func);
  const std::string category = categoryOverride.value_or("");
  const bool factory = category == "factory" || (hasTensorReturn && !hasTensorInput);
  const bool likeOrNew = category == "new" || category == "like" || support::startsWith(name, "new_") ||
                         support::endsWith(name, "_like");
  if ((factory || likeOrNew) && category != "dummy") sig.tensorOptionsArgs = tensorOptionsArgs(func, likeOrNew);
  return sig;
}

Expected<std::vector<std::string>> structseqFieldnames(const std::vector<model::Return>& returns) {
  if (returns.size() <= 1 || std::all_of(returns.begin(), returns.end(), [](const model::Return& r) { return !r.name; }))
    return std::vector<std::string>{};
  std::vector<std::string> names;
  for (const auto& r : returns) {
    if (!r.name) return makeError("Unnamed field is not supported by codegen");
    names.push_back(*r.name);
  }
  return names;
}

}  // namespace opgen::api::python
