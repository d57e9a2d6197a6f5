// Conformance of opgen's api layer (tool/src/api) with torchgen's (torchgen.api, the reference 2.14.1).
//
// tool/test/reference/dump_api.py prints, for every native function, NativeFunctionsGroup and
// NativeFunctionsViewGroup of an input, the strings torchgen's api produces (C++ API / dispatcher /
// native signatures, bindings, defaults, return names, structured meta/impl arguments, translate()
// results as gen.py, register_dispatch_key.py, gen_functionalization_type.py and ufunc.py use them, the
// functionalization bindings, ...) as records of named fields. This test loads the same input with
// opgen's model, computes every field with opgen's api (mirroring the script, field for field), and
// compares: the records in order, then every field of every record.
//
// Inputs: torchgen's packaged ATen native_functions.yaml, and every tool/test/data/conformance/*.yaml
// (with tags_<stem>.yaml when there is one, else tags.yaml). The reference runs once per input.
// Without the reference (shared/reference/torchgen-ref, or $OPGEN_TORCHGEN_REF) the tests are skipped.
//
// Run:  build/tool/test/opgen_tests --gtest_filter='Api*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "api/Cpp.h"
#include "api/Dispatcher.h"
#include "api/Functionalization.h"
#include "api/Native.h"
#include "api/Signatures.h"
#include "api/Structured.h"
#include "api/Translate.h"
#include "api/Types.h"
#include "api/Ufunc.h"
#include "model/Loader.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace opgen;
using namespace opgen::api;
using opgen::test::reference;

constexpr std::size_t kMaxShown = 20;

// ---------------------------------------------------------------------------------------------------
// Inputs

struct Input {
  std::string name;
  bool aten = false;
  fs::path yaml, tags;         // fixtures
  const char* text = nullptr;  // an input written at test time (with ATen's tags)
};

// Corners of the C++ translation that the fixtures do not reach: string defaults with quotes and
// escapes, sized lists with scalar defaults, every value type, tuple returns of every kind, return
// names that collide with arguments, mutable optional tensors and tensor lists,
// use_const_ref_for_mutable_tensors, tensor options with non-None defaults, cpp_no_default_args,
// manual_cpp_binding, and schemas torchgen's api refuses (custom classes, bool[] without a size, a
// scalar default for an unsized list, fixed-size list returns, optional non-tensor returns).
constexpr const char* kCorners = R"yaml(
- func: ac_strings(Tensor self, str mode='a\'b"c', str? name=None, str plain="x", str esc='x\\ny') -> Tensor
  variants: function, method

- func: ac_lists(Tensor self, int[2] pair=1, SymInt[1] s=1, SymInt[] size=[], int[]? dims=None, float[]? scales=None, bool[3] mask=[True,False,True], Scalar[] scalars=[], Tensor?[] indices=[], Tensor[] tensors=[], SymInt[]? ssize=None, int[1] one=[0], float[] fl=[1.5]) -> Tensor
  variants: function, method

- func: ac_misc(Tensor self, *, ScalarType dtype=long, Storage? storage=None, Stream? stream=None, DeviceIndex? index=None, SymBool? flag=None, int reduction=Mean, MemoryFormat memory_format=contiguous_format, float eps=1e-5, Scalar? s=None, SymInt n=3, SymInt? m=None, int? k=None, Device dev, QScheme q, Layout lay, Tensor? t=None) -> Tensor

- func: ac_random(Tensor self, *, Generator? generator=None) -> Tensor
  tags: nondeterministic_seeded

- func: ac_returns(Tensor self) -> (Tensor a, Tensor[] b, SymInt c, Scalar d, float[] e, int[] f, ScalarType g, bool h, Tensor? i, SymInt[] j)

- func: ac_named_conflict(Tensor self, Tensor other) -> (Tensor self, Tensor values)

- func: ac_mutable_opt(Tensor self, Tensor(a!)? buf, Tensor(b!)[] bufs) -> ()

- func: ac_constref_(Tensor(a!) self, Tensor(b!)? other, Tensor(c!)[] more) -> Tensor(a!)
  use_const_ref_for_mutable_tensors: True
  variants: function, method

- func: ac_factory(SymInt[] size, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: ac_factory

- func: ac_factory2(int n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: ac_factory2

- func: ac_factory2.out(int n, *, Tensor(a!) out) -> Tensor(a!)

- func: ac_nodefault(Tensor self, int dim=0, bool keepdim=False) -> Tensor
  cpp_no_default_args: ['dim']
  variants: function, method

- func: ac_manual(Tensor self, SymInt n=1) -> Tensor
  manual_cpp_binding: True
  variants: function, method

- func: ac_multi.out(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)

- func: ac_multi(Tensor self) -> (Tensor values, Tensor indices)

- func: ac_symint_kernel(Tensor self, SymInt[] size) -> Tensor
  dispatch:
    CPU: ac_symint_kernel_symint

- func: ac_custom(Tensor self, __torch__.torch.classes.foo.Bar obj) -> Tensor

- func: ac_boollist(Tensor self, bool[] flags) -> Tensor

- func: ac_baddefault(Tensor self, int[] dims=1) -> Tensor

- func: ac_fixed_ret(Tensor self) -> int[2]

- func: ac_opt_scalar_ret(Tensor self) -> Scalar?
)yaml";

void PrintTo(const Input& input, std::ostream* os) { *os << input.name; }

std::vector<Input> allInputs() {
  std::vector<Input> inputs{Input{"aten", true, {}, {}, nullptr}, Input{"api_corners", false, {}, {}, kCorners}};
  fs::path dir = fs::path(OPGEN_TEST_DATA) / "conformance";
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml" && entry.path().stem().string().rfind("tags", 0) != 0)
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    fs::path tags = dir / ("tags_" + p.stem().string() + ".yaml");
    if (!fs::exists(tags)) tags = dir / "tags.yaml";
    std::string name = p.stem().string();
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    inputs.push_back(Input{name, false, p, tags, nullptr});
  }
  return inputs;
}

fs::path dumpApiScript() { return fs::path(OPGEN_TEST_SCRIPTS) / "dump_api.py"; }

std::pair<fs::path, fs::path> filesOf(const Input& input) {
  if (input.aten) return {reference().atenNativeFunctions(), reference().atenTags()};
  if (input.text) {
    static const test::TempDir dir("opgen-api-conformance");  // lives until the end of the process
    fs::path yaml = dir / (input.name + ".yaml");
    if (!fs::exists(yaml)) test::writeFile(yaml, input.text);
    return {yaml, reference().atenTags()};
  }
  return {input.yaml, input.tags};
}

// The reference's records, once per input and process.
struct Reference {
  json value;
  std::string error;
};

const Reference& referenceRecords(const Input& input) {
  static std::map<std::string, Reference> cache;
  if (auto it = cache.find(input.name); it != cache.end()) return it->second;
  Reference r;
  auto [yaml, tags] = filesOf(input);
  test::ProcessResult p = reference().python({dumpApiScript().string(), yaml.string(), tags.string()});
  if (!p.ok()) {
    r.error = p.describe();
  } else {
    try {
      r.value = json::parse(p.out);
    } catch (const json::parse_error& e) {
      r.error = "`" + p.command + "` did not print valid JSON: " + e.what();
    }
  }
  return cache.emplace(input.name, std::move(r)).first->second;
}

// ---------------------------------------------------------------------------------------------------
// opgen's records: the same fields as dump_api.py, computed with opgen's api

using Fields = std::map<std::string, json>;

std::string bindingStr(const Binding& b) {
  const model::Argument* a = b.schemaArgument();
  std::string kind = a ? "arg:" + a->name : "options";
  return b.decl() + " | " + b.decl(true) + " | " + b.nctype.name.str() + " | " + kind;
}

json bindings(const std::vector<Binding>& bs) {
  json r = json::array();
  for (const auto& b : bs) r.push_back(bindingStr(b));
  return r;
}

json exprsOf(const std::vector<Expr>& ctx, const std::vector<NamedCType>& goals, TranslateOptions o = {}) {
  auto r = translate(ctx, goals, o);
  if (!r) return "<unsat>";
  json out = json::array();
  for (const auto& e : *r) out.push_back(e.expr);
  return out;
}
json exprsOf(const std::vector<Binding>& ctx, const std::vector<Binding>& goals, TranslateOptions o = {}) {
  return exprsOf(toExprs(ctx), toGoals(goals), o);
}
json exprsOf(const std::vector<Expr>& ctx, const std::vector<Binding>& goals, TranslateOptions o = {}) {
  return exprsOf(ctx, toGoals(goals), o);
}

json strings(const std::vector<std::string>& v) { return json(v); }

// gen_functionalization_type's unwrap_tensor_args / convert_to_meta_tensors contexts.
std::vector<Binding> unwrapped(const std::vector<Binding>& args, const std::string& suffix) {
  std::vector<Binding> r;
  for (const auto& b : args) {
    const model::Argument* a = b.schemaArgument();
    r.push_back(a && a->type.isTensorLike() ? b.withName(b.name + suffix) : b);
  }
  return r;
}

void cppSigFields(Fields& out, const std::string& p, const model::NativeFunction& f, const CppSignature& sig,
                  const Options& opts) {
  out[p + "name"] = sig.name();
  out[p + "name_suppress"] = sig.name(true);
  out[p + "decl"] = sig.decl();
  out[p + "decl_redispatch"] = sig.decl({.isRedispatchingFn = true});
  out[p + "decl_suppress"] = sig.decl({.suppressSymintSuffix = true});
  out[p + "decl_named"] = sig.decl({.name = "wrapper_fn"});
  out[p + "defn"] = sig.defn();
  out[p + "defn_prefix"] = sig.defn({.prefix = "Tensor::"});
  out[p + "defn_redispatch"] = sig.defn({.isRedispatchingFn = true});
  out[p + "ptr_type"] = sig.ptrType();
  out[p + "type"] = sig.type();
  out[p + "args"] = bindings(sig.arguments());
  out[p + "to_dispatcher"] =
      exprsOf(sig.arguments(), DispatcherSignature::fromSchema(f.func, opts).arguments(), {.method = sig.method()});
}

void cppGroupFields(Fields& out, const std::string& p, const model::NativeFunction& f, bool method, bool fallback,
                    const Options& opts) {
  auto group = CppSignatureGroup::fromNativeFunction(f, {.method = method, .fallbackBinding = fallback}, opts);
  cppSigFields(out, p + "signature/", f, group.signature(), opts);
  if (group.faithfulSignature()) cppSigFields(out, p + "faithful_signature/", f, *group.faithfulSignature(), opts);
  if (group.symintSignature()) cppSigFields(out, p + "symint_signature/", f, *group.symintSignature(), opts);
  if (group.symintFaithfulSignature())
    cppSigFields(out, p + "symint_faithful_signature/", f, *group.symintFaithfulSignature(), opts);
  out[p + "most_faithful"] = group.mostFaithfulSignature().name();
}

void cppModuleFields(Fields& out, const model::NativeFunction& f, const Options& opts) {
  const auto& func = f.func;
  const auto sargs = func.schemaOrderArguments();
  out["cpp/return_names"] = strings(cpp::returnNames(f));
  out["cpp/return_names_fallback"] = strings(cpp::returnNames(f, "out"));
  out["cpp/returns_type"] = cpp::returnsType(func.returns, opts).cppType();
  json rt = json::array();
  for (const auto& r : func.returns) rt.push_back(cpp::returnType(r, opts).cppType());
  out["cpp/return_types"] = rt;
  json types = json::array(), typesSym = json::array(), immutable = json::array(), owning = json::array(),
       noRef = json::array(), stripRef = json::array(), defaults = json::array(), defaultsSym = json::array(),
       schemaOrder = json::array();
  for (const model::Argument* a : sargs) {
    types.push_back(cpp::argumentType(*a, "__placeholder__", opts, false).cppType());
    typesSym.push_back(cpp::argumentType(*a, "__placeholder__", opts, true).cppType());
    immutable.push_back(cpp::argumenttypeType(a->type, false, "x", opts, false, false).cppType());
    owning.push_back(cpp::argumenttypeType(a->type, a->isWrite(), "x", opts, true, true).cppType());
    NamedCType t = cpp::argumentType(*a, "x", opts, true);
    noRef.push_back(t.removeConstRef().cppType());
    stripRef.push_back(t.cppType(true));
    defaults.push_back(a->defaultValue ? cpp::defaultExpr(*a->defaultValue, a->type, false) : "");
    defaultsSym.push_back(a->defaultValue ? cpp::defaultExpr(*a->defaultValue, a->type, true) : "");
    schemaOrder.push_back(cpp::argument(*a, false, {}, false, opts).type());
  }
  out["cpp/argument_types"] = types;
  out["cpp/argument_types_symint"] = typesSym;
  out["cpp/argument_types_immutable"] = immutable;
  out["cpp/argument_types_owning"] = owning;
  out["cpp/argument_types_no_ref"] = noRef;
  out["cpp/argument_types_strip_ref"] = stripRef;
  out["cpp/default_exprs"] = defaults;
  out["cpp/default_exprs_symint"] = defaultsSym;
  out["cpp/schema_order_types"] = schemaOrder;
}

void dispatcherAndNativeFields(Fields& out, const model::NativeFunction& f, const Options& opts) {
  const auto& func = f.func;
  const bool hasSymint = func.hasSymInt();
  auto d = DispatcherSignature::fromSchema(func, opts);
  out["dispatcher/name"] = d.name();
  out["dispatcher/decl"] = d.decl();
  out["dispatcher/decl_named"] = d.decl({.name = "wrapper_fn"});
  out["dispatcher/defn"] = d.defn();
  out["dispatcher/defn_redispatch"] = d.defn({.isRedispatchingFn = true});
  out["dispatcher/type"] = d.type();
  out["dispatcher/ptr_type"] = d.ptrType();
  out["dispatcher/args"] = bindings(d.arguments());
  json exprs = json::array();
  for (const auto& e : d.exprs()) exprs.push_back(e.expr + ": " + e.type.cppType());
  out["dispatcher/exprs"] = exprs;
  out["dispatcher/returns_no_ref"] = dispatcher::returnsType(func.returns, opts).removeConstRef().cppType();
  json owning = json::array();
  for (const model::Argument* a : dispatcher::jitArguments(func))
    owning.push_back(dispatcher::argument(*a, opts, true).type());
  out["dispatcher/owning_args"] = owning;
  std::vector<Binding> noDefaults;
  for (const auto& b : dispatcher::arguments(func, opts)) noDefaults.push_back(b.noDefault());
  out["dispatcher/registration_decl"] = dispatcher::returnsType(func.returns, opts).cppType() + " " +
                                        dispatcher::name(func) + "(" + joinDecls(noDefaults) + ")";
  const std::string prefix = "wrapper_CPU_" + func.name.overloadName + "_";
  out["dispatcher/prefixed_name"] = DispatcherSignature::fromSchema(func, opts, prefix).name();
  auto dInt = DispatcherSignature::fromSchema(func, opts, prefix, false);
  if (hasSymint) {
    out["dispatcher_int/decl"] = dInt.decl();
    out["dispatcher_int/args"] = bindings(dInt.arguments());
  }

  auto direct = CppSignatureGroup::fromNativeFunction(f, {}, opts);
  for (bool symint : hasSymint ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
    const std::string p = symint ? "native_symint/" : "native/";
    NativeSignature n(func, symint, opts);
    out[p + "name"] = n.name();
    out[p + "decl"] = n.decl();
    out[p + "decl_named"] = n.decl({.name = "kernel"});
    out[p + "defn"] = n.defn();
    out[p + "ptr_type"] = n.ptrType();
    out[p + "args"] = bindings(n.arguments());
    auto de = n.dispatcherExprs();
    if (de) {
      json a = json::array();
      for (const auto& e : *de) a.push_back(e.expr);
      out[p + "dispatcher_exprs"] = a;
    } else {
      out[p + "dispatcher_exprs"] = "<unsat>";
    }
    out[p + "prefixed_name"] = NativeSignature(func, symint, opts, "wrapper_CPU_").name();
    out[p + "from_dispatcher"] = exprsOf(d.arguments(), n.arguments());
    out[p + "from_dispatcher_int"] = exprsOf(dInt.arguments(), n.arguments());
    json fromCpp = json::array();
    for (const CppSignature* s : direct.signatures()) fromCpp.push_back(exprsOf(s->arguments(), n.arguments()));
    out[p + "from_cpp"] = fromCpp;
  }
  json toInt = json::array();
  for (const CppSignature* s : direct.signatures()) toInt.push_back(exprsOf(s->arguments(), dInt.arguments()));
  out["rdk/cpp_to_dispatcher_int"] = toInt;

  // gen.translate_args (static dispatch)
  const CppSignature& goal = direct.signature();
  std::vector<Binding> src = d.arguments();
  bool special = std::any_of(goal.arguments().begin(), goal.arguments().end(),
                             [](const Binding& b) { return b.nctype.name.isSpecial(); });
  if (special)
    for (auto& b : src)
      if (b.name == "memory_format") b.nctype.name = ArgName::possiblyRedundantMemoryFormat();
  out["static_dispatch_args"] = exprsOf(src, goal.arguments());
  out["functionalization/unwrapped_to_self"] = exprsOf(unwrapped(d.arguments(), "_"), d.arguments());

  // translations across conventions, some of which are impossible (both sides must agree)
  std::vector<Binding> owningArgs;
  for (const model::Argument* a : dispatcher::jitArguments(func))
    owningArgs.push_back(dispatcher::argument(*a, opts, true));
  out["cross/native_to_cpp"] = exprsOf(NativeSignature(func, false, opts).arguments(), direct.signature().arguments());
  out["cross/owning_to_dispatcher"] = exprsOf(owningArgs, d.arguments());
  out["cross/dispatcher_to_owning"] = exprsOf(d.arguments(), owningArgs);
  out["cross/dispatcher_to_owning_expensive"] = exprsOf(d.arguments(), owningArgs, {.allowExpensiveConversions = true});
  std::vector<Binding> structuredArgs;
  for (const auto& item : nonOutItems(func.arguments))
    for (auto& b : structured::argument(item)) structuredArgs.push_back(std::move(b));
  out["cross/cpp_to_structured"] = exprsOf(direct.signature().arguments(), structuredArgs);
}

void altFields(Fields& out, const model::NativeFunction& f) {
  const auto& func = f.func;
  bool writes = false, lists = false;
  for (const model::Argument* a : func.arguments.flatAll()) {
    writes = writes || a->isWrite();
    lists = lists || (a->type.isTensorLike() && a->type.listLike());
  }
  for (const auto& r : func.returns) writes = writes || r.isWrite();
  std::vector<std::pair<std::string, Options>> variants;
  const Options base = Options::of(f);
  if (writes)
    variants.emplace_back("alt_constref/", Options{!base.constRefForMutableTensors, base.ilistRefForTensorLists});
  if (lists) variants.emplace_back("alt_ilist/", Options{base.constRefForMutableTensors, !base.ilistRefForTensorLists});
  for (const auto& [p, opts] : variants) {
    auto group = CppSignatureGroup::fromNativeFunction(f, {}, opts);
    auto d = DispatcherSignature::fromSchema(func, opts);
    json decls = json::array(), toD = json::array();
    for (const CppSignature* s : group.signatures()) {
      decls.push_back(s->decl());
      toD.push_back(exprsOf(s->arguments(), d.arguments()));
    }
    out[p + "cpp"] = decls;
    out[p + "dispatcher"] = d.decl();
    out[p + "native"] = NativeSignature(func, false, opts).decl();
    out[p + "cpp_to_dispatcher"] = toD;
  }
}

Fields functionFields(const model::NativeFunction& f) {
  if (cpp::checkSupported(f.func)) return Fields{{"unsupported", "true"}};
  Fields out;
  const Options opts = Options::of(f);
  cppGroupFields(out, "cpp/", f, false, f.manualCppBinding, opts);
  if (f.hasVariant(model::Variant::Method)) cppGroupFields(out, "cpp_method/", f, true, f.manualCppBinding, opts);
  if (f.manualCppBinding) {
    json names = json::array();
    auto g = CppSignatureGroup::fromNativeFunction(f, {}, opts);
    for (const CppSignature* s : g.signatures()) names.push_back(s->name());
    out["cpp_nofallback/names"] = names;
  }
  cppModuleFields(out, f, opts);
  dispatcherAndNativeFields(out, f, opts);
  altFields(out, f);
  return out;
}

// ----- groups

void structuredFields(Fields& out, const model::NativeFunctionsGroup& g) {
  out["structured/meta_args"] = bindings(structured::metaArguments(g));
  out["structured/impl_args"] = bindings(structured::implArguments(g));
  out["structured/out_args"] = bindings(structured::outArguments(g));
  out["structured/impl_defn"] = StructuredImplSignature(g, "impl_name").defn();
  out["structured/impl_to_dispatcher"] =
      exprsOf(structured::implArguments(g), DispatcherSignature::fromSchema(g.out->func, Options::of(g)).arguments());
  for (const model::NativeFunction* f : g.functions()) {
    const Options opts = Options::of(*f);
    const model::SchemaKind k = f->func.kind();
    for (bool symint : f->func.hasSymInt() ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      const std::string p = "structured/" + f->func.name.str() + (symint ? "/symint" : "") + "/";
      NativeSignature sig(f->func, symint, opts, "wrapper_CPU_");
      std::vector<Expr> context = toExprs(sig.arguments());
      out[p + "meta"] = exprsOf(context, structured::metaArguments(g));
      if (g.out->precomputed) {
        for (const auto& [name, elems] : g.out->precomputed->replace)
          for (const auto& a : elems)
            context.push_back(Expr{"precompute." + a.name, structured::argumentType(a, a.name)});
        for (const auto& a : g.out->precomputed->add)
          context.push_back(Expr{"precompute." + a.name, structured::argumentType(a, a.name)});
      }
      const auto outArgs = structured::outArguments(g);
      for (size_t i = 0; i < outArgs.size(); ++i) {
        std::string expr = k == model::SchemaKind::Out ? "op.maybe_get_output(" + std::to_string(i) + ")"
                                                       : "op.outputs_[" + std::to_string(i) + "]";
        context.push_back(Expr{expr, NamedCType{outArgs[i].nctype.name, CType::mutRef(CType::base(tensorT))}});
      }
      out[p + "impl"] = exprsOf(context, structured::implArguments(g));
      auto outGroup = CppSignatureGroup::fromNativeFunction(*g.out, {.fallbackBinding = f->manualCppBinding}, opts);
      const CppSignature& outSig = outGroup.mostFaithfulSignature();
      out[p + "composite_name"] = outSig.name();
      out[p + "composite"] = exprsOf(context, outSig.arguments());
      auto direct = CppSignatureGroup::fromNativeFunction(*f, {}, opts);
      json fromCpp = json::array();
      for (const CppSignature* s : direct.signatures()) fromCpp.push_back(exprsOf(s->arguments(), sig.arguments()));
      out[p + "from_cpp"] = fromCpp;
    }
  }
}

void ufuncFields(Fields& out, const model::NativeFunctionsGroup& g) {
  out["ufunc/kernel_name_cpu"] = ufunc::kernelName(g, model::DispatchKey::CPU);
  out["ufunc/kernel_name_cuda"] = ufunc::kernelName(g, model::DispatchKey::CUDA);
  const auto stub = ufunc::stubArguments(g);
  out["ufunc/stub_args"] = bindings(stub);
  const CType opmath = CType::base(opmath_t), scalar = CType::base(scalar_t), vec = CType::vectorized(scalar);
  out["ufunc/ufunc_args_opmath"] = bindings(ufunc::ufuncArguments(g, opmath));
  out["ufunc/ufunc_args_scalar"] = bindings(ufunc::ufuncArguments(g, scalar));
  out["ufunc/ufunc_args_vec"] = bindings(ufunc::ufuncArguments(g, vec));
  StructuredImplSignature impl(g, ufunc::kernelName(g, model::DispatchKey::CPU));
  out["ufunc/stub_call"] = exprsOf(impl.arguments(), stub);
  int ntensors = 0;
  for (const model::Argument* a : g.functional->func.arguments.flatNonOut()) ntensors += a->type.isTensorLike();
  const std::vector<std::pair<std::optional<int>, std::string>> configs = {
      {std::nullopt, ""}, {0, "self"}, {1, "other"}};
  for (const auto& [idx, ctorTensor] : configs) {
    if (idx && ntensors != 2) continue;
    const std::string p = "ufunc/functor_" + (idx ? std::to_string(*idx) : std::string("None")) + "/";
    auto b = ufunc::ufunctorArguments(g, idx, scalar_t);
    out[p + "ctor"] = bindings(b.ctor);
    out[p + "apply"] = bindings(b.apply);
    std::vector<Binding> ctx;
    for (const auto& x : b.ctor) ctx.push_back(x.withName(x.name + "_"));
    for (const auto& x : b.apply) ctx.push_back(x);
    out[p + "call"] = exprsOf(ctx, ufunc::ufuncArguments(g, opmath));
    std::vector<Expr> ctorCtx = toExprs(impl.arguments());
    if (idx)
      ctorCtx.push_back(
          Expr{"iter.scalar_value<opmath_t>(" + std::to_string(*idx + 1) + ")", NamedCType{ctorTensor, opmath}});
    out[p + "ctor_exprs"] = exprsOf(ctorCtx, b.ctor);
  }
  std::vector<Expr> ctx, vctx;
  for (const auto& b : stub) {
    const model::Argument* a = b.schemaArgument();
    if (a && !a->type.isBase(model::BaseTy::Scalar)) continue;
    ctx.push_back(Expr{"_s_" + b.name, NamedCType{b.nctype.name, scalar}});
  }
  vctx = ctx;
  for (const auto& b : stub) {
    const model::Argument* a = b.schemaArgument();
    if (a && !a->type.isBase(model::BaseTy::Scalar)) continue;
    vctx.push_back(Expr{"_v_" + b.name, NamedCType{b.nctype.name, vec}});
  }
  std::vector<Binding> sb, vb;
  for (const model::Argument* a : g.functional->func.arguments.flatNonOut()) {
    if (!a->type.isTensorLike()) continue;
    sb.push_back(Binding{a->name, NamedCType{a->name, scalar}, a, std::nullopt});
    vb.push_back(Binding{a->name, NamedCType{a->name, vec}, a, std::nullopt});
  }
  json sl = json::array(), vl = json::array();
  for (const auto& b : sb) sl.push_back(b.decl());
  for (const auto& b : vb) vl.push_back(b.decl());
  out["ufunc/cpu_scalar_lambda"] = sl;
  out["ufunc/cpu_vec_lambda"] = vl;
  for (const auto& b : sb) ctx.push_back(Expr::of(b));
  for (const auto& b : vb) vctx.push_back(Expr::of(b));
  out["ufunc/cpu_scalar_call"] = exprsOf(ctx, ufunc::ufuncArguments(g, scalar));
  out["ufunc/cpu_vec_call"] = exprsOf(vctx, ufunc::ufuncArguments(g, vec));
}

bool anyUnsupported(const std::vector<const model::NativeFunction*>& fs) {
  return std::any_of(fs.begin(), fs.end(),
                     [](const model::NativeFunction* f) { return cpp::checkSupported(f->func).has_value(); });
}

Fields groupFields(const model::NativeFunctionsGroup& g) {
  if (anyUnsupported(g.functions()) || (g.structured() && structured::checkSupported(g)))
    return Fields{{"unsupported", "true"}};
  Fields out;
  out["meta_name"] = meta::name(g);
  if (g.structured()) structuredFields(out, g);
  if (!g.out->ufuncInnerLoop.empty()) ufuncFields(out, g);
  for (const model::NativeFunction* f : {g.inplace, g.out}) {
    if (!f) continue;
    const Options opts = Options::of(*f);
    const std::string p = "out_inplace_wrapper/" + f->func.name.str() + "/";
    auto sig = DispatcherSignature::fromSchema(f->func, opts, "wrapper_CPU_" + f->func.name.overloadName + "_", false);
    auto functionalSig = DispatcherSignature::fromSchema(
        g.functional->func, opts, "wrapper_CPU_" + g.functional->func.name.overloadName + "_", false);
    out[p + "callee"] = functionalSig.name();
    out[p + "call"] = exprsOf(sig.arguments(), functionalSig.arguments());
    out[p + "return_names"] = strings(cpp::returnNames(*f));
    out[p + "returns_type"] = sig.returnsType().cppType();
  }
  for (const model::NativeFunction* f : g.functions()) {
    bool writes = false;
    for (const model::Argument* a : f->func.arguments.flatAll()) writes = writes || a->isWrite();
    if (!writes) continue;
    const Options opts = Options::of(*f);
    const std::string p = "functionalization/" + f->func.name.str() + "/";
    auto d = DispatcherSignature::fromSchema(f->func, opts);
    auto functionalSig = DispatcherSignature::fromSchema(g.functional->func, opts);
    auto ctx = unwrapped(d.arguments(), "_");
    out[p + "to_self"] = exprsOf(ctx, d.arguments());
    out[p + "to_functional"] = exprsOf(ctx, functionalSig.arguments());
    out[p + "functional_returns"] =
        dispatcher::returnsType(g.functional->func.returns, opts).removeConstRef().cppType();
    out[p + "returns_no_ref"] = dispatcher::returnsType(f->func.returns, opts).removeConstRef().cppType();
  }
  return out;
}

// ----- view groups

Fields viewGroupFields(const model::NativeFunctionsViewGroup& g) {
  if (anyUnsupported(g.functions())) return Fields{{"unsupported", "true"}};
  Fields out;
  {
    const Options opts = Options::of(g);
    ViewInverseSignature inverse(g, opts);
    out["inverse_name"] = inverse.name();
    if (!g.view->hasCompositeImplicitAutogradKernel) out["inverse_decl"] = inverse.decl();
    if (g.viewCopy) {
      auto viewSig = DispatcherSignature::fromSchema(g.view->func, opts);
      for (bool symint : g.viewCopy->func.hasSymInt() ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
        NativeSignature viewCopySig(g.viewCopy->func, symint, opts);
        const std::string p = std::string("view_copy_kernel/") + (symint ? "True" : "False") + "/";
        out[p + "defn"] = viewCopySig.defn({.name = "kernel"});
        out[p + "call"] = exprsOf(viewCopySig.arguments(), viewSig.arguments());
      }
    }
  }
  if (!g.viewCopy) return out;
  for (const model::NativeFunction* f : {g.view, g.viewInplace}) {
    if (!f) continue;
    const Options opts = Options::of(*f);
    const auto& func = f->func;
    const std::string p = func.name.str() + "/";
    out[p + "classname"] = functionalization::classname(func);
    out[p + "classname_ns"] = functionalization::classname(func, true);
    out[p + "multi_output"] = functionalization::isMultiOutput(func);
    out[p + "returns_type"] = functionalization::returnsType(func).cppType();
    const auto baseCtor = functionalization::baseCtorArguments(func);
    const auto extraCtor = functionalization::extraCtorArguments(func, opts);
    const auto attributes = functionalization::attributes(func, opts);
    out[p + "base_ctor"] = bindings(baseCtor);
    out[p + "extra_ctor"] = bindings(extraCtor);
    out[p + "attributes"] = bindings(attributes);
    auto assignments = translate(extraCtor, attributes, {.allowExpensiveConversions = true});
    if (assignments) {
      json a = json::array();
      for (const auto& e : *assignments) a.push_back(e.type.name.str() + "(" + e.expr + ")");
      out[p + "ctor_assignments"] = a;
    } else {
      out[p + "ctor_assignments"] = "<unsat>";
    }
    for (bool isReverse : {false, true}) {
      const std::string q = p + (isReverse ? "reverse/" : "forward/");
      const auto opArgs = functionalization::opArguments(g.viewCopy->func, isReverse, opts);
      out[q + "op_args"] = bindings(opArgs);
      std::vector<Binding> context{functionalization::baseBinding()};
      for (const auto& b : functionalization::baseCtorArguments(func)) context.push_back(b);
      for (const auto& b : functionalization::attributes(func, opts)) context.push_back(b);
      if (isReverse) context.push_back(functionalization::mutatedViewBinding());
      out[q + "call"] = exprsOf(context, opArgs);
    }
    out[p + "forward_name_reapply"] = functionalization::forwardName(g, true);
    out[p + "forward_name_copy"] = functionalization::forwardName(g, false);
    out[p + "reverse_name"] = functionalization::reverseName(*g.view, true);
    auto callSig = DispatcherSignature::fromSchema(g.viewCopy->func, opts);
    auto d = DispatcherSignature::fromSchema(func, opts);
    out[p + "body/redispatch"] = exprsOf(unwrapped(d.arguments(), "_"), callSig.arguments());
    out[p + "body/meta"] = exprsOf(unwrapped(d.arguments(), "_meta"), callSig.arguments());
    json symArgs = json::array();
    for (const auto& b : callSig.arguments())
      if (b.schemaArgument() && b.schemaArgument()->type.isSymIntLike())
        symArgs.push_back(b.name + ": " + b.nctype.type.cppType());
    out[p + "body/symint_args"] = symArgs;
    out[p + "body/returns"] = d.returnsType().removeConstRef().cppType();
    out[p + "body/defn"] = d.defn({.name = "wrapper", .isRedispatchingFn = true});
  }
  return out;
}

struct Record {
  std::string key;
  Fields fields;
};

struct Records {
  std::vector<Record> functions, groups, viewGroups;
};

Records opgenRecords(const model::Operators& ops) {
  Records r;
  for (const model::NativeFunction* f : ops.functions())
    r.functions.push_back({f->func.name.str(), functionFields(*f)});
  for (const auto& item : ops.grouped())
    if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item))
      r.groups.push_back({"group " + g->functional->func.name.str(), groupFields(*g)});
  for (const auto& item : ops.groupedByView())
    if (const auto* g = std::get_if<model::NativeFunctionsViewGroup>(&item))
      r.viewGroups.push_back({"view " + g->view->func.name.str(), viewGroupFields(*g)});
  return r;
}

// ---------------------------------------------------------------------------------------------------
// Comparison

std::string show(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

struct Comparison {
  std::size_t records = 0, fields = 0, differences = 0;
  std::ostringstream shown;

  void difference(const std::string& line) {
    if (differences++ < kMaxShown) shown << "\n  " << line;
  }

  // A list value that differs: the first differing element, with both sides.
  static std::string describe(const json& ref, const json& got) {
    if (ref.is_array() && got.is_array()) {
      std::ostringstream s;
      if (ref.size() != got.size()) s << "(torchgen has " << ref.size() << " elements, opgen " << got.size() << ") ";
      for (std::size_t i = 0; i < std::min(ref.size(), got.size()); ++i) {
        if (ref[i] != got[i]) {
          s << "element " << i << ":\n      torchgen: " << show(ref[i]) << "\n      opgen:    " << show(got[i]);
          return s.str();
        }
      }
      s << "\n      torchgen: " << ref.dump() << "\n      opgen:    " << got.dump();
      return s.str();
    }
    return "\n      torchgen: " + show(ref) + "\n      opgen:    " + show(got);
  }

  void compare(const std::string& what, const json& refList, const std::vector<Record>& got) {
    std::map<std::string, const Record*> byKey;
    for (const auto& r : got) byKey.emplace(r.key, &r);
    std::vector<std::string> refKeys;
    for (const auto& rec : refList) refKeys.push_back(rec.at("key").get<std::string>());
    std::vector<std::string> gotKeys;
    for (const auto& r : got) gotKeys.push_back(r.key);
    if (refKeys != gotKeys) {
      std::set<std::string> rs(refKeys.begin(), refKeys.end()), gs(gotKeys.begin(), gotKeys.end());
      for (const auto& k : refKeys)
        if (!gs.count(k)) difference(what + ": opgen has no record " + k);
      for (const auto& k : gotKeys)
        if (!rs.count(k)) difference(what + ": opgen has an extra record " + k);
      if (rs == gs) difference(what + ": the records come in a different order");
    }
    for (const auto& rec : refList) {
      const std::string key = rec.at("key").get<std::string>();
      auto it = byKey.find(key);
      if (it == byKey.end()) continue;
      ++records;
      const json& ref = rec.at("fields");
      const Fields& mine = it->second->fields;
      for (const auto& [field, value] : ref.items()) {
        ++fields;
        auto m = mine.find(field);
        if (m == mine.end()) {
          difference(key + " " + field + ": opgen does not compute it (torchgen: " + show(value) + ")");
        } else if (m->second != value) {
          difference(key + " " + field + ": " + describe(value, m->second));
        }
      }
      for (const auto& [field, value] : mine)
        if (!ref.contains(field)) difference(key + " " + field + ": only opgen computes it (" + show(value) + ")");
    }
  }
};

// ---------------------------------------------------------------------------------------------------
// The tests

class ApiConformance : public ::testing::TestWithParam<Input> {};

TEST_P(ApiConformance, MatchesTorchgen) {
  const Input& input = GetParam();
  OPGEN_REQUIRE_REFERENCE();
  auto [yaml, tags] = filesOf(input);
  const Reference& ref = referenceRecords(input);
  ASSERT_TRUE(ref.error.empty()) << "the reference failed on " << yaml << ":\n" << ref.error;

  support::Diagnostics diags;
  auto validTags = model::loadTags(tags.string(), test::readFile(tags), diags);
  ASSERT_TRUE(validTags) << diags.str();
  auto ops = model::loadNativeFunctions(yaml.string(), test::readFile(yaml), *validTags, model::LoadOptions{}, diags);
  ASSERT_TRUE(ops) << diags.str();

  const auto start = std::chrono::steady_clock::now();
  Records mine = opgenRecords(*ops);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  Comparison c;
  c.compare("functions", ref.value.at("functions"), mine.functions);
  c.compare("groups", ref.value.at("groups"), mine.groups);
  c.compare("view_groups", ref.value.at("view_groups"), mine.viewGroups);
  EXPECT_EQ(c.differences, 0u) << yaml.string() << ": " << c.differences << " difference(s) in " << c.fields
                               << " fields of " << c.records << " records"
                               << (c.differences > kMaxShown ? " (first " + std::to_string(kMaxShown) + " shown)" : "")
                               << ":" << c.shown.str();
  EXPECT_GT(c.fields, 0u);
  std::cout << "[ api      ] " << input.name << ": " << c.records << " records, " << c.fields << " fields compared, "
            << c.differences << " differences (opgen computed them in " << ms << " ms)\n";
}

INSTANTIATE_TEST_SUITE_P(Api, ApiConformance, ::testing::ValuesIn(allInputs()),
                         [](const ::testing::TestParamInfo<Input>& info) { return info.param.name; });

}  // namespace
