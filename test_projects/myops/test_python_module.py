# The typed Python package's example of the docs (docs/libraries.md), run by ctest (myops_python_module)
# with PYTHONPATH naming the generated package's folder (build/myops_generated/python).
# docs: begin package
import torch, myops
print(myops.scale_add(torch.ones(2), torch.ones(2), alpha=3))    # help(myops.scale_add): the YAML comment
# docs: end package
assert myops.scale_add(torch.ones(2), torch.ones(2), alpha=3).tolist() == [4.0, 4.0]
assert "Scale and add" in myops.scale_add.__doc__, myops.scale_add.__doc__
assert myops.double_it(torch.ones(2)).tolist() == [2.0, 2.0]
print("myops package: all good")
