#!/usr/bin/env python3
"""Runs one family of the reference's autograd generator (torchgen/packaged/autograd), so that the
conformance tests (tool/test/autograd_conformance_test.cpp) compare only the files opgen writes, without
paying for the whole of gen_autograd. Run it with the reference torchgen importable (PYTHONHASHSEED=0):

    torchgen-ref python autograd_ref.py FAMILY[,FAMILY...] NATIVE_FUNCTIONS TAGS OUT AUTOGRAD_DIR

FAMILY (each run as gen_autograd runs it):
  load_derivatives     load_derivatives (reads and checks AUTOGRAD_DIR/derivatives.yaml; writes nothing)
  functions            Functions.h, Functions.cpp (gen_autograd_functions_lib, after load_derivatives and
                       match_differentiability_info, which adds the foreach functions' formulas)
  view_funcs           ViewFuncs.h, ViewFuncs.cpp (gen_view_funcs)
  python               what gen_autograd_python writes after the above in the same process (as PyTorch's
                       generate_code runs it): python_functions*, and the Python bindings
  variable_type_h      VariableType.h (gen_variable_type, run without functions: only its header is kept)
  variable_type        gen_variable_type (VariableType.h, VariableType_0..9.cpp, VariableTypeEverything.cpp and
                       templates/VariableType.cpp, whose comment names the generator as
                       `python -m torchgen.packaged.autograd.gen_autograd` runs it)
  inplace_or_view      gen_inplace_or_view_type (ADInplaceOrViewType_0..1.cpp, ADInplaceOrViewTypeEverything.cpp)
  trace_type           gen_trace_type (TraceType_0..9.cpp, TraceTypeEverything.cpp)
  variable_factories   gen_variable_factories (variable_factories.h)
  annotated_fn_args    gen_annotated_fn_args.gen_annotated (annotated_fn_args.py)
  gen_autograd         the whole of gen_autograd.main()
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile


def main() -> int:
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    families, native, tags, out, autograd_dir = sys.argv[1:]
    for family in families.split(","):
        if run(family, native, tags, out, autograd_dir) != 0:
            return 2
    return 0


_matched = None


def matched(native: str, tags: str, autograd_dir: str):
    """load_derivatives and match_differentiability_info as gen_autograd runs them, once."""
    global _matched
    if _matched is None:
        from torchgen.api import cpp
        from torchgen.api.autograd import match_differentiability_info
        from torchgen.gen import parse_native_yaml
        from torchgen.packaged.autograd.load_derivatives import load_derivatives

        infos, used_keys = load_derivatives(os.path.join(autograd_dir, "derivatives.yaml"), native, tags)
        fns = sorted(parse_native_yaml(native, tags).native_functions, key=lambda f: cpp.name(f.func))
        _matched = infos, match_differentiability_info(fns, infos), used_keys
    return _matched


def run(family: str, native: str, tags: str, out: str, autograd_dir: str) -> int:
    templates = os.path.join(autograd_dir, "templates")
    if family == "load_derivatives":
        from torchgen.packaged.autograd.load_derivatives import load_derivatives

        load_derivatives(os.path.join(autograd_dir, "derivatives.yaml"), native, tags)
    elif family == "functions":
        from torchgen.packaged.autograd.gen_autograd_functions import gen_autograd_functions_lib

        infos, _, _ = matched(native, tags, autograd_dir)
        gen_autograd_functions_lib(out, infos, templates)
    elif family == "view_funcs":
        from torchgen.packaged.autograd.gen_view_funcs import gen_view_funcs

        _, fns_with_infos, _ = matched(native, tags, autograd_dir)
        gen_view_funcs(out, fns_with_infos, templates)
    elif family == "python":
        from torchgen.packaged.autograd import gen_python_functions
        from torchgen.packaged.autograd.gen_autograd_functions import gen_autograd_functions_python

        infos, _, _ = matched(native, tags, autograd_dir)
        gen_autograd_functions_python(out, infos, templates)
        deprecated = os.path.join(autograd_dir, "deprecated.yaml")
        gen_python_functions.gen(out, native, tags, deprecated, templates)
    elif family == "inplace_or_view":
        from torchgen.packaged.autograd.gen_inplace_or_view_type import gen_inplace_or_view_type

        _, fns_with_infos, _ = matched(native, tags, autograd_dir)
        gen_inplace_or_view_type(out, native, tags, fns_with_infos, templates)
    elif family == "variable_type":
        import torchgen
        from torchgen.packaged.autograd.gen_variable_type import gen_variable_type

        # FileManager names the running script in the comment of the template it writes.
        sys.modules["__main__"].__file__ = os.path.join(
            os.path.dirname(torchgen.__file__), "packaged", "autograd", "gen_autograd.py"
        )
        _, fns_with_infos, used_keys = matched(native, tags, autograd_dir)
        gen_variable_type(out, native, tags, fns_with_infos, templates, used_keys)
    elif family == "variable_type_h":
        from torchgen.packaged.autograd.gen_variable_type import gen_variable_type

        with tempfile.TemporaryDirectory() as tmp:
            gen_variable_type(tmp, native, tags, [], templates, set())
            shutil.copyfile(os.path.join(tmp, "VariableType.h"), os.path.join(out, "VariableType.h"))
    elif family == "trace_type":
        from torchgen.gen import parse_native_yaml
        from torchgen.packaged.autograd.gen_trace_type import gen_trace_type

        gen_trace_type(out, parse_native_yaml(native, tags).native_functions, templates)
    elif family == "variable_factories":
        from torchgen.packaged.autograd.gen_variable_factories import gen_variable_factories

        gen_variable_factories(out, native, tags, templates)
    elif family == "annotated_fn_args":
        from torchgen.packaged.autograd.gen_annotated_fn_args import gen_annotated

        gen_annotated(native, tags, out, autograd_dir)
    elif family == "gen_autograd":
        from torchgen.packaged.autograd import gen_autograd

        sys.argv = ["gen_autograd", native, tags, out, autograd_dir]
        gen_autograd.main()
    else:
        print(f"autograd_ref.py: unknown family {family!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
