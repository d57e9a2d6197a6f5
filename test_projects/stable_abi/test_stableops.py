"""The stableops operators from Python: the typed package (which loads the library) and torch.ops."""
import sys

import torch

import stableops


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")


x, y = torch.tensor([1.0, 2.0]), torch.tensor([10.0, 20.0])
check(torch.equal(stableops.scale_add(x, y, 0.5), torch.tensor([6.0, 12.0])), "scale_add")
check(torch.equal(stableops.scale_add(x, y), x + y), "scale_add's default alpha (the schema's)")
out = torch.empty(2)
stableops.scale_add_out(x, y, 2.0, out=out)
check(torch.equal(out, x + 2 * y), "scale_add.out")
s = x.clone()
stableops.scale_(s, 3.0)
check(torch.equal(s, 3 * x), "scale_")
check(torch.equal(stableops.double_it(x), 2 * x), "double_it (CompositeImplicitAutograd, through the C++ API)")
check(torch.equal(stableops.sum_all([x, y, x]), 2 * x + y), "sum_all")
f = stableops.filled_like(x, [2, 3], 1.5, dtype=torch.float64)
check(f.dtype == torch.float64 and f.shape == (2, 3) and bool((f == 1.5).all()), "filled_like")
check(stableops.filled_like(x, [1], 2.0).dtype == torch.float32, "filled_like's default dtype")
pos, neg = stableops.split_sign(torch.tensor([-1.0, 2.0]))
check(torch.equal(pos, torch.tensor([0.0, 2.0])) and torch.equal(neg, torch.tensor([-1.0, 0.0])), "split_sign")
clamped, changed = stableops.clamp_count(torch.tensor([-5.0, 0.0, 5.0]), max=1.0)
check(torch.equal(clamped, torch.tensor([-5.0, 0.0, 1.0])) and changed == 1, "clamp_count")
m = stableops.scale_add(torch.empty(3, device="meta"), torch.empty(3, device="meta"))
check(m.device.type == "meta" and m.shape == (3,), "scale_add on meta tensors")
try:
    stableops.scale_add(torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64))
    check(False, "a kernel's error reaches Python")
except RuntimeError as e:
    check("float32 tensors only" in str(e), f"the kernel's message reaches Python: {e}")
print("stableops: Python checks passed")
