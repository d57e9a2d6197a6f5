"""The operators from Python: CPU results against ATen's, and on "cuda" the CUDA kernels against the
CPU ones (in place, out=, autogen: variants, the composite, float32 and float64, a mixed-device error,
gradcheck and backward on the GPU). Usage: test_cudaops.py LIBRARY cpu|cuda"""
import sys

import torch

library, mode = sys.argv[1], sys.argv[2]
torch.ops.load_library(library)
ops = torch.ops.cudaops
devices = ["cpu"] + (["cuda"] if mode == "cuda" else [])
if mode == "cuda" and not torch.cuda.is_available():
    sys.exit("test_cudaops.py: built for CUDA, but torch.cuda.is_available() is False")
checks = 0


def check(cond, what):
    global checks
    if not cond:
        sys.exit(f"FAIL: {what}")
    checks += 1


for device in devices:
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(4, 5, dtype=dtype, device=device)
        y = torch.randn(4, 5, dtype=dtype, device=device)
        ref = x.cpu() * 0.5 + y.cpu() * 3
        check(torch.allclose(ops.axpby(x, y, 0.5, 3).cpu(), ref), f"axpby on {device} {dtype}")
        out = torch.empty_like(x)
        ops.axpby.out(x, y, 0.5, 3, out=out)
        check(torch.allclose(out.cpu(), ref), f"axpby.out on {device} {dtype}")
        z = x.clone().t()  # a strided self: in place through a non-contiguous view
        ops.axpby_(z, y.t(), 0.5, 3)
        check(torch.allclose(z.t().cpu(), ref), f"axpby_ of a transposed tensor on {device} {dtype}")
        check(torch.allclose(ops.clip(x, 0.5).cpu(), x.cpu().clamp(-0.5, 0.5)), f"clip on {device} {dtype}")
        out = torch.empty_like(x)
        ops.clip.out(x, 0.5, out=out)
        check(torch.allclose(out.cpu(), x.cpu().clamp(-0.5, 0.5)), f"clip.out on {device} {dtype}")
        check(torch.allclose(ops.lerp_to(x, y, 0.25).cpu(), torch.lerp(x.cpu(), y.cpu(), 0.25)), f"lerp_to on {device}")
    x = torch.randn(3, dtype=torch.float64, device=device, requires_grad=True)
    y = torch.randn(3, dtype=torch.float64, device=device, requires_grad=True)
    check(torch.autograd.gradcheck(lambda a, b: ops.axpby(a, b, 0.5, -2.0), (x, y)), f"gradcheck on {device}")
    check(torch.autograd.gradcheck(lambda a, b: ops.lerp_to(a, b, 0.3), (x, y)), f"gradcheck of lerp_to on {device}")
    ops.axpby(x, y, 0.5, -2.0).sum().backward()
    check(torch.allclose(x.grad.cpu(), torch.full((3,), 0.5, dtype=torch.float64)), f"backward on {device}")

if mode == "cuda":
    # The CUDA kernels against the CPU ones on the same data, and a mixed-device call refused.
    x, y = torch.randn(1000), torch.randn(1000)
    check(torch.allclose(ops.axpby(x.cuda(), y.cuda(), 1.5, -0.5).cpu(), ops.axpby(x, y, 1.5, -0.5)), "CUDA against CPU")
    try:
        ops.axpby(x, y.cuda(), 1.0, 1.0)
        check(False, "a mixed-device call was accepted")
    except RuntimeError:
        checks += 1
print(f"test_cudaops.py: {checks} checks passed on {', '.join(devices)}")
