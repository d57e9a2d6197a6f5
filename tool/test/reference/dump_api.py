#!/usr/bin/env python3
"""Prints, for every native function, group and view group of a native_functions.yaml, the strings that
torchgen's api layer (torchgen.api: cpp, dispatcher, native, structured, meta, translate,
functionalization, ufunc, and the signatures of api/types) produces for it, so that opgen's api layer
(tool/src/api) can be compared with it (tool/test/Api_conformance_test.cpp). Run it with the reference
torchgen importable:

    torchgen-ref python dump_api.py NATIVE_FUNCTIONS_YAML TAGS_YAML  ->  JSON on stdout

The JSON (the contract with the test, which computes the same records with opgen):
  {"functions": [RECORD...], "groups": [RECORD...], "view_groups": [RECORD...]}
  RECORD = {"key": "...", "fields": {PATH: VALUE}}: one per native function ("add.Tensor"), per
  NativeFunctionsGroup ("group add.Tensor") and per NativeFunctionsViewGroup ("view transpose.int"), in
  torchgen's order. VALUE is a string, a bool or a list of strings. A translate() that fails is the string
  "<unsat>". A record whose computation raised in torchgen is {"unsupported": "true"} only.

Everything is computed inside torchgen's native_function_manager, as its generators do; the "alt_*" fields
repeat some signatures with one of the thread-local settings flipped (use_const_ref_for_mutable_tensors,
use_ilistref_for_tensor_lists), for functions where it can matter. The field names are documented by the
code below; each group of fields mirrors one use in torchgen's gen.py, dest/register_dispatch_key.py,
gen_functionalization_type.py or dest/ufunc.py.
"""

from __future__ import annotations

import json
import sys


def main(native_yaml: str, tags_yaml: str) -> None:
    from torchgen import local
    from torchgen.api import cpp, dispatcher, functionalization, meta, structured, ufunc
    from torchgen.api.translate import translate, UnsatError
    from torchgen.api.types import (
        BaseCType,
        Binding,
        ConstRefCType,
        CppSignatureGroup,
        DispatcherSignature,
        Expr,
        MutRefCType,
        NamedCType,
        NativeSignature,
        opmath_t,
        scalar_t,
        SpecialArgName,
        StructuredImplSignature,
        tensorT,
        VectorizedCType,
        ViewInverseSignature,
    )
    from torchgen.context import native_function_manager
    from torchgen.gen import (
        get_grouped_by_view_native_functions,
        get_grouped_native_functions,
        parse_native_yaml,
    )
    from torchgen.model import (
        Argument,
        BaseTy,
        BaseType,
        DispatchKey,
        NativeFunctionsGroup,
        NativeFunctionsViewGroup,
        TensorOptionsArguments,
        Variant,
    )

    parsed = parse_native_yaml(native_yaml, tags_yaml)
    native_functions = parsed.native_functions

    # -------------------------------------------------------------------------------------------------
    # Renderings

    def name_str(n) -> str:
        return str(n) if isinstance(n, SpecialArgName) else n

    def binding_str(b: Binding) -> str:
        if isinstance(b.argument, Argument):
            kind = "arg:" + b.argument.name
        elif isinstance(b.argument, TensorOptionsArguments):
            kind = "options"
        else:
            kind = "self:" + b.argument.argument.name
        return f"{b.decl()} | {b.decl(func_ptr_cast=True)} | {name_str(b.nctype.name)} | {kind}"

    def bindings(bs) -> list[str]:
        return [binding_str(b) for b in bs]

    def exprs_of(bs, goals, **kwargs):
        try:
            return [e.expr for e in translate(bs, goals, **kwargs)]
        except UnsatError:
            return "<unsat>"

    def unwrapped(sig, suffix: str) -> list[Binding]:
        # gen_functionalization_type.unwrap_tensor_args / convert_to_meta_tensors
        ctx = []
        for arg in sig.arguments():
            if isinstance(arg.argument, Argument) and arg.argument.type.is_tensor_like():
                ctx.append(arg.with_name(arg.name + suffix))
            else:
                ctx.append(arg)
        return ctx

    # -------------------------------------------------------------------------------------------------
    # Native functions

    def cpp_sig_fields(out: dict, p: str, f, sig, method: bool) -> None:
        out[p + "name"] = sig.name()
        out[p + "name_suppress"] = sig.name(suppress_symint_suffix=True)
        out[p + "decl"] = sig.decl()
        out[p + "decl_redispatch"] = sig.decl(is_redispatching_fn=True)
        out[p + "decl_suppress"] = sig.decl(suppress_symint_suffix=True)
        out[p + "decl_named"] = sig.decl(name="wrapper_fn")
        out[p + "defn"] = sig.defn()
        out[p + "defn_prefix"] = sig.defn(prefix="Tensor::")
        out[p + "defn_redispatch"] = sig.defn(is_redispatching_fn=True)
        out[p + "ptr_type"] = sig.ptr_type()
        out[p + "type"] = sig.type()
        out[p + "args"] = bindings(sig.arguments())
        out[p + "to_dispatcher"] = exprs_of(
            sig.arguments(), DispatcherSignature.from_schema(f.func).arguments(), method=method
        )

    def cpp_group_fields(out: dict, p: str, f, method: bool, fallback: bool) -> None:
        group = CppSignatureGroup.from_native_function(f, method=method, fallback_binding=fallback)
        for label in ("signature", "faithful_signature", "symint_signature", "symint_faithful_signature"):
            sig = getattr(group, label)
            if sig is not None:
                cpp_sig_fields(out, f"{p}{label}/", f, sig, method)
        out[p + "most_faithful"] = group.most_faithful_signature().name()

    def function_fields(f) -> dict:
        out: dict = {}
        func = f.func
        has_symint = func.has_symint()
        cpp_group_fields(out, "cpp/", f, False, f.manual_cpp_binding)
        if Variant.method in f.variants:
            cpp_group_fields(out, "cpp_method/", f, True, f.manual_cpp_binding)
        if f.manual_cpp_binding:
            g = CppSignatureGroup.from_native_function(f, method=False, fallback_binding=False)
            out["cpp_nofallback/names"] = [s.name() for s in g.signatures()]

        # cpp.py on its own
        sargs = list(func.schema_order_arguments())
        out["cpp/return_names"] = list(cpp.return_names(f))
        out["cpp/return_names_fallback"] = list(cpp.return_names(f, fallback_name="out"))
        out["cpp/returns_type"] = cpp.returns_type(func.returns, symint=False).cpp_type()
        out["cpp/return_types"] = [cpp.return_type(r, symint=False).cpp_type() for r in func.returns]
        out["cpp/argument_types"] = [
            cpp.argument_type(a, binds="__placeholder__", symint=False).cpp_type() for a in sargs
        ]
        out["cpp/argument_types_symint"] = [
            cpp.argument_type(a, binds="__placeholder__", symint=True).cpp_type() for a in sargs
        ]
        out["cpp/argument_types_immutable"] = [
            cpp.argumenttype_type(a.type, mutable=False, binds="x", symint=False).cpp_type() for a in sargs
        ]
        out["cpp/argument_types_owning"] = [
            cpp.argumenttype_type(
                a.type, mutable=a.is_write, binds="x", remove_non_owning_ref_types=True, symint=True
            ).cpp_type()
            for a in sargs
        ]
        types = [cpp.argument_type(a, binds="x", symint=True) for a in sargs]
        out["cpp/argument_types_no_ref"] = [t.remove_const_ref().cpp_type() for t in types]
        out["cpp/argument_types_strip_ref"] = [t.cpp_type(strip_ref=True) for t in types]
        out["cpp/default_exprs"] = [
            "" if a.default is None else cpp.default_expr(a.default, a.type, symint=False) for a in sargs
        ]
        out["cpp/default_exprs_symint"] = [
            "" if a.default is None else cpp.default_expr(a.default, a.type, symint=True) for a in sargs
        ]
        out["cpp/schema_order_types"] = [
            r.type
            for a in sargs
            for r in cpp.argument(
                a,
                method=False,
                cpp_no_default_args=set(),
                faithful=False,
                symint=False,
                has_tensor_options=False,
            )
        ]

        # dispatcher.py and DispatcherSignature
        d = DispatcherSignature.from_schema(func)
        out["dispatcher/name"] = d.name()
        out["dispatcher/decl"] = d.decl()
        out["dispatcher/decl_named"] = d.decl(name="wrapper_fn")
        out["dispatcher/defn"] = d.defn()
        out["dispatcher/defn_redispatch"] = d.defn(is_redispatching_fn=True)
        out["dispatcher/type"] = d.type()
        out["dispatcher/ptr_type"] = d.ptr_type()
        out["dispatcher/args"] = bindings(d.arguments())
        out["dispatcher/exprs"] = [f"{e.expr}: {e.type.cpp_type()}" for e in d.exprs()]
        out["dispatcher/returns_no_ref"] = dispatcher.returns_type(func.returns).remove_const_ref().cpp_type()
        out["dispatcher/owning_args"] = [
            dispatcher.argument(a, remove_non_owning_ref_types=True).type for a in dispatcher.jit_arguments(func)
        ]
        out["dispatcher/registration_decl"] = (
            f"{dispatcher.returns_type(func.returns).cpp_type()} {dispatcher.name(func)}"
            f"({', '.join(a.no_default().decl() for a in dispatcher.arguments(func))})"
        )
        prefix = f"wrapper_CPU_{func.name.overload_name}_"
        out["dispatcher/prefixed_name"] = DispatcherSignature.from_schema(func, prefix=prefix).name()
        d_int = DispatcherSignature.from_schema(func, prefix=prefix, symint=False)
        if has_symint:
            out["dispatcher_int/decl"] = d_int.decl()
            out["dispatcher_int/args"] = bindings(d_int.arguments())

        # native.py and NativeSignature; the translations of register_dispatch_key's wrappers
        for symint in [False, True] if has_symint else [False]:
            p = "native_symint/" if symint else "native/"
            n = NativeSignature(func, symint=symint)
            out[p + "name"] = n.name()
            out[p + "decl"] = n.decl()
            out[p + "decl_named"] = n.decl(name="kernel")
            out[p + "defn"] = n.defn()
            out[p + "ptr_type"] = n.ptr_type()
            out[p + "args"] = bindings(n.arguments())
            out[p + "dispatcher_exprs"] = exprs_of(n.arguments(), dispatcher.arguments(func))
            out[p + "prefixed_name"] = NativeSignature(func, symint=symint, prefix="wrapper_CPU_").name()
            # gen_unstructured: dispatcher-convention wrapper -> kernel
            out[p + "from_dispatcher"] = exprs_of(d.arguments(), n.arguments(), method=False)
            out[p + "from_dispatcher_int"] = exprs_of(d_int.arguments(), n.arguments(), method=False)
            # NAMESPACED_DEFINITION: at::cpu::NAME(...) -> the wrapper
            direct = CppSignatureGroup.from_native_function(f, method=False, fallback_binding=False)
            out[p + "from_cpp"] = [exprs_of(s.arguments(), n.arguments()) for s in direct.signatures()]
        direct = CppSignatureGroup.from_native_function(f, method=False, fallback_binding=False)
        out["rdk/cpp_to_dispatcher_int"] = [exprs_of(s.arguments(), d_int.arguments()) for s in direct.signatures()]

        # gen.translate_args (static dispatch): dispatcher -> the C++ API, memory_format joined
        goal = direct.signature
        src = list(d.arguments())
        if any(b.nctype.name == SpecialArgName.possibly_redundant_memory_format for b in goal.arguments()):
            src = [
                Binding(
                    nctype=NamedCType(SpecialArgName.possibly_redundant_memory_format, b.nctype.type),
                    name=b.name,
                    default=b.default,
                    argument=b.argument,
                )
                if b.name == "memory_format"
                else b
                for b in src
            ]
        out["static_dispatch_args"] = exprs_of(src, goal.arguments())

        # functionalization: unwrapped arguments back into the op
        out["functionalization/unwrapped_to_self"] = exprs_of(unwrapped(d, "_"), d.arguments(), method=False)

        # translations across conventions, some of which torchgen cannot do (both sides must agree)
        owning = [dispatcher.argument(a, remove_non_owning_ref_types=True) for a in dispatcher.jit_arguments(func)]
        out["cross/native_to_cpp"] = exprs_of(NativeSignature(func, symint=False).arguments(), direct.signature.arguments())
        out["cross/owning_to_dispatcher"] = exprs_of(owning, d.arguments())
        out["cross/dispatcher_to_owning"] = exprs_of(d.arguments(), owning)
        out["cross/dispatcher_to_owning_expensive"] = exprs_of(d.arguments(), owning, allow_expensive_conversions=True)
        out["cross/cpp_to_structured"] = exprs_of(
            direct.signature.arguments(),
            [b for a in func.arguments.non_out if not isinstance(a, TensorOptionsArguments) for b in structured.argument(a)],
        )
        return out

    def alt_fields(f) -> dict:
        """Signatures under the other settings of torchgen's thread-local flags, where they can matter."""
        out: dict = {}
        func = f.func
        writes = any(a.is_write for a in func.arguments.flat_all) or any(r.is_write for r in func.returns)
        lists = any(a.type.is_tensor_like() and a.type.is_list_like() for a in func.arguments.flat_all)
        variants = []
        if writes:
            variants.append(("alt_constref/", not f.use_const_ref_for_mutable_tensors, f.part_of_structured_group))
        if lists:
            variants.append(("alt_ilist/", f.use_const_ref_for_mutable_tensors, not f.part_of_structured_group))
        for p, const_ref, ilist in variants:
            with local.parametrize(use_const_ref_for_mutable_tensors=const_ref, use_ilistref_for_tensor_lists=ilist):
                group = CppSignatureGroup.from_native_function(f, method=False, fallback_binding=False)
                out[p + "cpp"] = [s.decl() for s in group.signatures()]
                d = DispatcherSignature.from_schema(func)
                out[p + "dispatcher"] = d.decl()
                out[p + "native"] = NativeSignature(func, symint=False).decl()
                out[p + "cpp_to_dispatcher"] = [exprs_of(s.arguments(), d.arguments()) for s in group.signatures()]
        return out

    # -------------------------------------------------------------------------------------------------
    # Groups

    def structured_fields(out: dict, g) -> None:
        out["structured/meta_args"] = bindings(structured.meta_arguments(g))
        out["structured/impl_args"] = bindings(structured.impl_arguments(g))
        out["structured/out_args"] = bindings(structured.out_arguments(g))
        out["structured/impl_defn"] = StructuredImplSignature(g, "impl_name").defn()
        out["structured/impl_to_dispatcher"] = exprs_of(
            structured.impl_arguments(g), DispatcherSignature.from_schema(g.out.func).arguments()
        )
        for f in g.functions():
            with native_function_manager(f):
                k = f.func.kind()
                for symint in [False, True] if f.func.has_symint() else [False]:
                    p = f"structured/{f.func.name}{'/symint' if symint else ''}/"
                    sig = NativeSignature(f.func, prefix="wrapper_CPU_", symint=symint)
                    context = list(sig.arguments())
                    out[p + "meta"] = exprs_of(context, structured.meta_arguments(g), method=False)
                    if g.out.precomputed:
                        for elems in [*g.out.precomputed.replace.values(), g.out.precomputed.add]:
                            context.extend(
                                Expr(
                                    expr=f"precompute.{arg.name}",
                                    type=structured.argument_type(arg, binds=arg.name),
                                )
                                for arg in elems
                            )
                    for i, out_arg in enumerate(structured.out_arguments(g)):
                        expr = f"op.maybe_get_output({i})" if k.name == "out" else f"op.outputs_[{i}]"
                        context.append(
                            Expr(expr=expr, type=NamedCType(out_arg.nctype.name, MutRefCType(BaseCType(tensorT))))
                        )
                    out[p + "impl"] = exprs_of(context, structured.impl_arguments(g), method=False)
                    out_sig = CppSignatureGroup.from_native_function(
                        g.out, method=False, fallback_binding=f.manual_cpp_binding
                    ).most_faithful_signature()
                    out[p + "composite_name"] = out_sig.name()
                    out[p + "composite"] = exprs_of(context, out_sig.arguments(), method=False)
                    direct = CppSignatureGroup.from_native_function(f, method=False, fallback_binding=False)
                    out[p + "from_cpp"] = [exprs_of(s.arguments(), sig.arguments()) for s in direct.signatures()]

    def ufunc_fields(out: dict, g) -> None:
        out["ufunc/kernel_name_cpu"] = ufunc.kernel_name(g, DispatchKey.CPU)
        out["ufunc/kernel_name_cuda"] = ufunc.kernel_name(g, DispatchKey.CUDA)
        stub = ufunc.stub_arguments(g)
        out["ufunc/stub_args"] = bindings(stub)
        computes = {
            "opmath": BaseCType(opmath_t),
            "scalar": BaseCType(scalar_t),
            "vec": VectorizedCType(BaseCType(scalar_t)),
        }
        for label, compute_t in computes.items():
            out[f"ufunc/ufunc_args_{label}"] = bindings(ufunc.ufunc_arguments(g, compute_t=compute_t))
        impl = StructuredImplSignature(g, ufunc.kernel_name(g, DispatchKey.CPU))
        out["ufunc/stub_call"] = exprs_of(impl.arguments(), stub)
        ntensors = sum(1 for a in g.functional.func.arguments.flat_non_out if a.type.is_tensor_like())
        for idx, ctor_tensor in [(None, None), (0, "self"), (1, "other")]:
            if idx is not None and ntensors != 2:
                continue
            p = f"ufunc/functor_{idx}/"
            b = ufunc.ufunctor_arguments(g, scalar_tensor_idx=idx, scalar_t=scalar_t)
            out[p + "ctor"] = bindings(b.ctor)
            out[p + "apply"] = bindings(b.apply)
            fields = [x.rename(f"{x.name}_") for x in b.ctor]
            out[p + "call"] = exprs_of(fields + b.apply, ufunc.ufunc_arguments(g, compute_t=BaseCType(opmath_t)))
            ctx = list(impl.arguments())
            if ctor_tensor is not None:
                ctx.append(
                    Expr(expr=f"iter.scalar_value<opmath_t>({idx + 1})", type=NamedCType(ctor_tensor, BaseCType(opmath_t)))
                )
            out[p + "ctor_exprs"] = exprs_of(ctx, b.ctor)
        # the CPU kernel's lambdas
        ctx = []
        for b in stub:
            if isinstance(b.argument, Argument) and b.argument.type != BaseType(BaseTy.Scalar):
                continue
            ctx.append(Expr(f"_s_{b.name}", NamedCType(b.nctype.name, BaseCType(scalar_t))))
        vctx = list(ctx)
        for b in stub:
            if isinstance(b.argument, Argument) and b.argument.type != BaseType(BaseTy.Scalar):
                continue
            vctx.append(Expr(f"_v_{b.name}", NamedCType(b.nctype.name, VectorizedCType(BaseCType(scalar_t)))))
        sb, vb = [], []
        for a in g.functional.func.arguments.flat_non_out:
            if not a.type.is_tensor_like():
                continue
            sb.append(Binding(name=a.name, nctype=NamedCType(a.name, BaseCType(scalar_t)), argument=a))
            vb.append(
                Binding(name=a.name, nctype=NamedCType(a.name, VectorizedCType(BaseCType(scalar_t))), argument=a)
            )
        out["ufunc/cpu_scalar_lambda"] = [b.decl() for b in sb]
        out["ufunc/cpu_vec_lambda"] = [b.decl() for b in vb]
        out["ufunc/cpu_scalar_call"] = exprs_of(ctx + sb, ufunc.ufunc_arguments(g, compute_t=BaseCType(scalar_t)))
        out["ufunc/cpu_vec_call"] = exprs_of(
            vctx + vb, ufunc.ufunc_arguments(g, compute_t=VectorizedCType(BaseCType(scalar_t)))
        )

    def group_fields(g) -> dict:
        out: dict = {}
        with native_function_manager(g):
            out["meta_name"] = meta.name(g)
            if g.structured:
                structured_fields(out, g)
            if g.out.ufunc_inner_loop:
                ufunc_fields(out, g)
        # gen_out_inplace_wrapper
        for f in [g.inplace, g.out]:
            if f is None:
                continue
            with native_function_manager(f):
                p = f"out_inplace_wrapper/{f.func.name}/"
                sig = DispatcherSignature.from_schema(
                    f.func, prefix=f"wrapper_CPU_{f.func.name.overload_name}_", symint=False
                )
                functional_sig = DispatcherSignature.from_schema(
                    g.functional.func, prefix=f"wrapper_CPU_{g.functional.func.name.overload_name}_", symint=False
                )
                out[p + "callee"] = functional_sig.name()
                out[p + "call"] = exprs_of(sig.arguments(), functional_sig.arguments())
                out[p + "return_names"] = list(cpp.return_names(f))
                out[p + "returns_type"] = sig.returns_type().cpp_type()
        # functionalization of mutable operators
        for f in g.functions():
            if not any(a.annotation is not None and a.annotation.is_write for a in f.func.arguments.flat_all):
                continue
            with native_function_manager(f):
                p = f"functionalization/{f.func.name}/"
                d = DispatcherSignature.from_schema(f.func)
                functional_sig = DispatcherSignature.from_schema(g.functional.func)
                ctx = unwrapped(d, "_")
                out[p + "to_self"] = exprs_of(ctx, d.arguments(), method=False)
                out[p + "to_functional"] = exprs_of(ctx, functional_sig.arguments(), method=False)
                out[p + "functional_returns"] = (
                    dispatcher.returns_type(g.functional.func.returns).remove_const_ref().cpp_type()
                )
                out[p + "returns_no_ref"] = dispatcher.returns_type(f.func.returns).remove_const_ref().cpp_type()
        return out

    # -------------------------------------------------------------------------------------------------
    # View groups

    def view_group_fields(g) -> dict:
        out: dict = {}
        with native_function_manager(g):
            out["inverse_name"] = ViewInverseSignature(g).name()
            if not g.view.has_composite_implicit_autograd_kernel:
                out["inverse_decl"] = ViewInverseSignature(g).decl()
            if g.view_copy is not None:
                view_sig = DispatcherSignature(g.view.func)
                for symint in [False, True] if g.view_copy.func.has_symint() else [False]:
                    view_copy_sig = NativeSignature(g.view_copy.func, symint=symint)
                    out[f"view_copy_kernel/{symint}/defn"] = view_copy_sig.defn(name="kernel")
                    out[f"view_copy_kernel/{symint}/call"] = exprs_of(view_copy_sig.arguments(), view_sig.arguments())
        if g.view_copy is None:
            return out
        for f in [g.view, g.view_inplace]:
            if f is None:
                continue
            with native_function_manager(f):
                p = f"{f.func.name}/"
                func = f.func
                out[p + "classname"] = functionalization.classname(func)
                out[p + "classname_ns"] = functionalization.classname(func, with_namespace=True)
                out[p + "multi_output"] = functionalization.is_multi_output(func)
                out[p + "returns_type"] = functionalization.returns_type(func).cpp_type()
                base_ctor = functionalization.base_ctor_arguments(func)
                extra_ctor = functionalization.extra_ctor_arguments(func)
                attributes = functionalization.attributes(func)
                out[p + "base_ctor"] = bindings(base_ctor)
                out[p + "extra_ctor"] = bindings(extra_ctor)
                out[p + "attributes"] = bindings(attributes)
                try:
                    out[p + "ctor_assignments"] = [
                        f"{name_str(e.type.name)}({e.expr})"
                        for e in translate(extra_ctor, attributes, method=False, allow_expensive_conversions=True)
                    ]
                except UnsatError:
                    out[p + "ctor_assignments"] = "<unsat>"
                for is_reverse in (False, True):
                    q = p + ("reverse/" if is_reverse else "forward/")
                    op_arguments = functionalization.op_arguments(g.view_copy.func, is_reverse)
                    out[q + "op_args"] = bindings(op_arguments)
                    context = [functionalization.base_binding]
                    context += functionalization.base_ctor_arguments(func)
                    context += functionalization.attributes(func)
                    if is_reverse:
                        context.append(functionalization.mutated_view_binding)
                    out[q + "call"] = exprs_of(context, op_arguments, method=False)
                out[p + "forward_name_reapply"] = functionalization.name(
                    g, is_reverse=False, include_namespace=True, reapply_views=True
                )
                out[p + "forward_name_copy"] = functionalization.name(
                    g, is_reverse=False, include_namespace=True, reapply_views=False
                )
                out[p + "reverse_name"] = functionalization.name(g, is_reverse=True, include_namespace=True)
                call_sig = DispatcherSignature.from_schema(g.view_copy.func)
                d = DispatcherSignature.from_schema(func)
                out[p + "body/redispatch"] = exprs_of(unwrapped(d, "_"), call_sig.arguments(), method=False)
                out[p + "body/meta"] = exprs_of(unwrapped(d, "_meta"), call_sig.arguments(), method=False)
                out[p + "body/symint_args"] = [
                    f"{b.name}: {b.nctype.type.cpp_type()}"
                    for b in call_sig.arguments()
                    if isinstance(b.argument, Argument) and b.argument.type.is_symint_like()
                ]
                out[p + "body/returns"] = d.returns_type().remove_const_ref().cpp_type()
                out[p + "body/defn"] = d.defn(name="wrapper", is_redispatching_fn=True)
        return out

    # -------------------------------------------------------------------------------------------------

    def record(key: str, compute) -> dict:
        try:
            fields = compute()
        except Exception as e:  # torchgen refused (an AssertionError, KeyError, ValueError ...)
            if isinstance(e, UnsatError):
                raise
            fields = {"unsupported": "true"}
        return {"key": key, "fields": fields}

    functions = []
    for f in native_functions:

        def compute(f=f):
            with native_function_manager(f):
                fields = function_fields(f)
            fields.update(alt_fields(f))
            return fields

        functions.append(record(str(f.func.name), compute))

    groups = []
    views = []
    for g in get_grouped_native_functions(native_functions):
        if isinstance(g, NativeFunctionsGroup):
            groups.append(record(f"group {g.functional.func.name}", lambda g=g: group_fields(g)))
    for g in get_grouped_by_view_native_functions(native_functions):
        if isinstance(g, NativeFunctionsViewGroup):
            views.append(record(f"view {g.view.func.name}", lambda g=g: view_group_fields(g)))

    json.dump({"functions": functions, "groups": groups, "view_groups": views}, sys.stdout, indent=None)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: dump_api.py NATIVE_FUNCTIONS_YAML TAGS_YAML")
    main(sys.argv[1], sys.argv[2])
