"""Benchmark: a model of library operators compiled by AOTInductor, with the library's generated C
shims (add_operator_library AOTI_SHIMS) and without them (AOTInductor's proxy executor), time per
call of each. Not a test: run it by hand, on an idle machine, with the aotiops library of
test_projects/aoti built (its ctest, e.g. plugin_torch2_aoti_project, leaves one), on a PyTorch
whose AOTInductor takes custom operator shims (2.8 on; the sid root's 2.14.1):

    tool/scripts/torch-root.sh sid run env PYTHONPATH=BUILD/aotiops_generated/python \
        python3 tool/bench/aoti_shims.py [CALLS] [SIZE]

BUILD: the test project's build folder (build/test_projects/torch2/aoti_project/build). The model
calls aotiops.scaled_add and aotiops.row_minmax 8 times each on SIZE x SIZE tensors (default 8: the
call's overhead, not the arithmetic); CALLS (default 1000) calls per batch, the median of 7 batches,
in wall time and in the process's CPU time (steadier on a shared machine).
"""
import os
import shutil
import statistics
import sys
import tempfile
import time

import torch
import torch._inductor.config

import aotiops.aoti

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
size = int(sys.argv[2]) if len(sys.argv) > 2 else 8


class Chain(torch.nn.Module):
    def forward(self, x, y):
        for _ in range(8):
            x = aotiops.scaled_add(x, y, alpha=0.5)
            low, high = aotiops.row_minmax(x)
            y = y + low.unsqueeze(1) - high.unsqueeze(1)
        return x, y


inputs = (torch.rand(size, size), torch.rand(size, size))
exported = torch.export.export(Chain(), inputs)
folder = tempfile.mkdtemp(prefix="aoti_bench_")
with aotiops.aoti.enabled():
    shims = torch._inductor.aoti_compile_and_package(exported, package_path=os.path.join(folder, "shims.pt2"))
proxy = torch._inductor.aoti_compile_and_package(exported, package_path=os.path.join(folder, "proxy.pt2"))
expected = Chain()(*inputs)


def per_call(run):
    """Median seconds per call of run(*inputs): wall time, and the process's CPU time."""
    for _ in range(50):
        run(*inputs)
    wall, cpu = [], []
    for _ in range(7):
        start, start_cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            run(*inputs)
        wall.append((time.perf_counter() - start) / calls)
        cpu.append((time.process_time() - start_cpu) / calls)
    return statistics.median(wall), statistics.median(cpu)


results = {}
for name, package in (("shims", shims), ("proxy", proxy)):
    run = torch._inductor.aoti_load_package(package)
    for a, e in zip(run(*inputs), expected):
        torch.testing.assert_close(a, e)
    results[name] = per_call(run)
results["eager"] = per_call(Chain())
shutil.rmtree(folder)
print(f"PyTorch {torch.__version__}, {size}x{size} tensors, 16 library operator calls per model call, "
      f"median of 7 x {calls} calls, {torch.get_num_threads()} threads")
for name, label in (("shims", "AOTInductor with the C shims"), ("proxy", "AOTInductor, proxy executor"),
                    ("eager", "eager (Python, for scale)")):
    wall, cpu = results[name]
    print(f"  {label:30} {wall * 1e6:9.1f} us wall, {cpu * 1e6:9.1f} us CPU per call")
print(f"  proxy / shims: {results['proxy'][0] / results['shims'][0]:.2f}x wall, "
      f"{results['proxy'][1] / results['shims'][1]:.2f}x CPU")
