# python3 OpGenOpcheck.py LIBRARY NAMESPACE SAMPLES [PACKAGE_DIR]   (run by opgen_add_opcheck_test)
#
# Checks every operator of an operator library that SAMPLES gives inputs for with what PyTorch 2's
# compiler needs of a custom operator, and prints one line per operator and check:
#   test_schema, test_autograd_registration, test_faketensor, test_aot_dispatch_static,
#   test_aot_dispatch_dynamic   torch.library.opcheck's five sub-tests (each run on its own)
#   compile_static, compile_dynamic
#                               torch.compile(fullgraph=True) with dynamic=False and dynamic=True,
#                               its result compared with eager mode's (outputs and mutated inputs)
#   export                      torch.export.export of a module calling the operator, run and compared
# A check the PyTorch in use lacks is reported SKIP with why; a check SAMPLES declares PyTorch unable
# to pass (EXPECTED_FAILURES) is XFAIL when it fails, and a failure when it passes (say so, then).
# Exit status: 0 when nothing failed, 1 otherwise, 77 when this PyTorch has none of the checks.
# PACKAGE_DIR (a library with Python fake kernels): the folder of its generated package NS, which then
# loads the library (NS.load_library), importing the fake kernels.
#
# SAMPLES is a Python file defining
#   def samples(): -> {"OP" or "OP.OVERLOAD": [sample, ...]}
# where a sample is a tuple of positional arguments or a pair (args tuple, kwargs dict); a tensor that
# requires grad makes the autograd checks differentiate through the operator. Optionally:
#   EXPECTED_FAILURES = {("OP.OVERLOAD", "CHECK"): "why PyTorch cannot pass it", ...}
# The environment variable OPGEN_OPCHECK_BACKEND names torch.compile's backend (default "aot_eager":
# Dynamo, fake tensors and AOTAutograd as Inductor sees them, without compiling kernels; "inductor"
# also compiles them).
import copy
import importlib.util
import os
import sys
import traceback

OPCHECK_TESTS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_static",
                 "test_aot_dispatch_dynamic")
CHECKS = OPCHECK_TESTS + ("compile_static", "compile_dynamic", "export")


def load_samples(path):
    spec = importlib.util.spec_from_file_location("opgen_samples", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "samples"):
        sys.exit(f"{path}: defines no samples() (it returns {{'OP.OVERLOAD': [sample, ...]}})")
    return module.samples(), getattr(module, "EXPECTED_FAILURES", {})


def as_call(sample):
    if isinstance(sample, tuple) and len(sample) == 2 and isinstance(sample[0], tuple) and isinstance(sample[1], dict):
        return sample
    return (tuple(sample) if isinstance(sample, (tuple, list)) else (sample,)), {}


def overload_packet(ns, name):
    op, _, overload = name.partition(".")
    packet = getattr(getattr(torch.ops, ns), op)
    return getattr(packet, overload or "default")


def clone(args, kwargs):
    def c(x):
        if isinstance(x, torch.Tensor):
            y = x.detach().clone()
            y.requires_grad_(x.requires_grad)
            return y
        return x
    return pytree.tree_map(c, (args, kwargs))


def tensors_of(tree):
    return [x for x in pytree.tree_leaves(tree) if isinstance(x, torch.Tensor)]


def compare(expected, actual, what):
    e, a = tensors_of(expected), tensors_of(actual)
    if len(e) != len(a):
        raise AssertionError(f"{what}: {len(a)} tensors, eager gave {len(e)}")
    for i, (x, y) in enumerate(zip(e, a)):
        torch.testing.assert_close(y.detach(), x.detach(), msg=lambda m: f"{what}, tensor {i}: {m}")


def run_eager(op, args, kwargs):
    args, kwargs = clone(args, kwargs)
    return op(*args, **kwargs), (args, kwargs)


def check_compile(op, args, kwargs, dynamic):
    torch._dynamo.reset()
    expected, expected_inputs = run_eager(op, args, kwargs)
    backend = os.environ.get("OPGEN_OPCHECK_BACKEND", "aot_eager")
    compiled = torch.compile(lambda *a, **k: op(*a, **k), fullgraph=True, dynamic=dynamic, backend=backend)
    a, k = clone(args, kwargs)
    compare(expected, compiled(*a, **k), "output")
    compare(expected_inputs, (a, k), "inputs after the call")


def check_export(op, args, kwargs):
    # The tensors are the exported program's inputs; the other arguments are constants of it.
    leaves, spec = pytree.tree_flatten((args, kwargs))
    positions = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]

    class Call(torch.nn.Module):
        def forward(self, *tensors):
            items = list(leaves)
            for i, t in zip(positions, tensors):
                items[i] = t
            a, k = pytree.tree_unflatten(items, spec)
            return op(*a, **k)

    expected, expected_inputs = run_eager(op, args, kwargs)
    inputs = [leaves[i].detach().clone() for i in positions]
    with torch.no_grad():
        program = torch.export.export(Call(), tuple(inputs))
        fresh = [leaves[i].detach().clone() for i in positions]
        actual = program.module()(*fresh)
    compare(expected, actual, "output")
    expected_tensors = tensors_of(expected_inputs)
    compare(expected_tensors, fresh, "inputs after the call")


def missing_checks():
    """The checks this PyTorch lacks: {check: why}."""
    missing = {}
    version = torch.__version__
    if not hasattr(torch, "library") or not hasattr(torch.library, "opcheck"):
        for t in OPCHECK_TESTS:
            missing[t] = f"PyTorch {version} has no torch.library.opcheck (2.4 and later)"
    if not hasattr(torch, "compile"):
        for t in ("compile_static", "compile_dynamic"):
            missing[t] = f"PyTorch {version} has no torch.compile (2.0 and later)"
    if not hasattr(torch, "export") or not hasattr(getattr(torch, "export", None), "export"):
        missing["export"] = f"PyTorch {version} has no torch.export.export (2.1 and later)"
    return missing


# What functionalization needs to trace an operator that writes to an argument (AOTAutograd, and so
# opcheck's test_aot_dispatch_* and torch.compile): at::Tag inplace / out on the schema, which opgen
# registers where at::Tag has them (2.13 and later; PyTorch 2.6 has neither).
FUNCTIONALIZED_CHECKS = ("test_aot_dispatch_static", "test_aot_dispatch_dynamic", "compile_static", "compile_dynamic")


def missing_checks_of(op):
    """The checks this PyTorch cannot run on op (a mutating custom operator without the tags)."""
    schema = op._schema
    mutates = any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)
    if not mutates or (hasattr(torch.Tag, "inplace") and hasattr(torch.Tag, "out")):
        return {}
    why = (f"PyTorch {torch.__version__} has no at::Tag inplace and out, without which it does not functionalize "
           f"a custom in-place or out= operator (2.13 and later)")
    return {check: why for check in FUNCTIONALIZED_CHECKS}


def first_line(ex):
    # (opcheck's own messages end in "(scroll up for stack trace)": this prints none unless verbose)
    text = f"{type(ex).__name__}: {ex}".replace(" (scroll up for stack trace)", "").strip()
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:400]
    return type(ex).__name__


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: OpGenOpcheck.py LIBRARY NAMESPACE SAMPLES [PACKAGE_DIR]")
    library, ns, samples_path = sys.argv[1:4]
    missing = missing_checks()
    if len(missing) == len(CHECKS):
        print(f"skipped: PyTorch {torch.__version__} has none of the checks (torch.library.opcheck, torch.compile, "
              f"torch.export: PyTorch 2)")
        return 77
    if len(sys.argv) == 5:
        sys.path.insert(0, sys.argv[4])
        os.environ[f"OPGEN_{ns.upper()}_LIBRARY"] = ""  # (the package loads nothing on import)
        importlib.import_module(ns).load_library(library)
    else:
        torch.ops.load_library(library)
    samples, expected_failures = load_samples(samples_path)
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0, "XFAIL": 0, "XPASS": 0}
    verbose = os.environ.get("OPGEN_OPCHECK_VERBOSE") == "1"
    for name in sorted(samples):
        try:
            op = overload_packet(ns, name)
        except (AttributeError, RuntimeError) as ex:
            print(f"{ns}::{name}: FAIL (no such operator: {first_line(ex)})")
            counts["FAIL"] += 1
            continue
        calls = [as_call(s) for s in samples[name]]
        missing_here = {**missing, **missing_checks_of(op)}
        for check in CHECKS:
            key = f"{ns}::{name} {check}"
            if check in missing_here:
                print(f"{key}: SKIP ({missing_here[check]})")
                counts["SKIP"] += 1
                continue
            why_not = expected_failures.get((name, check))
            try:
                for args, kwargs in calls:
                    if check in OPCHECK_TESTS:
                        a, k = clone(args, kwargs)
                        torch.library.opcheck(op, a, k, test_utils=(check,))
                    elif check == "export":
                        check_export(op, args, kwargs)
                    else:
                        check_compile(op, args, kwargs, dynamic=(check == "compile_dynamic"))
            except Exception as ex:  # noqa: BLE001 (every failure of a check is its result)
                if why_not:
                    print(f"{key}: XFAIL ({why_not})")
                    counts["XFAIL"] += 1
                else:
                    print(f"{key}: FAIL ({first_line(ex)})")
                    if verbose:
                        traceback.print_exc()
                    counts["FAIL"] += 1
                continue
            if why_not:
                print(f"{key}: XPASS (EXPECTED_FAILURES says it fails: {why_not}; remove the entry)")
                counts["XPASS"] += 1
            else:
                print(f"{key}: PASS")
                counts["PASS"] += 1
    listed = {name for name, _ in expected_failures}
    for name in sorted(listed - set(samples)):
        print(f"{ns}::{name}: FAIL (EXPECTED_FAILURES names it, but it has no samples)")
        counts["FAIL"] += 1
    print(f"opcheck of {ns} (PyTorch {torch.__version__}): " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if counts["FAIL"] and not verbose:
        print("(OPGEN_OPCHECK_VERBOSE=1 in the environment prints each failure's stack trace)")
    return 1 if counts["FAIL"] or counts["XPASS"] else 0


if __name__ == "__main__":
    try:
        import torch
    except ImportError as ex:
        sys.exit(f"OpGenOpcheck.py: {sys.executable} cannot import torch ({ex}): give opgen_add_opcheck_test the "
                 f"interpreter of the PyTorch the library is built against (PYTHON <exe>)")
    import torch.utils._pytree as pytree
    sys.exit(main())
