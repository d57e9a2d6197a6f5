"""hostdev: a PrivateUse1 device backend (opgen's add_dispatch_backend), the device "hostdev".

Importing it loads the backend's library, names the PrivateUse1 device "hostdev" and registers this
module as torch.hostdev. `import torch` imports it, through the entry point of the group
torch.backends (PyTorch 2.5 on).
"""
import os
import sys

import torch

torch.ops.load_library(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libhostdev.so"))
torch.utils.rename_privateuse1_backend("hostdev")


# What PyTorch asks of a device's module (torch.hostdev) before the device's first tensor is made.
def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> int:
    return 0


torch._register_device_module("hostdev", sys.modules[__name__])


def _autoload() -> None:
    """The torch.backends entry point: importing this module did the work."""
