#include "dest/aten/DeclarationsYaml.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/Cpp.h"
#include "api/Signatures.h"
#include "support/PyYaml.h"

namespace opgen::dest {

namespace {

using support::pyyaml::Emitter;
using support::pyyaml::Scalar;

// torchgen's pythonify_default: some C++ defaults are written as YAML booleans and numbers.
Scalar pythonifyDefault(const std::string& s) {
  if (s == "true") return Scalar::boolean(true);
  if (s == "false") return Scalar::boolean(false);
  if (auto n = support::pyyaml::pythonInt(s)) return Scalar::integerText(std::move(*n));
  if (auto d = support::pyyaml::pythonFloat(s)) return Scalar::real(*d);
  return Scalar::str(s);
}

// torchgen's dynamic_type: the C++ argument type (never SymInt), except that Tensor and Tensor?
// are both at::Tensor.
std::string dynamicType(const model::Type& t, const api::Options& options) {
  if (t.isOptional()) return dynamicType(t.elem(), options);
  if (t.isBase(model::BaseTy::Tensor)) return "at::Tensor";
  return api::cpp::argumenttypeType(t, /*isMutable=*/false, "__placeholder__", options, false, /*symint=*/false)
      .cppType();
}

// What an argument's entry says about the argument's part in its function.
struct ArgumentRole {
  bool out = false;                           // an out argument
  bool kwargOnly = false;                     // keyword-only, not out
  std::optional<std::string_view> fieldName;  // out arguments of out functions: their return's name
  bool operator==(const ArgumentRole&) const = default;
};

// The arguments' roles in one function (torchgen matches them by name).
struct ArgumentRoles {
  std::vector<std::string_view> kwargOnly;
  std::vector<std::string_view> outs;
  std::vector<std::pair<std::string_view, std::string_view>> outFieldNames;  // out argument, return name

  ArgumentRole of(const model::Argument& a) const {
    ArgumentRole role;
    role.out = std::find(outs.begin(), outs.end(), a.name) != outs.end();
    role.kwargOnly = std::find(kwargOnly.begin(), kwargOnly.end(), a.name) != kwargOnly.end();
    // The last pair wins, as torchgen's dict does.
    if (role.out)
      for (const auto& [argument, field] : outFieldNames)
        if (argument == a.name) role.fieldName = field;
    return role;
  }
};

// torchgen's compute_argument_yaml. A plain dict, so PyYAML sorts the keys: the order below.
void argumentYaml(Emitter& y, const model::Argument& a, const api::Options& options, const ArgumentRole& role) {
  y.beginMapping();
  if (role.out) {
    y.word("allocate");
    y.boolean(true);
  }
  y.word("annotation");
  if (a.annotation) y.str(a.annotation->str());
  else y.none();
  if (a.defaultValue) {
    y.word("default");
    y.scalar(pythonifyDefault(api::cpp::defaultExpr(*a.defaultValue, a.type, /*symint=*/false)));
  }
  y.word("dynamic_type");
  y.str(dynamicType(a.type, options));
  if (role.fieldName) {
    y.word("field_name");
    y.str(*role.fieldName);
  }
  y.word("is_nullable");
  y.boolean(a.type.isNullable());
  if (role.kwargOnly) {
    y.word("kwarg_only");
    y.boolean(true);
  }
  y.word("name");
  y.str(a.name);
  if (role.out) {
    y.word("output");
    y.boolean(true);
  }
  // Historically, bool[N] does not record its size (it is in the C++ type).
  if (const model::Type* list = a.type.listLike(); list && list->size() && !list->elem().isBase(model::BaseTy::Bool)) {
    y.word("size");
    y.scalar(Scalar::integer(*list->size()));
  }
  y.word("type");
  y.str(api::cpp::argumentType(a, "__placeholder__", options, /*symint=*/false).cppType());
  y.endMapping();
}

// Argument entries recur, verbatim: each function lists most arguments twice (`arguments` and
// `schema_order_arguments`), and self, other, out, dim... come back in many functions. An entry
// depends only on what argumentYaml reads (the argument, the options and its role), so each
// distinct one is emitted once and later copied from the output (Emitter::repeatItem).
class ArgumentEntries {
 public:
  void write(Emitter& y, const model::Argument& a, const api::Options& options, const ArgumentRole& role) {
    auto [it, inserted] = written_.try_emplace(Key{&a, options, role});
    if (!inserted && y.repeatItem(it->second)) return;
    const Emitter::ItemStart start = y.itemStart();
    argumentYaml(y, a, options, role);
    it->second = y.item(start);
  }

 private:
  struct Key {
    const model::Argument* argument;
    api::Options options;
    ArgumentRole role;
    bool operator==(const Key& o) const { return *argument == *o.argument && options == o.options && role == o.role; }
  };
  struct Hash {  // the name and the default tell most entries apart; operator== decides
    size_t operator()(const Key& k) const {
      const std::hash<std::string_view> h;
      size_t v = h(k.argument->name);
      if (k.argument->defaultValue) v = v * 31 + h(*k.argument->defaultValue);
      return v * 8 + (k.role.out ? 4 : 0) + (k.role.kwargOnly ? 2 : 0) + (k.options.constRefForMutableTensors ? 1 : 0);
    }
  };
  std::unordered_map<Key, Emitter::Item, Hash> written_;
};

// torchgen's compute_cpp_argument_yaml for the TensorOptions binding (sorted keys too).
void tensorOptionsYaml(Emitter& y, const api::Binding& b) {
  y.beginMapping();
  y.word("annotation");
  y.none();
  if (b.defaultValue) {
    y.word("default");
    y.str(*b.defaultValue);
  }
  y.word("dynamic_type");
  y.str("at::TensorOptions");
  y.word("is_nullable");
  y.boolean(false);
  y.word("kwarg_only");
  y.boolean(true);
  y.word("name");
  y.str(b.name);
  y.word("type");
  y.str(b.type());
  y.endMapping();
}

template <class T, class Fn>
void sequence(Emitter& y, const std::vector<T>& items, Fn each) {
  if (items.empty()) {
    y.emptySequence();
    return;
  }
  y.beginSequence();
  for (const T& item : items) each(item);
  y.endSequence();
}

// torchgen's compute_returns_yaml.
void returnsYaml(Emitter& y, const model::NativeFunction& f, const api::Options& options) {
  const std::vector<std::string> names = api::cpp::returnNames(f);
  const auto& returns = f.func.returns;
  if (returns.empty()) {
    y.emptySequence();
    return;
  }
  y.beginSequence();
  for (size_t i = 0; i < returns.size(); ++i) {
    const model::Return& r = returns[i];
    y.beginMapping();
    y.word("dynamic_type");
    y.str(dynamicType(r.type, options));
    if (r.name) {
      y.word("field_name");
      y.str(*r.name);
    }
    y.word("name");
    y.str(names[i]);
    y.word("type");
    y.str(api::cpp::returnType(r, options).cppType());
    y.endMapping();
  }
  y.endSequence();
}

void key(Emitter& y, support::pyyaml::Word k, std::string_view v) {
  y.word(k);
  y.str(v);
}

void flag(Emitter& y, support::pyyaml::Word k, bool v) {
  y.word(k);
  y.boolean(v);
}

// torchgen's compute_declaration_yaml: an OrderedDict, so the keys keep this order.
void declarationYaml(Emitter& y, const model::NativeFunction& f, ArgumentEntries& entries) {
  const api::Options options = api::Options::of(f);
  const model::FunctionSchema& func = f.func;
  ArgumentRoles roles;
  for (const model::Argument* a : func.arguments.flatKwargOnly()) roles.kwargOnly.push_back(a->name);
  for (const model::Argument& a : func.arguments.out) roles.outs.push_back(a.name);
  if (func.isOutFn()) {
    for (size_t i = 0; i < func.returns.size() && i < func.arguments.out.size(); ++i)
      if (func.returns[i].name) roles.outFieldNames.emplace_back(func.arguments.out[i].name, *func.returns[i].name);
  }
  auto argument = [&](const model::Argument& a) { entries.write(y, a, options, roles.of(a)); };

  // The public C++ API: TensorOptions folded, out arguments first.
  const api::CppSignature sig(func, api::cpp::Flavor{}, f.cppNoDefaultArgs, /*fallbackBinding=*/false, options);
  const std::vector<const model::Argument*> schemaOrder = func.schemaOrderArguments();

  std::string schemaOrderSignature = api::cpp::returnsType(func.returns, options).cppType() + " (";
  for (size_t i = 0; i < schemaOrder.size(); ++i) {
    if (i) schemaOrderSignature += ", ";
    schemaOrderSignature += api::cpp::argumentType(*schemaOrder[i], schemaOrder[i]->name, options, false).cppType();
  }
  schemaOrderSignature += ")";

  const bool hasTensorOptions = std::any_of(sig.arguments().begin(), sig.arguments().end(),
                                            [](const api::Binding& b) { return b.tensorOptions() != nullptr; });

  y.beginMapping();
  key(y, "name", api::cpp::name(func));
  key(y, "operator_name", func.name.name.str());
  key(y, "overload_name", func.name.overloadName);
  flag(y, "manual_kernel_registration", f.manualKernelRegistration);
  key(y, "category_override", f.categoryOverride.value_or(""));
  key(y, "schema_string", "aten::" + f.schemaString);
  y.word("arguments");
  sequence(y, sig.arguments(), [&](const api::Binding& b) {
    if (b.tensorOptions()) tensorOptionsYaml(y, b);
    else argument(*b.schemaArgument());
  });
  key(y, "schema_order_cpp_signature", schemaOrderSignature);
  y.word("schema_order_arguments");
  sequence(y, schemaOrder, [&](const model::Argument* a) { argument(*a); });
  y.word("method_of");
  y.beginSequence();
  y.word("Type");
  if (f.hasVariant(model::Variant::Method)) y.word("Tensor");
  if (f.hasVariant(model::Variant::Function)) y.word("namespace");
  y.endSequence();
  y.word("mode");
  y.word("native");
  key(y, "python_module", f.pythonModule.value_or(""));
  y.word("returns");
  returnsYaml(y, f, options);
  flag(y, "inplace", func.name.name.inplace);
  flag(y, "is_factory_method", hasTensorOptions && !f.hasVariant(model::Variant::Method));
  flag(y, "abstract", f.isAbstract);
  flag(y, "device_guard", f.deviceGuard);
  flag(y, "with_gil", false);
  flag(y, "deprecated", false);
  flag(y, "has_math_kernel", f.hasCompositeImplicitAutogradKernel);
  y.endMapping();
}

}  // namespace

std::string declarationsYaml(const std::vector<const model::NativeFunction*>& functions, std::string storage) {
  // About 1.7 kB per function in ATen: reserved at once, the text grows without copies.
  Emitter y(functions.size() * 1800, std::move(storage));
  ArgumentEntries entries;
  sequence(y, functions, [&](const model::NativeFunction* f) { declarationYaml(y, *f, entries); });
  return y.finish();
}

void emitDeclarationsYaml(const EmitContext& ctx, const Writers& out) {
  // torchgen fails (and writes nothing) on a function without a C++ API.
  bool ok = true;
  for (const model::NativeFunction* f : ctx.ops.functions()) {
    if (std::optional<std::string> problem = api::cpp::checkSupported(f->func)) {
      model::reportError(ctx.diags, *f, *problem);
      ok = false;
    }
  }
  if (!ok) return;
  out.cpu.writeTextIn("Declarations.yaml",
                      [&ctx](std::string storage) { return declarationsYaml(ctx.ops.functions(), std::move(storage)); });
}

}  // namespace opgen::dest
