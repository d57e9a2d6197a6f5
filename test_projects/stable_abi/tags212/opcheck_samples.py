"""The inputs opgen_add_opcheck_test checks the stabletags operators with (a target of 2.12, the
schemas registered with their tags)."""
import torch


def samples():
    return {
        "scale": [(torch.rand(3), 2.5)],
        "scale_": [(torch.rand(3), 2.5)],
        "scale.out": [((torch.rand(3), 2.0), {"out": torch.empty(3)})],
    }


# PyTorch functionalizes a custom in-place or out= operator only with its `inplace` or `out` tag, which
# the stable ABI cannot pass (2.14.1's Tag conversion has neither): AOTAutograd and torch.compile refuse
# them (torch.export, which does not functionalize for inference, takes them).
_UNTAGGED = ("an in-place or out= operator without its inplace/out tag, which the stable ABI cannot register: "
             "PyTorch does not functionalize it")
EXPECTED_FAILURES = {(op, check): _UNTAGGED for op in ("scale_", "scale.out")
                     for check in ("test_aot_dispatch_static", "test_aot_dispatch_dynamic", "compile_static",
                                   "compile_dynamic")}
