# The Python examples of the docs (docs/libraries.md, docs/autograd.md), run by ctest (myops_python):
# test_myops.py LIBRARY. The parts between "docs:" markers are shown in the docs.

# docs: begin load
import sys, torch
torch.ops.load_library(sys.argv[1])   # the library: build/libmyops.so
print(torch.ops.myops.scale_add(torch.ones(2), torch.ones(2), alpha=3))
# docs: end load
assert torch.ops.myops.scale_add(torch.ones(2), torch.ones(2), alpha=3).tolist() == [4.0, 4.0]
assert torch.ops.myops.double_it(torch.ones(2)).tolist() == [2.0, 2.0]

# docs: begin autograd
a, b = torch.rand(3, dtype=torch.double, requires_grad=True), torch.rand(3, dtype=torch.double, requires_grad=True)
torch.ops.myops.scale_add(a, b, alpha=3).sum().backward()       # a.grad == 1, b.grad == 3
torch.autograd.gradcheck(lambda x, y: torch.ops.myops.scale_add(x, y, alpha=3), (a, b), check_forward_ad=True)
# docs: end autograd
assert a.grad.tolist() == [1.0] * 3 and b.grad.tolist() == [3.0] * 3, (a.grad, b.grad)
print("myops: all good")
