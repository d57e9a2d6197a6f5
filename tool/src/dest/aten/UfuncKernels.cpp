#include "dest/aten/UfuncKernels.h"

#include <algorithm>
#include <map>
#include <memory>

#include "api/Signatures.h"
#include "api/Translate.h"
#include "api/Ufunc.h"
#include "dest/common/NativeDeclarations.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using model::ScalarType;
using model::UfuncKey;
using support::Expected;
using support::makeError;

// ---------------------------------------------------------------------------------------------
// Snippets. Common placeholders: $op$: the operator's base name (add); $stub_types$, $stub_params$,
// $stub_args$: the DispatchStub's extra parameters (after the TensorIteratorBase) as types, as
// declarations, and as the impl's expressions for them; $impl$: TORCH_IMPL_FUNC(NAME)(PARAMETERS).

// UfuncCPU_{op}.cpp: the impl calls the stub, which dispatches on the CPU capability.
constexpr std::string_view kCpu = R"cc(
using $op$_fn = void(*)(TensorIteratorBase&, $stub_types$);
DECLARE_DISPATCH($op$_fn, $op$_stub)
DEFINE_DISPATCH($op$_stub);

$impl$ {
  $op$_stub(device_type(), *this, $stub_args$);
}
)cc";

// UfuncCPUKernel_{op}.cpp. $cases$: kDtypeCase per dtype.
constexpr std::string_view kCpuKernel = R"cc(
namespace {

void $op$_kernel(TensorIteratorBase& iter, $stub_params$) {
  AT_DISPATCH_SWITCH(iter.common_dtype(), "$op$_stub",
    $cases$
  );
}

} // anonymous namespace

using $op$_fn = void(*)(TensorIteratorBase&, $stub_types$);
DECLARE_DISPATCH($op$_fn, $op$_stub)
REGISTER_DISPATCH($op$_stub, &$op$_kernel)
)cc";

// UfuncCUDA_{op}.cu. $functors$: kFunctor per generated functor; $impl_name$: ufunc_{op}_CUDA.
constexpr std::string_view kCuda = R"cc(
$functors$

using $op$_fn = void(*)(TensorIteratorBase&, $stub_types$);
DECLARE_DISPATCH($op$_fn, $op$_stub)

void $op$_kernel(TensorIteratorBase& iter, $stub_params$) {
  AT_DISPATCH_SWITCH(iter.common_dtype(), "$impl_name$",
    $cases$
  );
}
REGISTER_DISPATCH($op$_stub, &$op$_kernel)

$impl$ {
  $op$_kernel(*this, $stub_args$);
}
)cc";

// One dtype of a kernel's switch. $dtype$: Float, ...; $body$: the loop for it.
constexpr std::string_view kDtypeCase = R"cc(
AT_DISPATCH_CASE(at::ScalarType::$dtype$,
  [&]() {
    $body$
  }
)
)cc";

// CPU loops. $setup$: the scalars converted to scalar_t (and vectors); $scalar_params$ /
// $vector_params$: the lambdas' element parameters; $scalar_call$ / $vector_call$: the user's loops.
constexpr std::string_view kCpuLoop = R"cc(
$setup$
cpu_kernel(iter,
  [=]($scalar_params$) { return $scalar_call$; }
);
)cc";
constexpr std::string_view kCpuVectorLoop = R"cc(
$setup$
cpu_kernel_vec(iter,
  [=]($scalar_params$) { return $scalar_call$; },
  [=]($vector_params$) { return $vector_call$; }
);
)cc";

// A CUDA functor around a ufunc. $name$: CUDAFunctor_add, ...; $fields$: one `TYPE NAME_;` per line;
// $ctor_params$, $inits$: the constructor; $apply_params$: operator()'s; $call$: the ufunc call.
constexpr std::string_view kFunctor = R"cc(
template <typename scalar_t>
struct $name$ {
  using opmath_t = at::opmath_type<scalar_t>;
  $fields$
  $name$($ctor_params$) : $inits$ {}
  __device__ scalar_t operator()($apply_params$) const {
    return $call$;
  }
};
)cc";

// The CUDA loop of one dtype: the CPU-scalar specializations, then the general functor.
constexpr std::string_view kCudaBodyStart = "using opmath_t = at::opmath_type<scalar_t>;if (false) {}\n";
// $index$: the operand that is a CPU scalar; $functor$: its functor; $args$: the constructor's arguments.
constexpr std::string_view kCudaScalarCase = R"cc(else if (iter.is_cpu_scalar($index$)) {
  $functor$<scalar_t> ufunctor($args$);
  iter.remove_operand($index$);
  gpu_kernel(iter, ufunctor);
})cc";
constexpr std::string_view kCudaGeneralCase = R"cc(
else {
  gpu_kernel(iter, $functor$<scalar_t>($args$));
}
    )cc";

// ---------------------------------------------------------------------------------------------

std::string opName(const model::NativeFunctionsGroup& g) { return g.functional->func.name.name.str(); }

std::string joinExprStrings(const std::vector<api::Expr>& exprs) {
  std::string r;
  for (size_t i = 0; i < exprs.size(); ++i) r += (i ? ", " : "") + exprs[i].expr;
  return r;
}

// `NAME(ARGS)` with the arguments translated from the context.
Expected<std::string> call(const std::string& name, const std::vector<api::Expr>& context,
                           const std::vector<api::Binding>& goals) {
  auto exprs = api::translate(context, goals);
  if (!exprs) return exprs.error();
  return name + "(" + joinExprStrings(*exprs) + ")";
}

// The stub's parameters and the impl's expressions for them.
struct Stub {
  std::vector<api::Binding> params;
  std::string types, decls, args;
};

Expected<Stub> stubFor(const model::NativeFunctionsGroup& g, const api::StructuredImplSignature& impl) {
  Stub s;
  s.params = api::ufunc::stubArguments(g);
  s.types = api::joinTypes(s.params);
  s.decls = api::joinDefns(s.params);
  auto exprs = api::translate(impl.arguments(), s.params);
  if (!exprs) return exprs.error();
  s.args = joinExprStrings(*exprs);
  return s;
}

std::string dtypeCase(ScalarType dtype, const std::string& body) {
  return support::fillSnippet(kDtypeCase, {{"dtype", model::scalarTypeName(dtype)}, {"body", body}});
}

const api::CType kScalarT = api::CType::base(api::scalar_t);
const api::CType kOpmathT = api::CType::base(api::opmath_t);
const api::CType kVectorizedT = api::CType::vectorized(api::CType::base(api::scalar_t));

// ---------------------------------------------------------------------------------------------
// CPU

// A ufunc as called from a loop: ufunc::NAME with its arguments in compute type computeT.
struct UfuncCall {
  std::string name;
  api::CType computeT;
};

// torchgen's compute_ufunc_cpu_dtype_body.
Expected<std::string> cpuDtypeBody(const model::NativeFunctionsGroup& g, const std::map<UfuncKey, UfuncCall>& loops,
                                   const std::vector<api::Binding>& stubParams) {
  auto scalarLoop = loops.find(UfuncKey::CPUScalar);
  if (scalarLoop == loops.end()) return makeError("a dtype has a CPUVector loop without a CPUScalar one");
  auto vectorLoop = loops.find(UfuncKey::CPUVector);
  const bool vectorized = vectorLoop != loops.end();

  // The Scalar parameters, converted once (and broadcast into vectors).
  std::vector<std::string> setup;
  std::vector<api::Expr> context;
  for (const api::Binding& b : stubParams) {
    const model::Argument* a = b.schemaArgument();
    if (a && !a->type.isBase(model::BaseTy::Scalar)) continue;
    setup.push_back("auto _s_" + b.name + " = " + b.name + ".to<scalar_t>();");
    context.push_back(api::Expr{"_s_" + b.name, api::NamedCType{b.nctype.name, kScalarT}});
  }
  if (vectorized) {
    for (const api::Binding& b : stubParams) {
      const model::Argument* a = b.schemaArgument();
      if (a && !a->type.isBase(model::BaseTy::Scalar)) continue;
      setup.push_back("auto _v_" + b.name + " = at::vec::Vectorized<scalar_t>(_s_" + b.name + ");");
      context.push_back(api::Expr{"_v_" + b.name, api::NamedCType{b.nctype.name, kVectorizedT}});
    }
  }
  // The tensors' elements are the lambdas' parameters.
  std::vector<api::Binding> scalarParams, vectorParams;
  for (const model::Argument* a : g.functional->func.arguments.flatNonOut()) {
    if (!a->type.isTensorLike()) continue;
    if (!a->type.isBase(model::BaseTy::Tensor))
      return makeError("ufunc argument '" + a->name + "' must be a Tensor, not '" + a->type.str() + "'");
    scalarParams.push_back(api::Binding{a->name, api::NamedCType{a->name, kScalarT}, a, std::nullopt});
    if (vectorized) vectorParams.push_back(api::Binding{a->name, api::NamedCType{a->name, kVectorizedT}, a, std::nullopt});
  }
  auto loopCall = [&](const UfuncCall& loop, const std::vector<api::Binding>& params) {
    std::vector<api::Expr> scope = context;
    for (const api::Binding& b : params) scope.push_back(api::Expr::of(b));
    return call(loop.name, scope, api::ufunc::ufuncArguments(g, loop.computeT));
  };
  auto scalarCall = loopCall(scalarLoop->second, scalarParams);
  if (!scalarCall) return scalarCall.error();
  const std::string setupText = support::join(setup, "\n");
  if (!vectorized) {
    return support::fillSnippet(kCpuLoop, {{"setup", setupText},
                                  {"scalar_params", api::joinDecls(scalarParams)},
                                  {"scalar_call", *scalarCall}});
  }
  auto vectorCall = loopCall(vectorLoop->second, vectorParams);
  if (!vectorCall) return vectorCall.error();
  return support::fillSnippet(kCpuVectorLoop, {{"setup", setupText},
                                      {"scalar_params", api::joinDecls(scalarParams)},
                                      {"scalar_call", *scalarCall},
                                      {"vector_params", api::joinDecls(vectorParams)},
                                      {"vector_call", *vectorCall}});
}

// ---------------------------------------------------------------------------------------------
// CUDA

// A functor for one of the CUDA keys (torchgen's UfunctorSignature).
struct Functor {
  std::string name;
  api::ufunc::UfunctorBindings bindings;
};

std::optional<int> scalarTensorIndex(UfuncKey k) {
  if (k == UfuncKey::CUDAFunctorOnSelf) return 1;
  if (k == UfuncKey::CUDAFunctorOnOther) return 0;
  return std::nullopt;
}

// The functor's definition (torchgen's functor text in compute_ufunc_cuda_functors).
Expected<std::string> functorDefinition(const model::NativeFunctionsGroup& g, const Functor& f,
                                        const std::string& ufuncName) {
  std::vector<std::string> fields, inits;
  std::vector<api::Expr> applyScope;
  for (const api::Binding& b : f.bindings.ctor) {
    fields.push_back(b.type() + " " + b.name + "_;");
    inits.push_back(b.name + "_(" + b.name + ")");
    applyScope.push_back(api::Expr{b.name + "_", b.nctype});  // the fields
  }
  for (const api::Binding& b : f.bindings.apply) applyScope.push_back(api::Expr::of(b));
  auto ufuncCall = call("ufunc::" + ufuncName, applyScope, api::ufunc::ufuncArguments(g, kOpmathT));
  if (!ufuncCall) return ufuncCall.error();
  return support::fillSnippet(kFunctor, {{"name", f.name},
                                {"fields", support::join(fields, "\n")},
                                {"ctor_params", api::joinDecls(f.bindings.ctor)},
                                {"inits", support::join(inits, ", ")},
                                {"apply_params", api::joinDecls(f.bindings.apply)},
                                {"call", *ufuncCall}});
}

// torchgen's compute_ufunc_cuda_dtype_body.
Expected<std::string> cudaDtypeBody(const std::map<UfuncKey, const Functor*>& functors,
                                    const std::vector<api::Binding>& implParams) {
  std::string body(kCudaBodyStart);
  const std::vector<api::Expr> implScope = api::toExprs(implParams);
  // The operand that may be a CPU scalar: `other` (index 2) for OnSelf, `self` (index 1) for OnOther.
  struct Specialization {
    int index;
    std::string_view tensor;
    UfuncKey key;
  };
  for (const Specialization& s : {Specialization{1, "self", UfuncKey::CUDAFunctorOnOther},
                                  Specialization{2, "other", UfuncKey::CUDAFunctorOnSelf}}) {
    auto it = functors.find(s.key);
    if (it == functors.end()) continue;
    std::vector<api::Expr> scope = implScope;
    scope.push_back(api::Expr{"iter.scalar_value<opmath_t>(" + std::to_string(s.index) + ")",
                              api::NamedCType{std::string(s.tensor), kOpmathT}});
    auto args = api::translate(scope, it->second->bindings.ctor);
    if (!args) return args.error();
    const std::string index = std::to_string(s.index);
    support::appendSnippet(body, kCudaScalarCase, {{"index", index}, {"functor", it->second->name}, {"args", joinExprStrings(*args)}});
  }
  auto general = functors.find(UfuncKey::CUDAFunctor);
  if (general == functors.end()) return makeError("a dtype has CUDA functors on a scalar operand but no CUDAFunctor");
  auto args = api::translate(implScope, general->second->bindings.ctor);
  if (!args) return args.error();
  support::appendSnippet(body, kCudaGeneralCase, {{"functor", general->second->name}, {"args", joinExprStrings(*args)}});
  return body;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Expected<std::string> ufuncCpuDefinitions(const model::NativeFunctionsGroup& g) {
  const api::StructuredImplSignature impl(g, api::ufunc::kernelName(g, model::DispatchKey::CPU));
  auto stub = stubFor(g, impl);
  if (!stub) return stub.error();
  return support::fillSnippet(kCpu, {{"op", opName(g)}, {"stub_types", stub->types}, {"impl", impl.defn()}, {"stub_args", stub->args}});
}

Expected<std::string> ufuncCpuKernelDefinitions(const model::NativeFunctionsGroup& g) {
  const auto& loops = g.out->ufuncInnerLoop;
  // For each dtype, its CPUScalar and CPUVector loops; an explicit key wins over ScalarOnly (scalar
  // loops only), which wins over Generic.
  std::vector<std::pair<ScalarType, std::map<UfuncKey, UfuncCall>>> byDtype;  // in order of first use
  auto loopsOf = [&](ScalarType dtype) -> std::map<UfuncKey, UfuncCall>& {
    for (auto& [d, m] : byDtype)
      if (d == dtype) return m;
    return byDtype.emplace_back(dtype, std::map<UfuncKey, UfuncCall>{}).second;
  };
  for (UfuncKey k : {UfuncKey::CPUScalar, UfuncKey::CPUVector}) {
    std::vector<UfuncKey> sources;
    if (loops.count(k)) sources.push_back(k);
    if (loops.count(UfuncKey::ScalarOnly) && k == UfuncKey::CPUScalar) sources.push_back(UfuncKey::ScalarOnly);
    if (loops.count(UfuncKey::Generic)) sources.push_back(UfuncKey::Generic);
    for (UfuncKey source : sources) {
      const model::UfuncInnerLoop& loop = loops.at(source);
      for (ScalarType dtype : loop.supportedDtypes) {
        const api::CType& computeT = k == UfuncKey::CPUScalar ? kScalarT : kVectorizedT;
        loopsOf(dtype).emplace(k, UfuncCall{"ufunc::" + loop.name, computeT});  // the first one stays
      }
    }
  }
  const std::vector<api::Binding> stubParams = api::ufunc::stubArguments(g);
  std::vector<std::string> cases;
  for (const auto& [dtype, dtypeLoops] : byDtype) {
    auto body = cpuDtypeBody(g, dtypeLoops, stubParams);
    if (!body) return body.error();
    cases.push_back(dtypeCase(dtype, *body));
  }
  return support::fillSnippet(kCpuKernel, {{"op", opName(g)},
                                  {"stub_params", api::joinDefns(stubParams)},
                                  {"cases", support::join(cases, "\n")},
                                  {"stub_types", api::joinTypes(stubParams)}});
}

Expected<std::string> ufuncCudaDefinitions(const model::NativeFunctionsGroup& g) {
  const auto& loops = g.out->ufuncInnerLoop;
  // Binary operators also get functors for a CPU scalar operand.
  int tensors = 0;
  for (const model::Argument* a : g.functional->func.arguments.flatNonOut()) tensors += a->type.isTensorLike() ? 1 : 0;
  std::vector<UfuncKey> keys;
  if (tensors == 2) {
    keys = {UfuncKey::CUDAFunctorOnSelf, UfuncKey::CUDAFunctorOnOther, UfuncKey::CUDAFunctor};
  } else {
    keys = {UfuncKey::CUDAFunctor};
    for (UfuncKey k : {UfuncKey::CUDAFunctorOnSelf, UfuncKey::CUDAFunctorOnOther})
      if (loops.count(k)) return makeError("cannot use " + std::string(model::ufuncKeyName(k)) + " on non-binary function");
  }

  std::vector<std::unique_ptr<Functor>> functors;
  std::vector<std::pair<ScalarType, std::map<UfuncKey, const Functor*>>> byDtype;  // in order of first use
  auto functorsOf = [&](ScalarType dtype) -> std::map<UfuncKey, const Functor*>& {
    for (auto& [d, m] : byDtype)
      if (d == dtype) return m;
    return byDtype.emplace_back(dtype, std::map<UfuncKey, const Functor*>{}).second;
  };
  std::vector<std::string> definitions;
  for (UfuncKey k : keys) {
    auto bindings = api::ufunc::ufunctorArguments(g, scalarTensorIndex(k), api::scalar_t);
    if (auto it = loops.find(k); it != loops.end()) {
      // The user wrote this functor.
      const Functor* f = functors.emplace_back(std::make_unique<Functor>(Functor{it->second.name, bindings})).get();
      for (ScalarType dtype : it->second.supportedDtypes) functorsOf(dtype)[k] = f;
      continue;
    }
    // Generated from the ScalarOnly / Generic loops, which must name the same ufunc.
    std::optional<std::string> ufuncName;
    std::vector<ScalarType> dtypes;
    for (UfuncKey source : {UfuncKey::ScalarOnly, UfuncKey::Generic}) {
      auto it = loops.find(source);
      if (it == loops.end()) continue;
      if (ufuncName && *ufuncName != it->second.name) return makeError("ScalarOnly and Generic must have same ufunc name");
      ufuncName = it->second.name;
      for (ScalarType d : it->second.supportedDtypes)
        if (std::find(dtypes.begin(), dtypes.end(), d) == dtypes.end()) dtypes.push_back(d);
    }
    if (!ufuncName)
      return makeError("no ufunc loop for " + std::string(model::ufuncKeyName(k)) + " (neither ScalarOnly nor Generic)");
    const Functor* f = functors
                           .emplace_back(std::make_unique<Functor>(
                               Functor{std::string(model::ufuncKeyName(k)) + "_" + *ufuncName, bindings}))
                           .get();
    for (ScalarType dtype : dtypes) functorsOf(dtype)[k] = f;
    auto definition = functorDefinition(g, *f, *ufuncName);
    if (!definition) return definition.error();
    definitions.push_back(std::move(*definition));
  }

  const api::StructuredImplSignature impl(g, api::ufunc::kernelName(g, model::DispatchKey::CUDA));
  std::vector<std::string> cases;
  for (const auto& [dtype, dtypeFunctors] : byDtype) {
    auto body = cudaDtypeBody(dtypeFunctors, impl.arguments());
    if (!body) return body.error();
    cases.push_back(dtypeCase(dtype, *body));
  }
  auto stub = stubFor(g, impl);
  if (!stub) return stub.error();
  return support::fillSnippet(kCuda, {{"functors", support::join(definitions, "\n")},
                             {"op", opName(g)},
                             {"stub_types", stub->types},
                             {"stub_params", stub->decls},
                             {"impl_name", impl.name()},
                             {"cases", support::join(cases, "\n")},
                             {"impl", impl.defn()},
                             {"stub_args", stub->args}});
}

// ---------------------------------------------------------------------------------------------

namespace {

// The environment shared by UfuncCPU_{op}.cpp and UfuncCUDA_{op}.cu: the meta class and the
// backend's kernel class, copied in rather than included.
bool declarationsEnv(const EmitContext& ctx, const model::NativeFunctionsGroup& g, model::DispatchKey key,
                     support::TemplateEnv& env) {
  const support::SourceLoc loc = g.out->loc.sourceLoc();
  auto meta = metaFunctionDeclaration(g);
  auto native = nativeFunctionDeclarations(model::FunctionOrGroup(g), ctx.backendIndex(key));
  if (!meta || !native) {
    ctx.diags.errorAbout(loc, g.out->func.name.str(), (!meta ? meta.error() : native.error()).message);
    env.set("meta_declaration", "").set("native_declaration", "").set("native_definitions", "");
    return false;
  }
  env.set("meta_declaration", std::move(*meta));
  env.set("native_declaration", std::move(*native));
  return true;
}

void reportOr(const EmitContext& ctx, const model::NativeFunctionsGroup& g, Expected<std::string> text,
              support::TemplateEnv& env) {
  if (!text) {
    model::reportError(ctx.diags, *g.out, text.error().message);
    env.set("native_definitions", "");  // the error is reported; render nothing in its place
    return;
  }
  env.set("native_definitions", std::move(*text));
}

}  // namespace

void emitUfuncKernels(const EmitContext& ctx, const Writers& out) {
  for (model::DispatchKey key : ctx.dispatchKeys) {
    if (!model::isUfuncDispatchKey(key)) continue;
    for (const model::NativeFunctionsGroup* g : ctx.ops.groups()) {
      if (g->out->ufuncInnerLoop.empty()) continue;
      const std::string name = opName(*g);
      if (key == model::DispatchKey::CPU) {
        out.cpu.writeWithTemplate("UfuncCPU_" + name + ".cpp", "UfuncCPU.cpp", [&ctx, g, key] {
          support::TemplateEnv env;
          if (declarationsEnv(ctx, *g, key, env)) reportOr(ctx, *g, ufuncCpuDefinitions(*g), env);
          return env;
        });
        out.cpuVec.writeWithTemplate("UfuncCPUKernel_" + name + ".cpp", "UfuncCPUKernel.cpp", [&ctx, g, name] {
          support::TemplateEnv env;
          env.set("name", name);
          reportOr(ctx, *g, ufuncCpuKernelDefinitions(*g), env);
          return env;
        });
      } else if (key == model::DispatchKey::CUDA) {
        out.forDispatchKey(key).writeWithTemplate("UfuncCUDA_" + name + ".cu", "UfuncCUDA.cu", [&ctx, g, key, name] {
          support::TemplateEnv env;
          env.set("name", name);
          env.set("cuda_headers", ctx.rocm ? "#include <ATen/native/hip/Loops.cuh>" : "#include <ATen/native/cuda/Loops.cuh>");
          if (declarationsEnv(ctx, *g, key, env)) reportOr(ctx, *g, ufuncCudaDefinitions(*g), env);
          return env;
        });
      }
    }
  }
}

}  // namespace opgen::dest
