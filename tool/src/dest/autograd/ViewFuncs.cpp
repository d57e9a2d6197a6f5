#include "dest/autograd/ViewFuncs.h"

#include <cctype>
#include <set>

#include "api/Cpp.h"
#include "api/Dispatcher.h"
#include "api/Translate.h"
#include "dest/autograd/Functions.h"
#include "dest/autograd/TraceType.h"
#include "support/CodeTemplate.h"
#include "support/Strings.h"

namespace opgen::dest::autograd {

namespace {

using api::Binding;
using model::NativeFunction;
using support::CodeTemplate;
using support::TemplateEnv;

// The fixed parts of the generated code (PyTorch's ViewFuncs.h/.cpp). Legend: op (the class),
// uppercase_op (its macro), the getters', setters' and constructor's parts, op_call (the view's call).
const CodeTemplate kViewFuncDeclaration(R"cc(#define ${uppercase_op}_AVAILABLE
struct ${op} : public ${superclass} {
  ${op}(${constructor_args}) ${initializer_list}
  {}
  virtual ~${op}() override = default;
  virtual std::vector<c10::SymInt> get_symints() const override;
  virtual size_t num_symints() const override;
  virtual std::vector<at::Tensor> get_tensors() const override;
  virtual size_t num_tensors() const override;
  virtual at::Tensor operator()(const at::Tensor&) const override;
  virtual std::unique_ptr<ViewFunc> clone_and_set(
      std::optional<std::vector<c10::SymInt>> = ::std::nullopt,
      std::optional<std::vector<at::Tensor>> = ::std::nullopt) const override;

protected:
  virtual void set_symints(std::vector<c10::SymInt>) override;
  virtual void set_tensors(std::vector<at::Tensor>) override;

private:
  ${state}
};

)cc");
const CodeTemplate kViewFuncDefinition(R"cc(std::vector<c10::SymInt> ${op}::get_symints() const {
  ${get_symints}
}

size_t ${op}::num_symints() const {
  return static_cast<size_t>(${num_symints});
}

void ${op}::set_symints(std::vector<c10::SymInt> ${symints_vec}) {
  TORCH_INTERNAL_ASSERT(${symints_vec}.size() == num_symints());
  ${set_symints}
}

std::vector<at::Tensor> ${op}::get_tensors() const {
  ${get_tensors}
}

size_t ${op}::num_tensors() const {
  return static_cast<size_t>(${num_tensors});
}

void ${op}::set_tensors(std::vector<at::Tensor> ${tensors_vec}) {
  TORCH_INTERNAL_ASSERT(${tensors_vec}.size() == num_tensors());
  ${set_tensors}
}

at::Tensor ${op}::operator()(const at::Tensor& ${call_input_name}) const {
  return ${op_call};
}

std::unique_ptr<ViewFunc> ${op}::clone_and_set(
    std::optional<std::vector<c10::SymInt>> ${symints_vec},
    std::optional<std::vector<at::Tensor>> ${tensors_vec}) const {
  auto output = std::make_unique<${op}>(${clone_args});
  if (${symints_vec}.has_value()) {
    output->set_symints(std::move(*(${symints_vec})));
  }
  if (${tensors_vec}.has_value()) {
    output->set_tensors(std::move(*(${tensors_vec})));
  }
  return output;
}

)cc");

std::string fill(const CodeTemplate& t, const TemplateEnv& env) {
  support::Diagnostics unused;  // the fixed templates name only what every caller sets
  return t.substitute(env, unused).value_or("");
}

std::string viewFuncName(const NativeFunction& f, bool camelCase) {
  std::string name = support::replaceAll(f.func.name.unambiguousName(), ".", "_") + "_view_func";
  if (!camelCase) return name;
  const bool isPrivate = name.starts_with("_");
  const std::string camel = support::titledParts(name);
  return isPrivate ? "_" + camel : camel;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

struct StateAccess {
  std::vector<std::string> getter, setter;
  std::string numItems;
};

// torchgen's generate_state_getter_setter over the bindings, into the vector named `vec` of `vecType`.
StateAccess stateGetterSetter(const std::vector<const Binding*>& bindings, const std::string& vec, const std::string& vecType) {
  StateAccess s;
  s.getter.push_back(vecType + " " + vec + ";");
  if (!bindings.empty()) s.setter.push_back("auto i = 0;");
  std::vector<std::string> nums;
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const Binding& b = *bindings[i];
    const model::Type& t = b.schemaArgument()->type;
    std::string num, getter, setter;
    if (t.listLike() != nullptr) {
      num = b.name + ".size()";
      getter = vec + ".insert(" + vec + ".end(), " + b.name + ".begin(), " + b.name + ".end());";
      setter = "std::copy(" + vec + ".begin() + i, " + vec + ".begin() + i + " + b.name + ".size(), " + b.name + ".begin());";
    } else if (t.isOptional()) {
      num = "(" + b.name + ".has_value() ? 1 : 0)";
      const std::string cond = "if(" + b.name + ".has_value())";
      getter = cond + " " + vec + ".insert(" + vec + ".end(), *(" + b.name + "));";
      setter = cond + " " + b.name + " = " + vec + "[i];";
    } else {
      num = "1";
      getter = vec + ".push_back(" + b.name + ");";
      setter = b.name + " = " + vec + "[i];";
    }
    nums.push_back(num);
    s.getter.push_back(getter);
    s.setter.push_back(setter);
    if (i + 1 < bindings.size()) s.setter.push_back("i += " + num + ";");
  }
  s.numItems = nums.empty() ? "0" : support::join(nums, " + ");
  if (!bindings.empty()) s.getter.insert(s.getter.begin() + 1, vec + ".reserve(" + s.numItems + ");");
  s.getter.push_back("return " + vec + ";");
  return s;
}

// The environment of one view's ViewFunc; nullopt after reporting.
std::optional<TemplateEnv> viewFuncEnv(const NativeFunction& fn, support::Diagnostics& diags) {
  const api::Options options{};  // (torchgen makes these bindings without a function's settings)
  std::vector<Binding> nonSelf;
  for (const model::Argument* a : fn.func.schemaOrderArguments()) {
    if (a->type.listLike() != nullptr && a->type.listLike()->elem().isBase(model::BaseTy::Tensor)) {
      model::reportError(diags, fn, "argument '" + a->name + "': torchgen cannot make the ViewFunc of a view with a "
                                    "tensor list argument (need to initialize local.use_ilistref_for_tensor_lists)");
      return std::nullopt;
    }
    Binding b = api::cpp::argument(*a, /*symint=*/true, {}, /*hasTensorOptions=*/false, options);
    if (b.name != "self") nonSelf.push_back(std::move(b));
  }
  const std::vector<const model::Argument*> all = fn.func.arguments.flatAll();
  std::vector<Binding> values;
  for (std::size_t i = 1; i < all.size(); ++i)
    values.push_back(api::dispatcher::argument(*all[i], options, /*removeNonOwningRefTypes=*/true));
  std::vector<std::string> constructorArgs, cloneArgs, state, initializers;
  for (const Binding& b : nonSelf) {
    constructorArgs.push_back(b.defn());
    cloneArgs.push_back(b.name);
  }
  for (const Binding& b : values) {
    Binding v = b;
    v.nctype = b.nctype.removeConstRef();
    state.push_back(v.defn() + ";");
  }
  auto exprs = api::translate(nonSelf, values, {.allowExpensiveConversions = true});
  if (!exprs) {
    model::reportError(diags, fn, exprs.error().message);
    return std::nullopt;
  }
  for (std::size_t i = 0; i < nonSelf.size(); ++i) initializers.push_back(nonSelf[i].nctype.name.str() + "(" + (*exprs)[i].expr + ")");
  std::vector<std::string> callArgs = {"input_base"};
  for (const Binding& b : nonSelf) callArgs.push_back(b.name);
  std::string opCall = "at::_ops::" + fn.func.name.unambiguousName() + "::call(" + support::join(callArgs, ", ") + ")";
  if (fn.func.returns.size() != 1) {
    model::reportError(diags, fn, "Expected 1 return, got " + std::to_string(fn.func.returns.size()));
    return std::nullopt;
  }
  const model::Type& ret = fn.func.returns[0].type;
  if (ret.listLike() != nullptr && ret.isTensorLike()) {
    constructorArgs.push_back("int64_t view_idx");
    cloneArgs.push_back("view_idx");
    state.push_back("int64_t view_idx;");
    initializers.push_back("view_idx(view_idx)");
    opCall += "[view_idx]";
  }
  std::vector<const Binding*> symints, tensors;
  for (const Binding& b : nonSelf) {
    if (b.schemaArgument() == nullptr) continue;
    if (b.schemaArgument()->type.isSymIntLike()) symints.push_back(&b);
    if (b.schemaArgument()->type.isTensorLike()) tensors.push_back(&b);
  }
  const StateAccess s = stateGetterSetter(symints, "symints", "::std::vector<c10::SymInt>");
  const StateAccess t = stateGetterSetter(tensors, "tensors", "::std::vector<at::Tensor>");
  TemplateEnv env;
  env.set("op", viewFuncName(fn, true))
      .set("uppercase_op", upper(viewFuncName(fn, false)))
      .set("superclass", "torch::autograd::ViewFunc")
      .set("initializer_list", initializers.empty() ? std::string() : ": " + support::join(initializers, ", "))
      .set("state", state)
      .set("constructor_args", constructorArgs)
      .set("clone_args", cloneArgs)
      .set("symints_vec", "symints")
      .set("get_symints", s.getter)
      .set("set_symints", s.setter)
      .set("num_symints", s.numItems)
      .set("tensors_vec", "tensors")
      .set("get_tensors", t.getter)
      .set("set_tensors", t.setter)
      .set("num_tensors", t.numItems)
      .set("call_input_name", "input_base")
      .set("op_call", opCall);
  return env;
}

}  // namespace

std::string viewFuncClassName(const NativeFunction& f) { return viewFuncName(f, true); }

bool useDerived(const api::autograd::FunctionWithInfo& fn) {
  if (isManualAutogradOrTracer(api::cpp::name(fn.func->func))) return false;
  if (fn.func->isAbstract) return true;
  for (const auto& [key, info] : fn.info)
    if (info->hasDerivatives()) return true;
  return false;
}

const std::string* viewInfo(const NativeFunction& f) {
  static const std::string kSelf = "self";
  static const std::set<std::string, std::less<>> kReturnsViewsOfInput = {
      "adjoint", "chunk",   "contiguous", "detach", "expand_as", "imag",     "mH",       "mT",          "matrix_H",
      "movedim", "narrow",  "real",       "reshape", "reshape_as", "swapaxes", "swapdims", "tensor_split", "view_as"};
  const std::string& base = f.func.name.name.base;
  if (const std::string* v = viewFunctionBase(base)) return v;
  return kReturnsViewsOfInput.count(base) ? &kSelf : nullptr;
}

bool emitViewFuncs(const std::vector<api::autograd::FunctionWithInfo>& functions, const std::string& commentDir,
                   Writer& out, support::Diagnostics& diags) {
  std::vector<std::string> declarations, definitions, headers;
  for (const api::autograd::FunctionWithInfo& fn : functions) {
    if (!useDerived(fn)) continue;
    const NativeFunction& f = *fn.func;
    const model::SchemaKind kind = f.func.kind();
    if (viewInfo(f) == nullptr || kind == model::SchemaKind::Inplace || kind == model::SchemaKind::Out) continue;
    const std::optional<TemplateEnv> env = viewFuncEnv(f, diags);
    if (!env) return false;
    declarations.push_back(fill(kViewFuncDeclaration, *env));
    definitions.push_back(fill(kViewFuncDefinition, *env));
    headers.push_back("#include <ATen/ops/" + f.rootName() + "_ops.h>");
  }
  for (const char* file : {"ViewFuncs.h", "ViewFuncs.cpp"})
    out.writeWithTemplate(file, file, [&, file] {
      TemplateEnv env;
      env.set("generated_comment", "@generated from " + commentDir + "/" + file)
          .set("view_func_declarations", declarations)
          .set("view_func_definitions", definitions)
          .set("ops_headers", headers);
      return env;
    });
  return true;
}

}  // namespace opgen::dest::autograd
