"""Loads the hostdev backend into PyTorch and uses its device, "privateuseone", from Python."""
import ctypes
import sys
import types
import unittest

import torch

LIBRARY = sys.argv.pop(1)
torch.ops.load_library(LIBRARY)
native = ctypes.CDLL(LIBRARY)  # the same library, for its allocation counters
native.hostdev_allocations.restype = ctypes.c_int64
native.hostdev_live_blocks.restype = ctypes.c_int64
DEVICE = "privateuseone"

# PyTorch 2 initializes a device's Python module, torch.<device>, before its first tensor is made:
# the backend registers one (PyTorch 1.13 does not need it, and takes it as well).
device_module = types.ModuleType("hostdev")
device_module.is_available = lambda: True
device_module.device_count = lambda: 1
device_module.current_device = lambda: 0
torch._register_device_module(DEVICE, device_module)


def on_device(values):
    return torch.tensor(values, dtype=torch.float32).to(DEVICE)


class HostDev(unittest.TestCase):
    def test_factories_use_the_device_allocator(self):
        before = native.hostdev_allocations()
        ones = torch.ones(3, device=DEVICE)
        self.assertEqual(ones.device.type, DEVICE)
        self.assertEqual(native.hostdev_allocations(), before + 1)
        self.assertEqual(ones.cpu().tolist(), [1.0, 1.0, 1.0])
        self.assertEqual(torch.full((2,), 7.0, device=DEVICE).cpu().tolist(), [7.0, 7.0])

    def test_copies_both_ways(self):
        host = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        dev = host.to(DEVICE)
        self.assertEqual(dev.device.type, DEVICE)
        self.assertEqual(dev.shape, host.shape)
        self.assertTrue(torch.equal(dev.cpu(), host))
        self.assertTrue(torch.equal(dev.t().cpu(), host.t()))  # a view (as_strided), copied back
        self.assertEqual(dev[1].cpu().tolist(), [3.0, 4.0, 5.0])

    def test_add(self):
        a, b = on_device([1, 2, 3]), on_device([10, 20, 30])
        self.assertEqual((a + b).cpu().tolist(), [11.0, 22.0, 33.0])
        self.assertEqual(torch.add(a, b, alpha=2).cpu().tolist(), [21.0, 42.0, 63.0])
        self.assertEqual((a + 1).cpu().tolist(), [2.0, 3.0, 4.0])
        out = torch.empty(0, device=DEVICE)
        torch.add(a, b, out=out)
        self.assertEqual(out.cpu().tolist(), [11.0, 22.0, 33.0])
        c = a.clone()
        c += b
        self.assertEqual(c.device.type, DEVICE)
        self.assertEqual(c.cpu().tolist(), [11.0, 22.0, 33.0])

    def test_mul(self):
        a, b = on_device([1, 2, 3]), on_device([2, 3, 4])
        self.assertEqual((a * b).cpu().tolist(), [2.0, 6.0, 12.0])
        self.assertEqual((a * 2).cpu().tolist(), [2.0, 4.0, 6.0])
        out = torch.empty(3, device=DEVICE)
        torch.mul(a, b, out=out)
        self.assertEqual(out.cpu().tolist(), [2.0, 6.0, 12.0])
        c = torch.ones(3, device=DEVICE)
        c.mul_(b)
        c *= b
        self.assertEqual(c.cpu().tolist(), [4.0, 9.0, 16.0])

    def test_autograd_kernel_runs_for_abs(self):
        has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
        self.assertTrue(has_kernel("aten::abs", "AutogradPrivateUse1"))
        self.assertFalse(has_kernel("aten::abs", "PrivateUse1"))
        self.assertTrue(has_kernel("aten::add.Tensor", "PrivateUse1"))
        x = on_device([-1, 2, -3])
        self.assertEqual(torch.abs(x).cpu().tolist(), [1.0, 2.0, 3.0])
        x.abs_()
        self.assertEqual(x.cpu().tolist(), [1.0, 2.0, 3.0])

    def test_operators_without_kernels_fail(self):
        a = torch.ones(3, device=DEVICE)
        with self.assertRaisesRegex(NotImplementedError, r"'aten::div[.\w]*' with arguments from the 'PrivateUse1' backend"):
            torch.div(a, a)

    def test_memory_goes_back_to_the_allocator(self):
        live = native.hostdev_live_blocks()
        t = torch.ones(1000, device=DEVICE)
        self.assertEqual(native.hostdev_live_blocks(), live + 1)
        del t
        self.assertEqual(native.hostdev_live_blocks(), live)


if __name__ == "__main__":
    unittest.main()
