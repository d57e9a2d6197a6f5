"""Compiles Model (model.py) with AOTInductor twice, with the library's C shims and without them,
checks that the first calls the shims and the second the proxy executor, and runs both packages
against eager PyTorch. Writes OUT/model_shims.pt2, OUT/model_proxy.pt2 and OUT/io.pt (the inputs
and eager's outputs) for run_package.cpp.

    python3 aoti_package.py OUT
"""
import os
import re
import sys
import warnings
import zipfile

import torch
import torch._inductor.config

if not hasattr(torch._inductor.config.aot_inductor, "custom_ops_to_c_shims"):
    print(f"skipped: PyTorch {torch.__version__}'s AOTInductor takes no custom operator C shims (2.8 on)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aotiops.aoti  # noqa: E402  (the package, and its AOTInductor module)
from model import INPLACE, Model, example_inputs  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
model, inputs = Model().eval(), example_inputs()
expected = model(*inputs)

# [compile]
exported = torch.export.export(model, inputs)
with aotiops.aoti.enabled():  # or aotiops.aoti.configure(), for the rest of the process
    shims = torch._inductor.aoti_compile_and_package(exported, package_path=os.path.join(out, "model_shims.pt2"))
# [compile]
proxy = torch._inductor.aoti_compile_and_package(exported, package_path=os.path.join(out, "model_proxy.pt2"))


# Two operators whose shims AOTInductor would call by one name: configure() keeps the one already
# configured and warns (one name declared twice would not compile); enabled() restores the settings.
foreign = {torch.ops.aten.add.Tensor: ["AOTITorchError aoti_torch_cpu_row_minmax(AtenTensorHandle x)"]}
with torch._inductor.config.patch({"aot_inductor.custom_ops_to_c_shims": foreign}):
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        with aotiops.aoti.enabled():
            configured = torch._inductor.config.aot_inductor.custom_ops_to_c_shims
            assert torch.ops.aotiops.row_minmax.default not in configured, configured
            assert torch.ops.aotiops.scaled_add.default in configured, configured
    assert any("aotiops.row_minmax.default" in str(w.message) and "aten.add.Tensor" in str(w.message) for w in warned), \
        [str(w.message) for w in warned]
    assert torch._inductor.config.aot_inductor.custom_ops_to_c_shims == foreign
print("ok: a shim name already taken stays the other operator's, with a warning; enabled() restores the settings")


def wrapper_source(package):
    """The C++ wrapper AOTInductor generated (the package holds it beside the model's library)."""
    with zipfile.ZipFile(package) as z:
        names = [n for n in z.namelist() if n.endswith(".wrapper.cpp") or (n.endswith(".cpp") and "wrapper" in n)]
        if not names:
            names = [n for n in z.namelist() if n.endswith(".cpp")]
        assert names, f"no C++ source in {package}: {z.namelist()}"
        return "\n".join(z.read(n).decode() for n in names)


def calls(source, function):
    return len(re.findall(r"\b" + function + r"\s*\(", source))


functional = ["scaled_add", "row_minmax", "pick_columns"]
with_shims, without = wrapper_source(shims), wrapper_source(proxy)
for op in functional:
    shim = "aoti_torch_cpu_" + op
    # (the declaration, then at least one call)
    assert calls(with_shims, shim) >= 2, f"the shims' wrapper does not call {shim}"
    assert calls(without, shim) == 0, f"the wrapper without shims calls {shim}"
    print(f"ok: the compiled model calls {shim}, declared as {aotiops.aoti.SHIMS[op + '.default'][0].split(' __asm__')[1]}")
# The in-place operator has no shim: both packages call it through the proxy executor.
assert "aoti_torch_proxy_executor_call_function" in without, "the wrapper without shims does not use the proxy executor"
if INPLACE:
    assert "aoti_torch_proxy_executor_call_function" in with_shims, "the wrapper with shims does not use the proxy executor"
    assert calls(with_shims, "aoti_torch_proxy_executor_call_function") < calls(without, "aoti_torch_proxy_executor_call_function")
    print("ok: the functional operators' calls left the proxy executor, the in-place one's stayed")
else:
    assert calls(with_shims, "aoti_torch_proxy_executor_call_function") < calls(without, "aoti_torch_proxy_executor_call_function")
    print(f"ok: the functional operators' calls left the proxy executor (PyTorch {torch.__version__} lacks the "
          "inplace tag: the model has no in-place call)")

for package in (shims, proxy):
    loaded = torch._inductor.aoti_load_package(package)
    actual = loaded(*inputs)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        torch.testing.assert_close(a, e)
    print(f"ok: {os.path.basename(package)} from Python: eager's results")

torch.save(list(inputs) + list(expected), os.path.join(out, "io.pt"))
