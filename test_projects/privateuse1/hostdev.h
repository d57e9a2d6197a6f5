// hostdev: a PrivateUse1 device whose memory is host memory, handed out by its own allocator
// (device.cpp). Its ATen kernels are in kernels.cpp, declared by opgen in PrivateUse1NativeFunctions.h.
#pragma once

#include <ATen/Tensor.h>
#include <c10/core/Allocator.h>

#include <cstdint>

namespace hostdev {

// The device's allocator (registered for DeviceType::PrivateUse1).
c10::Allocator* allocator();

// A CPU tensor over the same memory as `t` (a hostdev tensor); any other tensor is returned as it is.
at::Tensor host_view(const at::Tensor& t);

}  // namespace hostdev

// How many blocks the allocator has handed out since the library was loaded, and how many are still
// live: the tests' proof that hostdev tensors live in its memory (C linkage, for Python's ctypes).
extern "C" int64_t hostdev_allocations();
extern "C" int64_t hostdev_live_blocks();
