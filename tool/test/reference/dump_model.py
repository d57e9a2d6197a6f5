#!/usr/bin/env python3
"""Prints torchgen's operator model as JSON, in the shape that `opgen parse` prints, so that the two can be
compared (tool/test/model_conformance_test.cpp). Run it with the reference torchgen importable:

    torchgen-ref python dump_model.py NATIVE_FUNCTIONS_YAML TAGS_YAML
        -> the JSON model of NATIVE_FUNCTIONS_YAML on stdout (sort_keys, indent 1)

    torchgen-ref python dump_model.py subset SRC_YAML OUT_YAML PREFIX...
        -> writes to OUT_YAML the entries of SRC_YAML whose operator name (without namespace and
           overload) starts with one of the PREFIXes, plus the entries they depend on; the `subset`
           step only needs PyYAML.

The JSON (the contract with `opgen parse`):
  native_functions: parse_native_yaml(...).native_functions in order; per function: name, namespace,
      func (the entry's func: text as written; for a generated function str(f.func), prefixed with
      "NS::" when the entry it was generated from was written with a namespace prefix), location,
      generated, kind, dispatch (dispatch key -> kernel, qualified with its C++ namespace unless that is
      at::native), structured, structured_delegate, tags (sorted), variants (sorted)
  groups: the NativeFunctionsGroup items of get_grouped_native_functions, in order
  view_groups: the NativeFunctionsViewGroup items of get_grouped_by_view_native_functions, in order
  counts: native_functions, groups, view_groups
  backend_indices: dispatch key -> number of operators in that BackendIndex
"""

from __future__ import annotations

import json
import re
import sys


DEFAULT_CPP_NAMESPACE = "at::native"


def _raw_funcs_by_line(native_yaml: str) -> dict[int, list[str]]:
    """The func: text of every entry as written in the file, keyed by the entry's line (the line torchgen's
    LineLoader records, so it equals NativeFunction.loc.line); a list, should entries share a line."""
    import yaml
    from torchgen.gen import LineLoader

    with open(native_yaml) as f:
        entries = yaml.load(f, Loader=LineLoader)
    out: dict[int, list[str]] = {}
    for e in entries or []:
        if isinstance(e, dict) and isinstance(e.get("func"), str):
            out.setdefault(e["__line__"], []).append(e["func"])
    return out


def _namespace_prefix(raw_func: str) -> str:
    """'myops::' for 'myops::foo(Tensor self) -> Tensor', '' when the text has no namespace prefix."""
    m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)::", raw_func)
    return m.group(0) if m else ""


def dump_model(native_yaml: str, tags_yaml: str) -> dict:
    from torchgen.gen import (
        get_grouped_by_view_native_functions,
        get_grouped_native_functions,
        parse_native_yaml,
    )
    from torchgen.model import NativeFunctionsGroup, NativeFunctionsViewGroup

    parsed = parse_native_yaml(native_yaml, tags_yaml)
    native_functions = parsed.native_functions
    backend_indices = parsed.backend_indices
    raw_funcs = _raw_funcs_by_line(native_yaml)

    # The dispatch keys sorted by name (json.dump(sort_keys=True) would sort them anyway).
    index_items = sorted(backend_indices.items(), key=lambda kv: str(kv[0]))

    def func_text(f) -> str:
        schema = str(f.func)
        raws = raw_funcs.get(f.loc.line, [])
        if "generated" in f.tags:
            # Generated from the entry at f.loc: str(f.func), with that entry's namespace prefix if it
            # was written with one.
            for raw in raws:
                prefix = _namespace_prefix(raw)
                if prefix in ("", f.namespace + "::"):
                    return prefix + schema
            raise AssertionError(f"no entry at {f.loc} for the generated {schema}")
        # An entry of the file: its text as written. torchgen's FunctionSchema.parse guarantees that
        # the text without its namespace prefix prints back identically; check it all the same.
        for raw in raws:
            if raw[len(_namespace_prefix(raw)):] == schema:
                return raw
        raise AssertionError(f"{f.loc}: no func text {raws!r} prints back as {schema!r}")

    def dispatch_of(f) -> dict[str, str]:
        d: dict[str, str] = {}
        for key, index in index_items:
            m = index.index.get(f.func.name)
            if m is None:
                continue
            kernel = m.kernel
            if m.cpp_namespace != DEFAULT_CPP_NAMESPACE:
                kernel = f"{m.cpp_namespace}::{kernel}"
            d[str(key)] = kernel
        return d

    functions = []
    for f in native_functions:
        functions.append(
            {
                "name": str(f.func.name),
                "namespace": f.namespace,
                "func": func_text(f),
                "location": str(f.loc),
                "generated": "generated" in f.tags,
                "kind": f.func.kind().name,
                "dispatch": dispatch_of(f),
                "structured": bool(f.structured),
                "structured_delegate": None
                if f.structured_delegate is None
                else str(f.structured_delegate),
                "tags": sorted(f.tags),
                "variants": sorted(v.name for v in f.variants),
            }
        )

    def name_or_null(f) -> str | None:
        return None if f is None else str(f.func.name)

    groups = []
    for g in get_grouped_native_functions(native_functions):
        if isinstance(g, NativeFunctionsGroup):
            groups.append(
                {
                    "functional": name_or_null(g.functional),
                    "inplace": name_or_null(g.inplace),
                    "mutable": name_or_null(g.mutable),
                    "out": name_or_null(g.out),
                    "structured": bool(g.structured),
                }
            )

    view_groups = []
    for g in get_grouped_by_view_native_functions(native_functions):
        if isinstance(g, NativeFunctionsViewGroup):
            view_groups.append(
                {
                    "view": name_or_null(g.view),
                    "view_inplace": name_or_null(g.view_inplace),
                    "view_copy": name_or_null(g.view_copy),
                }
            )

    return {
        "native_functions": functions,
        "groups": groups,
        "view_groups": view_groups,
        "counts": {
            "native_functions": len(functions),
            "groups": len(groups),
            "view_groups": len(view_groups),
        },
        "backend_indices": {str(k): len(v.index) for k, v in index_items},
    }


# ---------------------------------------------------------------------------------------------------------
# subset: a smaller native_functions.yaml cut out of a big one


def _op_name(func: str) -> str:
    """'aten::add_.Tensor(Tensor(a!) self, ...) -> ...' -> 'add_' (no namespace, no overload)."""
    head = func.split("(", 1)[0].strip()
    head = head.split("::")[-1]
    return head.split(".", 1)[0]


def _base_name(op: str) -> str:
    """The name shared by an operator's functional, in-place and out variants: 'add_' -> 'add'.
    Dunder names ('__iand__') are their own base."""
    if op.startswith("__"):
        return op
    return op[:-1] if op.endswith("_") else op


def _returns_alias(func: str) -> bool:
    """Whether some return is a non-mutable alias ('-> Tensor(a)'), i.e. the operator is a view."""
    rets = func.rsplit("->", 1)[-1]
    return re.search(r"\([a-z]\)", rets) is not None


def subset(src_yaml: str, out_yaml: str, prefixes: list[str]) -> int:
    import yaml

    with open(src_yaml) as f:
        entries = yaml.safe_load(f)
    if not isinstance(entries, list):
        raise SystemExit(f"{src_yaml}: expected a list of entries")

    by_base: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        by_base.setdefault(_base_name(_op_name(e["func"])), []).append(i)

    # The unit kept is a base name with all its entries (functional, in-place, out), so that no out=
    # operator is left without its functional variant and groups stay whole.
    wanted: set[str] = {
        b for b in by_base if any(_op_name(entries[i]["func"]).startswith(p) or b.startswith(p)
                                  for i in by_base[b] for p in prefixes)
    }
    todo = list(wanted)
    while todo:
        base = todo.pop()
        deps: set[str] = set()
        for i in by_base[base]:
            e = entries[i]
            # structured kernels delegate to their out= operator
            delegate = e.get("structured_delegate")
            if isinstance(delegate, str):
                deps.add(_base_name(delegate.split(".", 1)[0]))
            # a view operator needs its view_copy variant (`transpose` -> `transpose_copy`); an
            # inplace_view operator needs its out-of-place view, which shares its base name
            if _returns_alias(e["func"]) and base + "_copy" in by_base:
                deps.add(base + "_copy")
        for d in deps:
            if d in by_base and d not in wanted:
                wanted.add(d)
                todo.append(d)

    kept = [e for i, e in enumerate(entries) if _base_name(_op_name(e["func"])) in wanted]
    with open(out_yaml, "w") as f:
        f.write(f"# {len(kept)} entries of {src_yaml}; generated by dump_model.py subset "
                f"{' '.join(prefixes)}\n")
        for e in kept:
            f.write("\n")
            f.write(yaml.safe_dump([e], sort_keys=False, width=1 << 20, default_flow_style=False))
    return len(kept)


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[1] == "subset":
        if len(argv) < 5:
            print("usage: dump_model.py subset SRC_YAML OUT_YAML PREFIX...", file=sys.stderr)
            return 2
        n = subset(argv[2], argv[3], argv[4:])
        print(f"{n} entries written to {argv[3]}", file=sys.stderr)
        return 0
    if len(argv) != 3:
        print("usage: dump_model.py NATIVE_FUNCTIONS_YAML TAGS_YAML\n"
              "       dump_model.py subset SRC_YAML OUT_YAML PREFIX...", file=sys.stderr)
        return 2
    model = dump_model(argv[1], argv[2])
    json.dump(model, sys.stdout, sort_keys=True, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
