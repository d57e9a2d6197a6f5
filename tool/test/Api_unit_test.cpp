// Hand-checked signatures of opgen's api layer on a few well-known ATen operators (the expected strings
// are torchgen 2.14.1's for the same entries of PyTorch's native_functions.yaml), plus the parts the
// conformance test does not reach: CType on its own, translate() errors, kernelSignature(),
// checkSupported().
#include <gtest/gtest.h>

#include <memory>

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

namespace opgen::api {
namespace {

// Entries of ATen's native_functions.yaml, their dispatch tables shortened.
constexpr const char* kOps = R"yaml(
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  structured_delegate: add.out
  variants: function, method

- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  variants: method
  structured_delegate: add.out

- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  structured: True
  structured_inherits: TensorIteratorBase
  ufunc_inner_loop:
    Generic: add (AllAndComplex, BFloat16, Half, ComplexHalf)
    ScalarOnly: add (Bool)

- func: _foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]
  device_check: NoCheck
  dispatch:
    CompositeExplicitAutograd: foreach_tensor_add_list_kernel_slow

- func: _foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()
  device_check: NoCheck
  dispatch:
    CompositeExplicitAutograd: foreach_tensor_add_list_kernel_slow_
  autogen: _foreach_add.List_out

- func: empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
  dispatch:
    CPU: empty_cpu
    Meta: empty_meta_symint

- func: index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
  structured_delegate: index.Tensor_out
  variants: function, method

- func: index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  structured_inherits: TensorIteratorBase
  precomputed:
  - indices -> DimVector sizes, DimVector strides
  dispatch:
    CPU, CUDA: index_out

- func: view(Tensor(a) self, SymInt[] size) -> Tensor(a)
  variants: method
  dispatch:
    CPU: view
    Meta: view_symint

- func: transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: transpose

- func: transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor
  dispatch:
    CompositeExplicitAutogradNonFunctional: transpose_copy_int
  tags: view_copy
  autogen: transpose_copy.int_out

- func: view_copy(Tensor self, SymInt[] size) -> Tensor
  dispatch:
    CompositeExplicitAutogradNonFunctional: view_copy_symint
  tags: view_copy
  autogen: view_copy.out

- func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
  structured_delegate: max.dim_max
  variants: function, method

- func: max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)
  structured: True
  precomputed:
  - dim -> int dim
  dispatch:
    CPU, CUDA: max_out

- func: resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)
  use_const_ref_for_mutable_tensors: True
  variants: method
  tags: inplace_view
  dispatch:
    CPU: resize_
    Meta: resize__symint
  autogen: resize, resize.out
)yaml";

const std::set<std::string> kTags = {"core",      "pointwise", "inplace_view",
                                     "generated", "view_copy", "pt2_compliant_tag"};

class Api : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    support::Diagnostics diags;
    auto ops = model::loadNativeFunctions("ops.yaml", kOps, kTags, {}, diags);
    ASSERT_TRUE(ops) << diags.str();
    ops_ = std::make_unique<model::Operators>(std::move(*ops));
  }
  static void TearDownTestSuite() { ops_.reset(); }

  static const model::NativeFunction& fn(const std::string& name) {
    auto op = model::OperatorName::parse(name);
    const model::NativeFunction* f = op ? ops_->find(*op) : nullptr;
    EXPECT_TRUE(f) << name;
    return *f;
  }
  static const model::NativeFunctionsGroup& group(const std::string& functional) {
    for (const auto& item : ops_->grouped())
      if (const auto* g = std::get_if<model::NativeFunctionsGroup>(&item))
        if (g->functional->func.name.str() == functional) return *g;
    ADD_FAILURE() << "no group " << functional;
    static model::NativeFunctionsGroup none;
    return none;
  }
  static CppSignatureGroup cppGroup(const std::string& name, bool method = false) {
    const auto& f = fn(name);
    return CppSignatureGroup::fromNativeFunction(f, {.method = method, .fallbackBinding = f.manualCppBinding},
                                                 Options::of(f));
  }
  static std::vector<std::string> exprs(const support::Expected<std::vector<Expr>>& r) {
    std::vector<std::string> s;
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    if (r.ok())
      for (const auto& e : *r) s.push_back(e.expr);
    return s;
  }

  static std::unique_ptr<model::Operators> ops_;
};
std::unique_ptr<model::Operators> Api::ops_;

using Strings = std::vector<std::string>;

TEST_F(Api, AddTensor) {
  auto g = cppGroup("add.Tensor");
  EXPECT_EQ(g.signature().decl(),
            "at::Tensor add(const at::Tensor & self, const at::Tensor & other, const at::Scalar & alpha=1)");
  EXPECT_EQ(g.signature().defn(),
            "at::Tensor add(const at::Tensor & self, const at::Tensor & other, const at::Scalar & alpha)");
  EXPECT_FALSE(g.faithfulSignature());
  EXPECT_FALSE(g.symintSignature());
  EXPECT_EQ(g.signatures().size(), 1u);
  auto d = DispatcherSignature::fromSchema(fn("add.Tensor").func, Options::of(fn("add.Tensor")));
  EXPECT_EQ(d.decl(), "at::Tensor add(const at::Tensor & self, const at::Tensor & other, const at::Scalar & alpha)");
  EXPECT_EQ(d.type(), "at::Tensor (const at::Tensor &, const at::Tensor &, const at::Scalar &)");
  EXPECT_EQ(d.ptrType(), "at::Tensor (*)(const at::Tensor &, const at::Tensor &, const at::Scalar &)");
  NativeSignature n(fn("add.Tensor").func, false, Options::of(fn("add.Tensor")));
  EXPECT_EQ(n.name(), "add_Tensor");
  EXPECT_EQ(n.decl(),
            "at::Tensor add_Tensor(const at::Tensor & self, const at::Tensor & other, const at::Scalar & alpha=1)");
}

TEST_F(Api, MethodVariant) {
  auto g = cppGroup("add.Tensor", true);
  EXPECT_EQ(g.signature().decl(), "at::Tensor add(const at::Tensor & other, const at::Scalar & alpha=1)");
  EXPECT_EQ(g.signature().defn({.prefix = "Tensor::"}),
            "at::Tensor Tensor::add(const at::Tensor & other, const at::Scalar & alpha)");
  const auto& f = fn("add.Tensor");
  auto d = DispatcherSignature::fromSchema(f.func, Options::of(f));
  EXPECT_EQ(exprs(translate(g.signature().arguments(), d.arguments(), {.method = true})),
            (Strings{"const_cast<Tensor&>(*this)", "other", "alpha"}));
  // Without the implicit this, self cannot be found.
  EXPECT_FALSE(translate(g.signature().arguments(), d.arguments()).ok());
}

TEST_F(Api, AddOut) {
  auto g = cppGroup("add.out");
  EXPECT_EQ(g.signature().decl(),
            "at::Tensor & add_out(at::Tensor & out, const at::Tensor & self, const at::Tensor & other, const "
            "at::Scalar & alpha=1)");
  ASSERT_TRUE(g.faithfulSignature());
  EXPECT_EQ(g.faithfulSignature()->decl(),
            "at::Tensor & add_outf(const at::Tensor & self, const at::Tensor & other, const at::Scalar & alpha, "
            "at::Tensor & out)");
  EXPECT_EQ(&g.mostFaithfulSignature(), &*g.faithfulSignature());
  EXPECT_EQ(cpp::returnNames(fn("add.out")), Strings{"out"});
  EXPECT_EQ(cpp::returnNames(fn("add_.Tensor")), Strings{"self"});
  NativeSignature n(fn("add.out").func, false, Options::of(fn("add.out")));
  EXPECT_EQ(n.decl(),
            "at::Tensor & add_out_out(const at::Tensor & self, const at::Tensor & other, const at::Scalar & alpha, "
            "at::Tensor & out)");
}

TEST_F(Api, ForeachAdd) {
  EXPECT_EQ(cppGroup("_foreach_add_.List").signature().decl(),
            "void _foreach_add_(at::TensorList self, at::TensorList other, const at::Scalar & alpha=1)");
  EXPECT_EQ(
      cppGroup("_foreach_add.List").signature().decl(),
      "::std::vector<at::Tensor> _foreach_add(at::TensorList self, at::TensorList other, const at::Scalar & alpha=1)");
  // As part of a structured group, tensor lists become ITensorListRef.
  const auto& f = fn("_foreach_add.List");
  auto d = DispatcherSignature::fromSchema(f.func, Options{false, true});
  EXPECT_EQ(d.decl(),
            "::std::vector<at::Tensor> _foreach_add(const at::ITensorListRef & self, const at::ITensorListRef & other, "
            "const at::Scalar & alpha)");
}

TEST_F(Api, EmptyMemoryFormatTensorOptions) {
  const auto& f = fn("empty.memory_format");
  auto g = cppGroup("empty.memory_format");
  EXPECT_EQ(g.signature().decl(),
            "at::Tensor empty(at::IntArrayRef size, at::TensorOptions options={}, ::std::optional<at::MemoryFormat> "
            "memory_format=::std::nullopt)");
  ASSERT_TRUE(g.symintFaithfulSignature());
  EXPECT_EQ(g.symintFaithfulSignature()->decl(),
            "at::Tensor empty_symint(c10::SymIntArrayRef size, ::std::optional<at::ScalarType> dtype, "
            "::std::optional<at::Layout> layout, ::std::optional<at::Device> device, ::std::optional<bool> pin_memory, "
            "::std::optional<at::MemoryFormat> memory_format)");
  EXPECT_EQ(g.signatures().size(), 4u);
  EXPECT_EQ(g.signatures(false).size(), 2u);
  const Binding& options = g.signature().arguments()[1];
  EXPECT_TRUE(options.tensorOptions());
  EXPECT_EQ(g.signature().arguments()[2].nctype.name.str(), "SpecialArgName.possibly_redundant_memory_format");
  auto d = DispatcherSignature::fromSchema(f.func, Options::of(f));
  EXPECT_EQ(exprs(translate(g.signature().arguments(), d.arguments())),
            (Strings{"c10::fromIntArrayRefSlow(size)", "c10::optTypeMetaToScalarType(options.dtype_opt())",
                     "options.layout_opt()", "options.device_opt()", "options.pinned_memory_opt()",
                     "c10::impl::check_tensor_options_and_extract_memory_format(options, memory_format)"}));
  NativeSignature n(f.func, false, Options::of(f));
  EXPECT_EQ(n.decl(),
            "at::Tensor empty_memory_format(at::IntArrayRef size, ::std::optional<at::ScalarType> dtype={}, "
            "::std::optional<at::Layout> layout={}, ::std::optional<at::Device> device={}, ::std::optional<bool> "
            "pin_memory={}, ::std::optional<at::MemoryFormat> memory_format=::std::nullopt)");
}

TEST_F(Api, IndexWithOptionalTensorList) {
  const auto& f = fn("index.Tensor");
  EXPECT_EQ(cppGroup("index.Tensor").signature().decl(),
            "at::Tensor index(const at::Tensor & self, const c10::List<::std::optional<at::Tensor>> & indices)");
  const auto& g = group("index.Tensor");
  auto meta = structured::metaArguments(g);
  ASSERT_EQ(meta.size(), 2u);
  EXPECT_EQ(meta[1].decl(), "at::IOptTensorListRef indices");
  EXPECT_EQ(StructuredImplSignature(g, "index_out").defn(),
            "TORCH_IMPL_FUNC(index_out)(const at::Tensor & self, at::DimVector sizes, at::DimVector strides, const "
            "at::Tensor & out)");
  // The wrapper's arguments, then the precomputed values and the outputs, feed the impl call.
  NativeSignature sig(f.func, false, Options::of(f), "wrapper_CPU_");
  std::vector<Expr> ctx = toExprs(sig.arguments());
  EXPECT_EQ(exprs(translate(ctx, structured::metaArguments(g))), (Strings{"self", "at::IOptTensorListRef(indices)"}));
  for (const auto& [name, elems] : g.out->precomputed->replace)
    for (const auto& a : elems) ctx.push_back(Expr{"precompute." + a.name, structured::argumentType(a, a.name)});
  ctx.push_back(Expr{"op.outputs_[0]", NamedCType{"out", CType::mutRef(CType::base(tensorT))}});
  EXPECT_EQ(exprs(translate(ctx, structured::implArguments(g))),
            (Strings{"self", "precompute.sizes", "precompute.strides", "op.outputs_[0]"}));
  EXPECT_EQ(meta::name(g), "index_Tensor");
}

TEST_F(Api, SymIntList) {
  auto g = cppGroup("view", true);
  EXPECT_EQ(g.signature().decl(), "at::Tensor view(at::IntArrayRef size)");
  ASSERT_TRUE(g.symintSignature());
  EXPECT_EQ(g.symintSignature()->decl(), "at::Tensor view_symint(c10::SymIntArrayRef size)");
  EXPECT_EQ(g.symintSignature()->decl({.suppressSymintSuffix = true}), "at::Tensor view(c10::SymIntArrayRef size)");
  const auto& f = fn("view");
  auto d = DispatcherSignature::fromSchema(f.func, Options::of(f));
  EXPECT_EQ(d.decl(), "at::Tensor view(const at::Tensor & self, c10::SymIntArrayRef size)");
  EXPECT_EQ(exprs(translate(g.signature().arguments(), d.arguments(), {.method = true})),
            (Strings{"const_cast<Tensor&>(*this)", "c10::fromIntArrayRefSlow(size)"}));
  auto dInt = DispatcherSignature::fromSchema(f.func, Options::of(f), "", false);
  EXPECT_EQ(exprs(translate(d.arguments(), dInt.arguments())), (Strings{"self", "C10_AS_INTARRAYREF_SLOW(size)"}));
  EXPECT_EQ(cpp::defaultExpr("1", *model::Type::parse("SymInt[]"), true), "c10::SymInt(1)");
}

TEST_F(Api, TupleReturn) {
  EXPECT_EQ(cppGroup("max.dim").signature().decl(),
            "::std::tuple<at::Tensor,at::Tensor> max(const at::Tensor & self, int64_t dim, bool keepdim=false)");
  EXPECT_EQ(cpp::returnNames(fn("max.dim")), (Strings{"values", "indices"}));
  auto out = cppGroup("max.dim_max");
  EXPECT_EQ(out.signature().decl(),
            "::std::tuple<at::Tensor &,at::Tensor &> max_out(at::Tensor & max, at::Tensor & max_values, const "
            "at::Tensor & self, int64_t dim, bool keepdim=false)");
  EXPECT_EQ(out.faithfulSignature()->decl(),
            "::std::tuple<at::Tensor &,at::Tensor &> max_outf(const at::Tensor & self, int64_t dim, bool keepdim, "
            "at::Tensor & max, at::Tensor & max_values)");
  EXPECT_EQ(cpp::returnNames(fn("max.dim_max")), (Strings{"max", "max_values"}));
}

TEST_F(Api, ConstRefForMutableTensors) {
  const auto& f = fn("resize_");
  EXPECT_TRUE(Options::of(f).constRefForMutableTensors);
  EXPECT_EQ(cppGroup("resize_", true).signature().decl(),
            "const at::Tensor & resize_(at::IntArrayRef size, ::std::optional<at::MemoryFormat> "
            "memory_format=::std::nullopt)");
  EXPECT_EQ(DispatcherSignature::fromSchema(f.func, Options::of(f)).decl(),
            "const at::Tensor & resize_(const at::Tensor & self, c10::SymIntArrayRef size, "
            "::std::optional<at::MemoryFormat> memory_format)");
  EXPECT_EQ(DispatcherSignature::fromSchema(f.func, Options{}).decl(),
            "at::Tensor & resize_(at::Tensor & self, c10::SymIntArrayRef size, ::std::optional<at::MemoryFormat> "
            "memory_format)");
}

TEST_F(Api, KernelSignature) {
  const auto& f = fn("view");
  const auto& meta = ops_->index(model::DispatchKey::Meta);
  auto k = kernelSignature(f, meta, Options::of(f));
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(k->native());
  EXPECT_TRUE(k->symint());  // view_symint
  EXPECT_EQ(k->decl(), "at::Tensor view(const at::Tensor & self, c10::SymIntArrayRef size)");
  auto cpu = kernelSignature(f, ops_->index(model::DispatchKey::CPU), Options::of(f), "wrapper_");
  ASSERT_TRUE(cpu.ok());
  EXPECT_FALSE(cpu->symint());
  EXPECT_EQ(cpu->name(), "wrapper_view");
  // An external backend follows the dispatcher's convention.
  model::BackendIndex external(model::DispatchKey::XLA, false, false, true);
  external.add(f.func.name, model::BackendMetadata{"view_symint", false, "torch_xla"});
  auto x = kernelSignature(f, external, Options::of(f));
  ASSERT_TRUE(x.ok());
  EXPECT_TRUE(x->dispatcher());
  // A SymInt kernel for a schema without SymInt is an error.
  model::BackendIndex bad(model::DispatchKey::CPU, true, false, false);
  bad.add(fn("add.Tensor").func.name, model::BackendMetadata{"add_symint", false, "at::native"});
  EXPECT_FALSE(kernelSignature(fn("add.Tensor"), bad, Options{}).ok());
}

TEST_F(Api, Functionalization) {
  model::NativeFunctionsViewGroup g{&fn("transpose.int"), &fn("transpose_copy.int"), nullptr};
  const Options opts = Options::of(g);
  EXPECT_EQ(ViewInverseSignature(g, opts).decl(),
            "static at::Tensor transpose_int_inverse(const at::Tensor & base, const at::Tensor & mutated_view, "
            "at::functionalization::InverseReturnMode inverse_return_mode, int64_t dim0, int64_t dim1);");
  EXPECT_EQ(functionalization::classname(g.view->func, true), "at::functionalization::transpose_int_ViewMeta");
  EXPECT_EQ(functionalization::reverseName(*g.view, true),
            "at::functionalization::FunctionalInverses::transpose_int_inverse");
  EXPECT_FALSE(functionalization::isMultiOutput(g.view->func));
  EXPECT_EQ(joinDecls(functionalization::attributes(fn("view").func, opts)),
            "bool reapply_views, at::functionalization::InverseReturnMode inverse_return_mode, "
            "::std::vector<c10::SymInt> size");
  auto extra = functionalization::extraCtorArguments(fn("view").func, opts);
  auto assigned =
      translate(extra, functionalization::attributes(fn("view").func, opts), {.allowExpensiveConversions = true});
  EXPECT_EQ(exprs(assigned), (Strings{"reapply_views", "inverse_return_mode", "size.vec()"}));
  EXPECT_FALSE(translate(extra, functionalization::attributes(fn("view").func, opts)).ok());
}

TEST_F(Api, Ufunc) {
  const auto& g = group("add.Tensor");
  EXPECT_EQ(ufunc::kernelName(g, model::DispatchKey::CUDA), "ufunc_add_CUDA");
  EXPECT_EQ(joinDecls(ufunc::stubArguments(g)), "const at::Scalar & alpha");
  auto onSelf = ufunc::ufunctorArguments(g, 1, scalar_t);
  EXPECT_EQ(joinDecls(onSelf.ctor), "opmath_t other, opmath_t alpha");
  EXPECT_EQ(joinDecls(onSelf.apply), "scalar_t self");
  std::vector<Binding> ctx;
  for (const auto& b : onSelf.ctor) ctx.push_back(b.withName(b.name + "_"));
  for (const auto& b : onSelf.apply) ctx.push_back(b);
  EXPECT_EQ(exprs(translate(ctx, ufunc::ufuncArguments(g, CType::base(opmath_t)))),
            (Strings{"static_cast<opmath_t>(self)", "other_", "alpha_"}));
  EXPECT_EQ(
      joinDecls(ufunc::ufuncArguments(g, CType::vectorized(CType::base(scalar_t)))),
      "at::vec::Vectorized<scalar_t> self, at::vec::Vectorized<scalar_t> other, at::vec::Vectorized<scalar_t> alpha");
}

TEST(ApiTypes, CTypeSpelling) {
  CType t = CType::constRef(CType::list(CType::optional(CType::base(tensorT))));
  EXPECT_EQ(t.cppType(), "const c10::List<::std::optional<at::Tensor>> &");
  EXPECT_EQ(t.cppType(true), "c10::List<::std::optional<at::Tensor>>");
  EXPECT_EQ(t.removeConstRef().cppType(), "c10::List<::std::optional<at::Tensor>>");
  CType tup = CType::tuple(
      {CType::mutRef(CType::base(tensorT)), CType::vector(CType::base(longT)), CType::array(CType::base(boolT), 3)});
  EXPECT_EQ(tup.cppType(), "::std::tuple<at::Tensor &,::std::vector<int64_t>,::std::array<bool,3>>");
  EXPECT_EQ(tup.removeConstRef().cppType(), "::std::tuple<at::Tensor,::std::vector<int64_t>,::std::array<bool,3>>");
  // strip_ref applies at the top only.
  EXPECT_EQ(CType::optional(CType::constRef(CType::base(scalarT))).cppType(true),
            "::std::optional<const at::Scalar &>");
  EXPECT_EQ(CType::constRef(CType::base(tensorT)), CType::constRef(CType::base(tensorT)));
  EXPECT_NE(CType::constRef(CType::base(tensorT)), CType::mutRef(CType::base(tensorT)));
  EXPECT_NE(CType::array(CType::base(boolT), 2), CType::array(CType::base(boolT), 3));
  EXPECT_EQ(NamedCType({"x", CType::base(longT)}).withName("y").name, ArgName("y"));
  EXPECT_FALSE(ArgName::possiblyRedundantMemoryFormat() == ArgName("memory_format"));
}

TEST(ApiCpp, DefaultsAndValueTypes) {
  auto type = [](const char* t) { return *model::Type::parse(t); };
  EXPECT_EQ(cpp::defaultExpr("'a\\'b\"c'", type("str"), false), "\"a'b\\\"c\"");
  EXPECT_EQ(cpp::defaultExpr("None", type("Tensor?"), false), "{}");
  EXPECT_EQ(cpp::defaultExpr("None", type("int?"), false), "::std::nullopt");
  EXPECT_EQ(cpp::defaultExpr("[0,1]", type("int[2]"), false), "{0,1}");
  EXPECT_EQ(cpp::defaultExpr("1", type("int[2]"), false), "1");
  EXPECT_EQ(cpp::defaultExpr("Mean", type("int"), false), "at::Reduction::Mean");
  EXPECT_EQ(cpp::defaultExpr("contiguous_format", type("MemoryFormat?"), false), "c10::MemoryFormat::Contiguous");
  const Options o;
  EXPECT_EQ(cpp::argumenttypeType(type("Tensor?"), true, "x", o).cppType(), "at::Tensor &");  // torchgen's discrepancy
  EXPECT_EQ(native::argumenttypeType(type("Tensor?"), true, "x", false, o).cppType(), "::std::optional<at::Tensor> &");
  EXPECT_EQ(structured::argumenttypeType(type("Tensor?"), false, "x").cppType(), "at::OptionalTensorRef");
  EXPECT_EQ(cpp::argumenttypeType(type("float[]?"), false, "x", o).cppType(), "::std::optional<at::ArrayRef<double>>");
  EXPECT_EQ(cpp::argumenttypeType(type("int[]?"), false, "x", o).cppType(), "at::OptionalIntArrayRef");
  EXPECT_EQ(cpp::argumenttypeType(type("int[]"), false, "x", o, true).cppType(), "::std::vector<int64_t>");
  EXPECT_EQ(cpp::returnsType({*model::Return::parse("SymInt")}, o).cppType(), "c10::SymInt");
}

TEST(ApiCpp, CheckSupported) {
  auto check = [](const char* schema) { return cpp::checkSupported(*model::FunctionSchema::parse(schema)); };
  EXPECT_FALSE(check("f(Tensor self, int[2] x=1, SymInt[] s=[]) -> (Tensor, Tensor[])"));
  EXPECT_TRUE(check("f(Tensor self, bool[] flags) -> Tensor"));
  EXPECT_TRUE(check("f(Tensor self, int[] dims=1) -> Tensor"));
  EXPECT_TRUE(check("f(Tensor self) -> int[2]"));
  EXPECT_TRUE(check("f(Tensor self) -> Scalar?"));
  EXPECT_TRUE(check("f(Tensor self, __torch__.torch.classes.foo.Bar obj) -> Tensor"));
}

TEST(ApiTranslate, UnsatisfiableGoalIsAnError) {
  std::vector<Expr> ctx{Expr{"x", NamedCType{"x", CType::base(longT)}}};
  std::vector<NamedCType> goals{NamedCType{"y", CType::base(longT)}};
  auto r = translate(ctx, goals);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("Failed to synthesize the expression \"int64_t y\""), std::string::npos);
  EXPECT_NE(r.error().message.find("int64_t x; // x"), std::string::npos);
  // int64_t from SymInt, optional SymInt from optional int64_t, later bindings shadow earlier ones.
  ctx = {Expr{"a", NamedCType{"n", CType::base(SymIntT)}},
         Expr{"b", NamedCType{"m", CType::optional(CType::base(longT))}},
         Expr{"c", NamedCType{"n", CType::base(SymIntT)}}};
  goals = {NamedCType{"n", CType::base(longT)}, NamedCType{"m", CType::optional(CType::base(SymIntT))}};
  r = translate(ctx, goals);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].expr, "c.guard_int(__FILE__, __LINE__)");
  EXPECT_EQ((*r)[1].expr, "b.has_value() ? ::std::make_optional(c10::SymInt(*b)) : ::std::nullopt");
  // libtorch 1.x: c10::optional is not std::optional, so both branches are c10's.
  goals = {NamedCType{"m", CType::optional(CType::base(SymIntT))}};
  r = translate(ctx, goals, TranslateOptions{.libtorch = LibtorchFacts::ofVersion(1, 13)});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].expr, "b.has_value() ? c10::make_optional(c10::SymInt(*b)) : c10::nullopt");
}

}  // namespace
}  // namespace opgen::api
