"""The inputs opgen_add_opcheck_test checks the stableops operators with (see OpGenOpcheck.py). None
requires grad: a stable-ABI library registers no Autograd kernels (PyTorch's autograd fallback runs
its operators), so only CompositeImplicitAutograd ones could differentiate. clamp_count is left out:
its int result depends on the data, and it has no fake kernel."""
import torch


def x(*shape):
    return torch.rand(*shape, dtype=torch.float32).add_(0.5)


def samples():
    return {
        "scale_add": [(x(3), x(3), 0.5), (x(2, 3), x(2, 3))],
        "scale_add.out": [((x(3), x(3), 2.0), {"out": torch.empty(3)})],
        "scale_": [(x(3), 2.5)],
        "double_it": [(x(3),)],
        "sum_all": [([x(3), x(3)],)],
        "filled_like": [(x(1), [2, 3], 1.5), ((x(1), [4], 2.0), {"dtype": torch.float64})],
        "split_sign": [(x(3).sub_(1.0),)],
    }


# PyTorch functionalizes a custom in-place or out= operator (whose output is an alias, Tensor(a!)) only
# when it carries the `inplace` or `out` tag, which the stable ABI cannot register (no tags before a
# target of 2.12; 2.14.1's Tag conversion has neither): AOTAutograd and torch.compile refuse these two
# (torch.export, which does not functionalize for inference, takes them).
_UNTAGGED = ("an in-place or out= operator without its inplace/out tag, which the stable ABI cannot register: "
             "PyTorch does not functionalize it")
EXPECTED_FAILURES = {(op, check): _UNTAGGED for op in ("scale_", "scale_add.out")
                     for check in ("test_aot_dispatch_static", "test_aot_dispatch_dynamic", "compile_static",
                                   "compile_dynamic")}
