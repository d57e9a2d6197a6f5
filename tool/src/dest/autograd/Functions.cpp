#include "dest/autograd/Functions.h"

#include <algorithm>
#include <map>

#include "support/CodeTemplate.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest::autograd {

namespace {

using api::BaseCppType;
using api::CType;
using api::autograd::Derivative;
using api::autograd::DifferentiabilityInfo;
using api::autograd::SavedAttribute;
using support::CodeTemplate;
using support::TemplateEnv;

// The fixed parts of the generated code (the output format of PyTorch's Functions.h/.cpp).
// Legend: op (the node class), superclass (Node or TraceableFunction), name/idx (an input and its
// position among the differentiable inputs), derivative (a formula), the other names are lists of
// statements or declarations. Those without a placeholder that starts a line (where torchgen's
// templates indent a block) are CodeText snippets (`$name$`): the same text, without an environment.
const CodeTemplate kFunctionDeclaration(R"cc(#ifdef _WIN32
struct ${op} : public ${superclass} {
  TORCH_API ${op}() = default;
#else
struct TORCH_API ${op} : public ${superclass} {
#endif
  using ${superclass}::${superclass};
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "${op}"; }
  void release_variables() override {
    ${thread_lock}
    ${release_variables}
  }
  ${will_release_variables}
  void compiled_args(CompiledNodeArgs& args) const override;
  variable_list apply_with_saved(const variable_list& inputs, SwapSavedVariables& saved) override;
  ${saved_variables}
  ${saved_list_sizes}
};
)cc");
constexpr std::string_view kWillReleaseVariables = R"cc(bool retain_variables = true;
void will_release_variables() override {
  retain_variables = false;
}
)cc";
const CodeTemplate kFunctionDefinition(R"cc(static variable_list ${op}_apply_functional(
  variable_list&& grads,
  std::array<bool,${num_inputs}> needs_input_grad${,apply_functional_args_signature})
{
  IndexRangeGenerator gen;
  ${compute_index_ranges}
  variable_list grad_inputs(gen.size());
  ${body}
  return grad_inputs;
}
inline variable_list ${op}_apply_functional_ivalue(const variable_list& grads, const ivalue_list& args)
{
#ifdef C10_MOBILE
  TORCH_INTERNAL_ASSERT(false, "compiled autograd doesn't work on mobile");
#else
  auto packed_args = PackedArgs(args);
  auto needs_input_grad = packed_args.unpack<std::array<bool, ${num_inputs}>>();
  ${unpack_ivalues}
  return ${op}_apply_functional(variable_list(grads), needs_input_grad${,apply_functional_args});
#endif
}

variable_list ${op}::apply(variable_list&& grads) {
  ${thread_lock}
  ${asserts}
  ${unpacks}
  ${compute_needs_input_grad}
  return ${op}_apply_functional(std::move(grads), needs_input_grad${,apply_functional_args});
}

void ${op}::compiled_args(CompiledNodeArgs& args) const {
    ${compiled_args}
}
variable_list ${op}::apply_with_saved(const variable_list& grads, SwapSavedVariables& saved) {
#ifdef C10_MOBILE
  TORCH_INTERNAL_ASSERT(false, "compiled autograd doesn't work on mobile");
#else
  ${apply_with_saved_before}

  static bool called = false;
  if (!called) {
    called = true;
    ${compute_schema}
    const auto& pyinterface = torch::dynamo::autograd::getPyCompilerInterface();
    pyinterface->bind_function(saved.get_py_compiler(), name(), ${op}_apply_functional_ivalue, schema);
  }

  variable_list output_result;

  PackedArgs packed_args;
  ${asserts}
  ${unpacks}
  ${compute_needs_input_grad}
  packed_args.pack(needs_input_grad);
  ${get_packed_args}

  output_result = compiled_autograd_apply_functional(packed_args, next_edges(), saved, grads, name());

  ${apply_with_saved_after}
  return output_result;
#endif
}

)cc");
const CodeTemplate kGradInputMask(R"cc(  auto grad_input_mask = std::array<bool, ${n}>{
    ${masks}
  };
)cc");
const CodeTemplate kComputeNeedsInputGrad(R"cc(IndexRangeGenerator gen;
${compute_index_ranges}
auto needs_input_grad = std::array<bool, ${n}>{
  ${masks}
};)cc");
constexpr std::string_view kDerivativeSingle = R"cc(if (needs_input_grad[/*$name$*/$idx$]) {
  auto grad_result = $derivative$;
  copy_range(grad_inputs, $name$_ix, grad_result);
}
)cc";
constexpr std::string_view kDerivativeSingleForeach = R"cc(if (needs_input_grad[/*$name$*/$idx$]) {  // $name$
  std::vector<Tensor> grad_result;
  grad_result.reserve(grads.size());
  for (const auto & i : c10::irange(grads.size())) {
    if (grads[i].defined()) {
      grad_result.emplace_back($derivative$);
    } else {
      grad_result.emplace_back(Tensor());
    }
  }
  copy_range(grad_inputs, $name$_ix, grad_result);
}
)cc";
constexpr std::string_view kDerivativeMultiCopyRange = R"cc(  if (needs_input_grad[/*$name$*/$idx$]) {
    copy_range(grad_inputs, $name$_ix, std::get<$i$>(grad_result));
  }
)cc";
const CodeTemplate kDerivativeMulti(R"cc(if (${needs_input_grad}) {
  ${grad_input_mask}
  auto grad_result = ${derivative};
  ${copy_ranges}
}
)cc");

// The Python classes of the nodes (python_functions_N.cpp): their getters of saved values. Legend: op,
// name (a saved value), body (one of the getter bodies below).
const CodeTemplate kPyFunctionDefinition(R"cc(static PyTypeObject ${op}Class;
addClass<${op}>(module, ${op}Class, "${op}", ${op}_properties);
)cc");
const CodeTemplate kPyFunctionPropsAndGetters(R"cc(${all_getter_definitions}

static struct PyGetSetDef ${op}_properties[] = {
  THP_FUNCTION_DEFAULT_PROPERTIES,
  ${all_getsetdef_structs}
  {nullptr} /* sentinel */
};

)cc");
const CodeTemplate kPyGetsetdefStruct(R"cc({(char*)"_saved_${name}", (getter)THP${op}_${name}_getter, nullptr, nullptr, nullptr})cc");
const CodeTemplate kPyRawGetsetdefStruct(R"cc({(char*)"_raw_saved_${name}", (getter)THP${op}_${name}_raw_getter, nullptr, nullptr, nullptr})cc");
const CodeTemplate kGetterDefinition(R"cc(static PyObject* THP${op}_${name}_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  auto prop = static_cast<${op}*>(self->cdata.get())->${name};
  ${body}
  END_HANDLE_TH_ERRORS
}
)cc");
const CodeTemplate kGetterDefinitionSavedvar(R"cc(static PyObject* THP${op}_${name}_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  const auto& prop = static_cast<${op}*>(self->cdata.get())->${name}_;
  ${body}
  END_HANDLE_TH_ERRORS
}
)cc");
const CodeTemplate kGetterDefinitionRawSavedvar(R"cc(static PyObject* THP${op}_${name}_raw_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  const auto& prop = static_cast<${op}*>(self->cdata.get())->${name}_;
  ${body}
  END_HANDLE_TH_ERRORS
}
)cc");
const CodeTemplate kGetterDefinitionVecSavedvar(R"cc(static PyObject* THP${op}_${name}_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  const auto *node = static_cast<${op}*>(self->cdata.get());
  const auto& prop = node->${name}_;
  if (node->${name}_released_) {
    PyErr_SetString(PyExc_RuntimeError, ERR_BACKWARD_TWICE);
    return nullptr;
  }
  ${body}
  END_HANDLE_TH_ERRORS
}
)cc");
const CodeTemplate kGetterDefinitionRawVecSavedvar(R"cc(static PyObject* THP${op}_${name}_raw_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  const auto *node = static_cast<${op}*>(self->cdata.get());
  const auto& prop = node->${name}_;
  if (node->${name}_released_) {
    PyErr_SetString(PyExc_RuntimeError, ERR_BACKWARD_TWICE);
    return nullptr;
  }
  ${body}
  END_HANDLE_TH_ERRORS
}
)cc");
const CodeTemplate kGetterDefinitionOpt(R"cc(static PyObject* THP${op}_${name}_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  auto opt_prop = static_cast<${op}*>(self->cdata.get())->${name};
  if (!opt_prop.has_value()) {
    Py_RETURN_NONE;
  }
  auto prop = opt_prop.value();
  ${body}
  END_HANDLE_TH_ERRORS
}
)cc");
const CodeTemplate kGetterDefinitionOptArrayref(R"cc(static PyObject* THP${op}_${name}_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  auto opt_prop = static_cast<${op}*>(self->cdata.get())->${name};
  if (!opt_prop.list.has_value()) {
    Py_RETURN_NONE;
  }
  auto prop = opt_prop.list.value();
  ${body}
  END_HANDLE_TH_ERRORS
}
)cc");
constexpr std::string_view kGetterBodySavedvar = R"cc(return THPVariable_Wrap(prop.unpack(self->cdata));
)cc";
constexpr std::string_view kGetterBodyRawSavedvar = R"cc(pybind11::object obj = pybind11::cast(prop, pybind11::return_value_policy::reference);
return obj.release().ptr();
)cc";
constexpr std::string_view kGetterBodyVecSavedvar = R"cc(PyObject* tup = PyTuple_New((Py_ssize_t) prop.size());
for (auto i: c10::irange(prop.size())) {
  PyTuple_SetItem(tup, (Py_ssize_t) i, THPVariable_Wrap(prop[i].unpack(self->cdata)));
}
return tup;
)cc";
constexpr std::string_view kGetterBodyRawVecSavedvar = R"cc(PyObject* tup = PyTuple_New((Py_ssize_t) prop.size());
for (auto i : c10::irange(prop.size())) {
  pybind11::object obj = pybind11::cast(prop[i], pybind11::return_value_policy::reference);
  PyTuple_SetItem(tup, (Py_ssize_t) i, obj.release().ptr());
}
return tup;
)cc";
constexpr std::string_view kGetterBodyArrayrefLong = R"cc(PyObject* tup = PyTuple_New((Py_ssize_t) prop.size());
for (auto i : c10::irange(prop.size())) {
  PyTuple_SetItem(tup, (Py_ssize_t) i, PyLong_FromUnsignedLong((uint64_t) prop[i]));
}
return tup;
)cc";
constexpr std::string_view kGetterBodyArrayrefSymint = R"cc(PyObject* tup = PyTuple_New((Py_ssize_t) prop.size());
for (auto i : c10::irange(prop.size())) {
    auto si = prop[i];
    if (auto m = si.maybe_as_int()) {
      PyTuple_SetItem(tup, (Py_ssize_t) i, PyLong_FromUnsignedLong(*m));
    } else {
      auto py_symint = py::cast(si).release().ptr();
      PyTuple_SetItem(tup, (Py_ssize_t) i, py_symint);
    }
}
return tup;
)cc";
constexpr std::string_view kGetterBodyArrayrefDouble = R"cc(PyObject* tup = PyTuple_New((Py_ssize_t) prop.size());
for (auto i : c10::irange(prop.size())) {
  PyTuple_SetItem(tup, (Py_ssize_t) i, PyFloat_FromDouble((double) prop[i]));
}
return tup;
)cc";
constexpr std::string_view kGetterBodyInt64T = R"cc(return PyLong_FromUnsignedLong((int64_t) prop);
)cc";
constexpr std::string_view kGetterBodySymint = R"cc(if (auto m = prop.maybe_as_int()) {
  return PyLong_FromUnsignedLong(*m);
} else {
  return py::cast(prop).release().ptr();
}
)cc";
constexpr std::string_view kGetterBodyDouble = R"cc(return PyFloat_FromDouble((double) prop);
)cc";
constexpr std::string_view kGetterBodyBool = R"cc(if (prop) {
  Py_RETURN_TRUE;
} else {
  Py_RETURN_FALSE;
}
)cc";
constexpr std::string_view kGetterBodyString = R"cc(return PyUnicode_FromStringAndSize(prop.data(), prop.size());
)cc";
constexpr std::string_view kGetterBodyScalar = R"cc(if (prop.isComplex()) {
  auto cprop = prop.to<c10::complex<double>>();
  return PyComplex_FromDoubles(cprop.real(), cprop.imag());
} else if (prop.isFloatingPoint()) {
  return PyFloat_FromDouble(prop.to<double>());
} else if (prop.isIntegral(/*includeBool=*/false)) {
  return PyLong_FromLong(prop.to<int64_t>());
} else if (prop.isBoolean()) {
  if (prop.to<bool>()) {
    Py_RETURN_TRUE;
  } else {
    Py_RETURN_FALSE;
  }
} else {
  PyErr_SetString(PyExc_RuntimeError, "Unknown scalar type");
  return nullptr;
}
)cc";
constexpr std::string_view kGetterBodyVecScalar = R"cc(PyObject* tup = PyTuple_New((Py_ssize_t) prop.size());
for (auto i: c10::irange(prop.size())) {
  if (prop[i].isComplex()) {
    auto cprop = prop[i].to<c10::complex<double>>();
    PyTuple_SetItem(tup, (Py_ssize_t) i, PyComplex_FromDoubles(cprop.real(), cprop.imag()));
  } else if (prop[i].isFloatingPoint()) {
    auto double_prop = prop[i].to<double>();
    PyTuple_SetItem(tup, (Py_ssize_t) i, PyFloat_FromDouble(double_prop));
  } else if (prop[i].isIntegral(/*includeBool=*/false)) {
    auto long_prop = prop[i].to<int64_t>();
    PyTuple_SetItem(tup, (Py_ssize_t) i, PyLong_FromLong(long_prop));
  } else if (prop[i].isBoolean()) {
    if (prop[i].to<bool>()) {
      PyTuple_SetItem(tup, (Py_ssize_t) i, Py_True);
    } else {
      PyTuple_SetItem(tup, (Py_ssize_t) i, Py_False);
    }
  } else {
    PyErr_SetString(PyExc_RuntimeError, "Unknown scalar type");
    return nullptr;
  }
}
return tup;
)cc";
const CodeTemplate kGetterDefinitionVecScalar(R"cc(static PyObject* THP${op}_${name}_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  const auto *node = static_cast<${op}*>(self->cdata.get());
  const auto& prop = node->${name};
  if (node->${name}_released_) {
    PyErr_SetString(PyExc_RuntimeError, ERR_BACKWARD_TWICE);
    return nullptr;
  }
  ${body}
  END_HANDLE_TH_ERRORS
}
                            )cc");

std::string fill(const CodeTemplate& t, const TemplateEnv& env) {
  support::Diagnostics unused;  // the fixed templates name only what every caller sets
  return t.substitute(env, unused).value_or("");
}

CType base(const BaseCppType& t) { return CType::base(t); }

// What torchgen's saved-value types check refuses: a type that looks like a non-owning reference.
std::optional<std::string> nonOwning(const SavedAttribute& var) {
  const std::string t = var.nctype.type.cppType();
  std::string lower = t;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.find("ref") != std::string::npos || lower.find("view") != std::string::npos || t.find('*') != std::string::npos ||
      t.find('&') != std::string::npos)
    return t + " looks like it contains a non-owning reference";
  return std::nullopt;
}

// What a node keeps, in the order it declares, releases, collects and passes them.
class NodeParts {
 public:
  explicit NodeParts(const DifferentiabilityInfo& info) : info_(info) {}
  // An error message for what torchgen refuses to keep.
  std::optional<std::string> saveVar(const SavedAttribute& var, bool isOutput);

  std::vector<std::string> savedVariables, releaseVariables, unpack, asserts, compiledArgs, applyWithSavedBefore,
      applyWithSavedAfter, applyFunctionalArgs, applyFunctionalArgsRefTypes, getterDefinitions, pyGetsetdefStructs;

 private:
  void getter(const CodeTemplate& t, const std::string& name, std::string_view body) {
    getterDefinitions.push_back(fill(t, TemplateEnv().set("op", *info_.op).set("name", name).set("body", std::string(body))));
  }

  const DifferentiabilityInfo& info_;
};

std::optional<std::string> NodeParts::saveVar(const SavedAttribute& var, bool isOutput) {
  const std::string name = var.nctype.name.str();
  const CType& type = var.nctype.type;
  std::string visitName = name;
  bool savedVariableClass = false, getsetdef = true, rawGetsetdef = false;
  std::optional<std::string> unpackedRefType;
  const CType tensor = base(api::tensorT);
  if (type == tensor || type == CType::optional(tensor) || type == CType::mutRef(CType::optional(tensor)) ||
      (type == base(api::scalarT) && isOutput)) {
    savedVariableClass = true;
    savedVariables.push_back("SavedVariable " + name + "_;");
    releaseVariables.push_back(name + "_.reset_data();");
    unpack.push_back("auto " + name + " = " + name + "_.unpack(" + (isOutput ? "getptr()" : "") + ");");
    getter(kGetterDefinitionSavedvar, name, kGetterBodySavedvar);
    getter(kGetterDefinitionRawSavedvar, name, kGetterBodyRawSavedvar);
    rawGetsetdef = true;
    visitName = name + "_";
    unpackedRefType = "Tensor&";
  } else if (type == base(api::tensorListT) || type == base(api::iTensorListRefT) || type == CType::vector(tensor)) {
    if (type == CType::vector(tensor) && !(info_.func->func.name.name.base.starts_with("_foreach") && isOutput))
      return "a saved std::vector<at::Tensor> ('" + name + "') must be the output of a _foreach function";
    savedVariableClass = true;
    savedVariables.push_back("std::vector<SavedVariable> " + name + "_;");
    savedVariables.push_back("bool " + name + "_released_ = false;");
    releaseVariables.push_back(name + "_.clear();");
    releaseVariables.push_back(name + "_released_ = true;");
    unpack.push_back("auto " + name + " = unpack_list(" + name + "_, " + (isOutput ? "getptr()" : "nullptr") + ");");
    asserts.push_back("TORCH_CHECK(!" + name + "_released_, ERR_BACKWARD_TWICE);");
    getter(kGetterDefinitionVecSavedvar, name, kGetterBodyVecSavedvar);
    getter(kGetterDefinitionRawVecSavedvar, name, kGetterBodyRawVecSavedvar);
    rawGetsetdef = true;
    visitName = name + "_";
    unpackedRefType = "std::vector<Tensor>&";
  } else if (type == CType::list(CType::optional(tensor))) {
    savedVariableClass = true;
    savedVariables.push_back("std::vector<SavedVariable> " + name + "_;");
    savedVariables.push_back("bool " + name + "_released_ = false;");
    releaseVariables.push_back(name + "_.clear();");
    releaseVariables.push_back(name + "_released_ = true;");
    unpack.push_back("auto " + name + " = unpack_opt_list(" + name + "_);");
    asserts.push_back("TORCH_CHECK(!" + name + "_released_, ERR_BACKWARD_TWICE);");
    getter(kGetterDefinitionVecSavedvar, name, kGetterBodyVecSavedvar);
    getter(kGetterDefinitionRawVecSavedvar, name, kGetterBodyRawVecSavedvar);
    rawGetsetdef = true;
    visitName = name + "_";
    unpackedRefType = "torch::List<std::optional<Tensor>>&";
  } else if (type == base(api::intArrayRefT)) {
    savedVariables.push_back("std::vector<int64_t> " + name + ";");
    getter(kGetterDefinition, name, kGetterBodyArrayrefLong);
  } else if (type == base(api::symIntArrayRefT)) {
    savedVariables.push_back("std::vector<c10::SymInt> " + name + ";");
    getter(kGetterDefinition, name, kGetterBodyArrayrefSymint);
  } else if (type == base(api::optionalIntArrayRefT) || type == CType::optional(base(api::intArrayRefT))) {
    savedVariables.push_back("c10::OptionalArray<int64_t> " + name + ";");
    getter(kGetterDefinitionOptArrayref, name, kGetterBodyArrayrefLong);
  } else if (type == base(api::optionalSymIntArrayRefT) || type == CType::optional(base(api::symIntArrayRefT))) {
    savedVariables.push_back("c10::OptionalArray<c10::SymInt> " + name + ";");
    getter(kGetterDefinitionOptArrayref, name, kGetterBodyArrayrefSymint);
  } else if (type == CType::optional(CType::arrayRef(base(api::doubleT)))) {
    savedVariables.push_back("c10::OptionalArray<double> " + name + ";");
    getter(kGetterDefinitionOptArrayref, name, kGetterBodyArrayrefDouble);
  } else if (type == base(api::longT)) {
    savedVariables.push_back(type.cppType() + " " + name + " = 0;");
    getter(kGetterDefinition, name, kGetterBodyInt64T);
  } else if (type == base(api::SymIntT)) {
    savedVariables.push_back("c10::SymInt " + name + ";");
    getter(kGetterDefinition, name, kGetterBodySymint);
  } else if (type == base(api::stringT)) {
    savedVariables.push_back("std::string " + name + ";");
    getter(kGetterDefinition, name, kGetterBodyString);
  } else if (type == CType::optional(base(api::stringT))) {
    savedVariables.push_back("std::optional<std::string> " + name + ";");
    getter(kGetterDefinitionOpt, name, kGetterBodyString);
  } else if (type == CType::arrayRef(base(api::scalarT))) {
    savedVariables.push_back("std::vector<at::Scalar> " + name + ";");
    unpackedRefType = "std::vector<at::Scalar>&";
    savedVariables.push_back("bool " + name + "_released_ = false;");
    releaseVariables.push_back(name + ".clear();");
    getter(kGetterDefinitionVecScalar, name, kGetterBodyVecScalar);
  } else {
    if (std::optional<std::string> problem = nonOwning(var)) return problem;
    savedVariables.push_back(type.cppType() + " " + name + ";");
    // The other types with a Python getter; the rest (TypeAndSize, at::ScalarType, TensorOptions, ...) have none.
    if (type == CType::optional(base(api::longT))) getter(kGetterDefinitionOpt, name, kGetterBodyInt64T);
    else if (type == CType::optional(base(api::SymIntT))) getter(kGetterDefinitionOpt, name, kGetterBodySymint);
    else if (type == base(api::doubleT)) getter(kGetterDefinition, name, kGetterBodyDouble);
    else if (type == CType::optional(base(api::doubleT))) getter(kGetterDefinitionOpt, name, kGetterBodyDouble);
    else if (type == base(api::boolT)) getter(kGetterDefinition, name, kGetterBodyBool);
    else if (type == base(api::scalarT)) getter(kGetterDefinition, name, kGetterBodyScalar);
    else if (type == CType::optional(base(api::scalarT))) getter(kGetterDefinitionOpt, name, kGetterBodyScalar);
    else getsetdef = false;
  }
  if (getsetdef) pyGetsetdefStructs.push_back(fill(kPyGetsetdefStruct, TemplateEnv().set("op", *info_.op).set("name", name)));
  if (rawGetsetdef) pyGetsetdefStructs.push_back(fill(kPyRawGetsetdefStruct, TemplateEnv().set("op", *info_.op).set("name", name)));
  compiledArgs.push_back("args.collect(" + visitName + (savedVariableClass ? (isOutput ? ", true" : ", false") : "") + ");");
  applyWithSavedBefore.push_back("saved.before(" + visitName + ");");
  applyWithSavedAfter.push_back("saved.after(" + visitName + ");");
  if (!unpackedRefType) {
    const std::string& last = savedVariables.back();
    unpackedRefType = last.substr(0, last.find(' ')) + "&";
  }
  applyFunctionalArgs.push_back(name);
  applyFunctionalArgsRefTypes.push_back(*unpackedRefType);
  return std::nullopt;
}

bool usesIdent(const DifferentiabilityInfo& info, std::string_view ident) {
  return std::any_of(info.derivatives.begin(), info.derivatives.end(),
                     [&](const Derivative& d) { return api::autograd::pyIdentSearch(d.formula, ident); });
}

std::vector<SavedAttribute> sortedByName(std::vector<SavedAttribute> vars) {
  std::stable_sort(vars.begin(), vars.end(), [](const SavedAttribute& a, const SavedAttribute& b) {
    return a.nctype.name.str() < b.nctype.name.str();
  });
  return vars;
}

std::string removeSuffix(std::string s, std::string_view suffix) {
  if (s.ends_with(suffix)) s.resize(s.size() - suffix.size());
  return s;
}

// The environment of one node, for Functions.h's declaration and Functions.cpp's definition.
std::optional<TemplateEnv> nodeEnv(const DifferentiabilityInfo& info, support::Diagnostics& diags) {
  NodeParts parts(info);
  std::vector<std::string> savedListSizes, computeIndexRanges;
  std::vector<std::string> inputNames;  // torchgen's input_name_to_idx, in order
  const auto indexOf = [&](const std::string& n) {
    return std::to_string(std::find(inputNames.begin(), inputNames.end(), n) - inputNames.begin());
  };
  for (const api::Binding& arg : info.argsWithDerivatives) {
    const std::string type = arg.type();
    std::string size = "1";
    if (type == "at::TensorList" || type == "const c10::List<::std::optional<at::Tensor>> &" ||
        type == "const at::ITensorListRef &") {
      size = arg.name + "_size_";
      savedListSizes.push_back("size_t " + arg.name + "_size_;");
      parts.applyFunctionalArgs.push_back(arg.name + "_size_");
      parts.applyFunctionalArgsRefTypes.push_back("size_t");
    }
    computeIndexRanges.push_back("auto " + arg.name + "_ix = gen.range(" + size + ");");
    if (std::find(inputNames.begin(), inputNames.end(), arg.name) == inputNames.end()) inputNames.push_back(arg.name);
  }
  for (int output = 0; output < 2; ++output)
    for (const SavedAttribute& var : sortedByName(output ? info.allSavedOutputs : info.allSavedInputs))
      if (std::optional<std::string> problem = parts.saveVar(var, output == 1)) {
        diags.error(info.loc, "in the derivatives of '" + info.name + "': " + *problem);
        return std::nullopt;
      }

  const std::string threadLock = parts.releaseVariables.empty() ? "" : "std::lock_guard<std::mutex> lock(mutex_);";
  std::string willRelease;
  if (usesIdent(info, "retain_variables")) {
    parts.applyFunctionalArgs.push_back("retain_variables");
    parts.applyFunctionalArgsRefTypes.push_back("bool");
    willRelease = support::fillSnippet(kWillReleaseVariables, {});
  }

  std::vector<std::string> body;
  if (usesIdent(info, "grad")) {
    body.push_back("const auto& grad = grads[0];");
  } else {
    for (const std::string& name : info.usedNamedGradients) {  // (a std::set: sorted)
      const auto at = std::find(info.availableNamedGradients.begin(), info.availableNamedGradients.end(), name);
      body.push_back("const auto& " + name + " = grads[" + std::to_string(at - info.availableNamedGradients.begin()) + "];");
    }
  }
  bool needAnyGradDefined = false;
  for (const Derivative& d : info.derivatives) {
    std::string formula = d.formula;
    if (d.varNames.size() == 1) {
      const std::string& var = d.varNames[0];
      if (formula.find("not_implemented") == std::string::npos) {
        std::vector<const api::Binding*> matching;
        for (const api::Binding& arg : info.argsWithDerivatives)
          if (arg.name == var) matching.push_back(&arg);
        if (matching.size() == 1 && matching[0]->schemaArgument() != nullptr) {
          const std::string t = matching[0]->schemaArgument()->type.str();
          if (t == "Tensor" || t == "Tensor?") {
            formula = "any_grad_defined ? (" + formula + ") : Tensor()";
            needAnyGradDefined = true;
          }
        }
      }
      const std::string_view t = info.name.starts_with("_foreach_") ? kDerivativeSingleForeach : kDerivativeSingle;
      body.push_back(support::fillSnippet(t, {{"name", var}, {"derivative", formula}, {"idx", indexOf(var)}}));
    } else {
      std::string gradInputMask;
      if (formula.find("grad_input_mask") != std::string::npos) {
        std::vector<std::string> masks;
        for (const std::string& n : d.varNames) masks.push_back("needs_input_grad[" + indexOf(n) + "],");
        gradInputMask = fill(kGradInputMask, TemplateEnv().set("n", std::to_string(d.varNames.size())).set("masks", masks));
      }
      std::vector<std::string> needs, copyRanges;
      for (std::size_t i = 0; i < d.varNames.size(); ++i) {
        const std::string& n = d.varNames[i];
        needs.push_back("needs_input_grad[" + indexOf(n) + "]");
        copyRanges.push_back(support::fillSnippet(kDerivativeMultiCopyRange, {{"name", n}, {"i", std::to_string(i)}, {"idx", indexOf(n)}}));
      }
      body.push_back(fill(kDerivativeMulti, TemplateEnv()
                                                .set("needs_input_grad", support::join(needs, " || "))
                                                .set("copy_ranges", copyRanges)
                                                .set("derivative", formula)
                                                .set("grad_input_mask", gradInputMask)));
    }
  }
  if (needAnyGradDefined)
    body.insert(body.end() - static_cast<std::ptrdiff_t>(info.derivatives.size()),
                "bool any_grad_defined = any_variable_defined(grads);");
  std::vector<std::string> masks;
  for (const std::string& n : inputNames) masks.push_back("task_should_compute_output({ " + n + "_ix }),");

  const std::string superclass = viewFunctionBase(info.name) != nullptr ? "Node" : "TraceableFunction";
  const std::string computeNeedsInputGrad =
      fill(kComputeNeedsInputGrad, TemplateEnv()
                                       .set("n", std::to_string(masks.size()))
                                       .set("compute_index_ranges", computeIndexRanges)
                                       .set("masks", masks));
  std::vector<std::string> signature, packs, unpackIvalues;
  std::vector<std::string> schemaArgs = {"std::array<bool, " + std::to_string(inputNames.size()) + ">"};
  for (std::size_t i = 0; i < parts.applyFunctionalArgs.size(); ++i) {
    const std::string& t = parts.applyFunctionalArgsRefTypes[i];
    const std::string& x = parts.applyFunctionalArgs[i];
    signature.push_back(t + " " + x);
    packs.push_back("packed_args.pack(" + x + ");");
    unpackIvalues.push_back("auto " + x + " = packed_args.unpack<" + removeSuffix(t, "&") + ">();");
    std::string s = removeSuffix(t, "&");
    if (s.starts_with("const")) s = s.substr(5);
    schemaArgs.push_back(std::string(support::trim(s)));
  }
  std::vector<std::string> computeSchema = {"std::vector<at::TypePtr> schema = {"};
  for (const std::string& s : schemaArgs)
    computeSchema.push_back("  torch::dynamo::autograd::IValuePacker<" + s + ">::packed_type(),");
  computeSchema.push_back("};");

  TemplateEnv env;
  env.set("unpacks", support::join(parts.unpack, "\n"))
      .set("op", *info.op)
      .set("compute_schema", support::join(computeSchema, "\n"))
      .set("apply_functional_args", parts.applyFunctionalArgs)
      .set("apply_functional_args_signature", signature)
      .set("compute_needs_input_grad", computeNeedsInputGrad)
      .set("num_inputs", std::to_string(inputNames.size()))
      .set("unpack_ivalues", support::join(unpackIvalues, "\n"))
      .set("compute_index_ranges", computeIndexRanges)
      .set("saved_variables", parts.savedVariables)
      .set("release_variables", parts.releaseVariables)
      .set("saved_list_sizes", savedListSizes)
      .set("asserts", parts.asserts)
      .set("thread_lock", threadLock)
      .set("will_release_variables", willRelease)
      .set("body", body)
      .set("superclass", superclass)
      .set("compiled_args", parts.compiledArgs)
      .set("apply_with_saved_before", parts.applyWithSavedBefore)
      .set("apply_with_saved_after", parts.applyWithSavedAfter)
      .set("get_packed_args", support::join(packs, "\n"))
      .set("all_getter_definitions", support::join(parts.getterDefinitions, "\n"))
      .set("all_getsetdef_structs",
           parts.pyGetsetdefStructs.empty() ? std::string() : support::join(parts.pyGetsetdefStructs, ",\n") + ",");
  return env;
}

}  // namespace

const std::string* viewFunctionBase(std::string_view baseName) {
  static const std::map<std::string, std::string, std::less<>> kViewFunctions = [] {
    std::map<std::string, std::string, std::less<>> m;
    for (const char* n :
         {"numpy_T", "alias", "as_strided", "diagonal", "expand", "permute", "select", "slice", "slice_inverse", "split",
          "split_with_sizes", "squeeze", "t", "transpose", "unfold", "unsqueeze", "flatten", "view", "unbind", "_indices",
          "_values", "indices", "values", "crow_indices", "col_indices", "ccol_indices", "row_indices", "_reshape_alias",
          "_test_autograd_multiple_dispatch_view", "view_as_complex", "view_as_real", "_conj", "_neg_view",
          "_nested_get_values", "_nested_view_from_buffer", "_nested_view_from_jagged"})
      m.emplace(n, "self");
    m.emplace("sparse_coo_tensor_with_dims_and_tensors", "values");
    return m;
  }();
  const auto it = kViewFunctions.find(baseName);
  return it == kViewFunctions.end() ? nullptr : &it->second;
}

bool emitFunctions(const api::autograd::LoadedDerivatives& derivatives, const std::string& commentDir, Writer& out,
                   support::Diagnostics& diags) {
  std::vector<std::string> declarations, definitions;
  for (const api::autograd::DerivativesEntry& e : derivatives.entries)
    for (const auto& [key, info] : e.byKey) {
      if (info.argsWithDerivatives.empty()) continue;
      const std::optional<TemplateEnv> env = nodeEnv(info, diags);
      if (!env) return false;  // like torchgen, the first problem stops the run
      declarations.push_back(fill(kFunctionDeclaration, *env));
      definitions.push_back(fill(kFunctionDefinition, *env));
    }
  for (const char* file : {"Functions.h", "Functions.cpp"})
    out.writeWithTemplate(file, file, [&, file] {
      TemplateEnv env;
      env.set("generated_comment", "@generated from " + commentDir + "/" + file)
          .set("autograd_function_declarations", declarations)
          .set("autograd_function_definitions", definitions);
      return env;
    });
  return true;
}

bool emitPythonFunctions(const api::autograd::LoadedDerivatives& derivatives, const std::string& commentDir, Writer& out,
                         support::Diagnostics& diags) {
  constexpr int kShards = 5;
  std::vector<const DifferentiabilityInfo*> infos;
  std::vector<ShardEnv> envs;
  for (const api::autograd::DerivativesEntry& e : derivatives.entries)
    for (const auto& [key, info] : e.byKey) {
      if (info.argsWithDerivatives.empty()) continue;
      const std::optional<TemplateEnv> env = nodeEnv(info, diags);
      if (!env) return false;
      infos.push_back(&info);
      envs.push_back({{"py_function_initializers", {fill(kPyFunctionDefinition, *env)}},
                      {"py_function_props_and_getters", {fill(kPyFunctionPropsAndGetters, *env)}}});
    }
  out.write("python_functions.h", [&] {
    std::vector<std::string> declare, call;
    for (int i = 0; i < kShards; ++i) {
      declare.push_back("void initialize_autogenerated_functions_" + std::to_string(i) + "(PyObject* module);");
      call.push_back("initialize_autogenerated_functions_" + std::to_string(i) + "(module);");
    }
    TemplateEnv env;
    env.set("generated_comment", "@generated from " + commentDir + "/python_functions.h")
        .set("shard_forward_declare", declare)
        .set("shard_call", call);
    return env;
  });
  Sharded spec{.filename = "python_functions.cpp",
               .templateName = "python_functions.cpp",
               .numShards = kShards,
               .baseEnv = {{"generated_comment", support::TemplateValue("@generated from " + commentDir + "/python_functions.cpp")}},
               .shardedKeys = {"py_function_initializers", "py_function_props_and_getters"}};
  out.writeSharded(
      spec, infos.size(), [&](std::size_t i) { return infos[i]->name; }, [&](std::size_t i) { return std::move(envs[i]); });
  return true;
}

}  // namespace opgen::dest::autograd
