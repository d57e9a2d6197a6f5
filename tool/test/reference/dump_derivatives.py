#!/usr/bin/env python3
"""Prints what torchgen's load_derivatives makes of a derivatives.yaml, as JSON, so that opgen's reading
(api/DifferentiabilityInfo.h) can be compared with it (tool/test/autograd_conformance_test.cpp). Run it
with the reference torchgen importable (PYTHONHASHSEED=0):

    torchgen-ref python dump_derivatives.py DERIVATIVES_YAML NATIVE_FUNCTIONS_YAML TAGS_YAML

The JSON: used_dispatch_keys (sorted), entries: [SCHEMA, [[KEY, INFO], ...]] in torchgen's dict order;
INFO holds every field of DifferentiabilityInfo; saved values are [NAME, C++ TYPE, EXPR]; sets are sorted
lists (required_inputs_fw_grad and required_inputs_primal too: torchgen makes them from Python sets).
"""

from __future__ import annotations

import json
import sys


def saved(attrs):
    out = []
    for a in attrs:
        name = a.nctype.name
        name = name if isinstance(name, str) else name.name
        out.append([name, a.nctype.cpp_type(), a.expr])
    return out


def info_json(info):
    return {
        "name": info.name,
        "func": str(info.func.func),
        "op": info.op,
        "derivatives": [
            {
                "formula": d.formula,
                "original_formula": d.original_formula,
                "var_names": list(d.var_names),
                "saved_inputs": saved(d.saved_inputs),
                "saved_outputs": saved(d.saved_outputs),
                "named_gradients": sorted(d.named_gradients),
            }
            for d in info.derivatives
        ],
        "forward_derivatives": [
            {
                "formula": f.formula,
                "var_names": list(f.var_names),
                "var_types": [str(t) for t in f.var_types],
                "required_inputs_fw_grad": sorted(f.required_inputs_fw_grad or ()),
                "required_inputs_primal": sorted(f.required_inputs_primal or ()),
            }
            for f in info.forward_derivatives
        ],
        "all_saved_inputs": saved(info.all_saved_inputs),
        "all_saved_outputs": saved(info.all_saved_outputs),
        "available_named_gradients": list(info.available_named_gradients),
        "used_named_gradients": sorted(info.used_named_gradients),
        "args_with_derivatives": [[b.name, b.type] for b in info.args_with_derivatives],
        "non_differentiable_arg_names": list(info.non_differentiable_arg_names),
        "output_differentiability": info.output_differentiability,
        "output_differentiability_conditions": info.output_differentiability_conditions,
    }


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    from torchgen.packaged.autograd.load_derivatives import load_derivatives

    infos, used = load_derivatives(*sys.argv[1:4])
    out = {
        "used_dispatch_keys": sorted(used),
        "entries": [[str(schema), [[k, info_json(i)] for k, i in d.items()]] for schema, d in infos.items()],
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
