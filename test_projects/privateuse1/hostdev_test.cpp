// hostdev from C++: linking the library registers its kernels; ATen's operators run them on
// PrivateUse1 tensors.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <gtest/gtest.h>

#include "hostdev.h"

namespace {

const at::TensorOptions kDevice = at::TensorOptions().device(c10::DeviceType::PrivateUse1);

at::Tensor values(std::vector<float> v) { return at::tensor(v); }

TEST(HostDev, FactoriesAllocateWithTheDevicesAllocator) {
  const int64_t before = hostdev_allocations();
  const at::Tensor ones = at::ones({3}, kDevice);  // empty.memory_format, then fill_
  EXPECT_EQ(ones.device().type(), c10::DeviceType::PrivateUse1);
  EXPECT_EQ(ones.storage().data_ptr().get_deleter(), hostdev::allocator()->raw_deleter());
  EXPECT_EQ(hostdev_allocations(), before + 1);
  EXPECT_TRUE(at::equal(ones.cpu(), values({1, 1, 1})));  // _to_copy: empty on the CPU, _copy_from
}

TEST(HostDev, CopiesBothWays) {
  const at::Tensor host = at::arange(6, at::kFloat).reshape({2, 3});
  const at::Tensor dev = host.to(kDevice.device());  // empty_strided, _copy_from
  EXPECT_EQ(dev.device().type(), c10::DeviceType::PrivateUse1);
  EXPECT_EQ(dev.sizes(), host.sizes());
  EXPECT_TRUE(at::equal(dev.cpu(), host));
  EXPECT_TRUE(at::equal(dev.t().cpu(), host.t()));  // a strided view, copied back
}

TEST(HostDev, AddFunctionalInPlaceAndOut) {
  const at::Tensor a = values({1, 2, 3}).to(kDevice.device()), b = values({10, 20, 30}).to(kDevice.device());
  const at::Tensor sum = at::add(a, b, 2);
  EXPECT_EQ(sum.device().type(), c10::DeviceType::PrivateUse1);
  EXPECT_TRUE(at::equal(sum.cpu(), values({21, 42, 63})));
  at::Tensor out = at::empty({0}, kDevice);
  at::add_out(out, a, b);  // resizes out through resize_
  EXPECT_EQ(out.sizes(), a.sizes());
  EXPECT_TRUE(at::equal(out.cpu(), values({11, 22, 33})));
  at::Tensor c = a.clone();  // no clone kernel: CompositeExplicitAutograd clone is empty_strided + copy_
  c.add_(b, -1);
  EXPECT_TRUE(at::equal(c.cpu(), values({-9, -18, -27})));
  EXPECT_TRUE(at::equal((a + 1).cpu(), values({2, 3, 4})));  // a CPU scalar as other
}

TEST(HostDev, MulFunctionalInPlaceAndOut) {
  const at::Tensor a = values({1, 2, 3}).to(kDevice.device()), b = values({2, 3, 4}).to(kDevice.device());
  EXPECT_TRUE(at::equal(at::mul(a, b).cpu(), values({2, 6, 12})));
  at::Tensor out = at::empty({3}, kDevice);
  at::mul_out(out, a, b);
  EXPECT_TRUE(at::equal(out.cpu(), values({2, 6, 12})));
  at::Tensor c = at::ones({3}, kDevice);
  c.mul_(b).mul_(b);
  EXPECT_TRUE(at::equal(c.cpu(), values({4, 9, 16})));
}

TEST(HostDev, AutogradKernelRunsForAbs) {
  const auto abs = c10::Dispatcher::singleton().findSchemaOrThrow("aten::abs", "");
  EXPECT_TRUE(abs.hasKernelForDispatchKey(c10::DispatchKey::AutogradPrivateUse1));
  EXPECT_FALSE(abs.hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1));
  const at::Tensor x = values({-1, 2, -3}).to(kDevice.device());
  EXPECT_TRUE(at::equal(x.abs().cpu(), values({1, 2, 3})));
  at::Tensor y = x.clone();
  y.abs_();  // opgen's in-place wrapper around the functional kernel
  EXPECT_TRUE(at::equal(y.cpu(), values({1, 2, 3})));
  at::Tensor out = at::empty({0}, kDevice);
  at::abs_out(out, x);  // opgen's out= wrapper: _copy_from_and_resize
  EXPECT_TRUE(at::equal(out.cpu(), values({1, 2, 3})));
}

TEST(HostDev, OperatorsWithoutKernelsFail) {
  const at::Tensor a = at::ones({3}, kDevice);
  EXPECT_THROW(at::div(a, a), c10::Error);
}

TEST(HostDev, MemoryGoesBackToTheAllocator) {
  const int64_t live = hostdev_live_blocks();
  { const at::Tensor t = at::ones({1000}, kDevice); EXPECT_EQ(hostdev_live_blocks(), live + 1); }
  EXPECT_EQ(hostdev_live_blocks(), live);
}

TEST(HostDev, DeviceGuardIsRegistered) {
  const c10::impl::DeviceGuardImplInterface* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::PrivateUse1);
  EXPECT_EQ(impl->deviceCount(), 1);
  const at::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, 0));
  EXPECT_EQ(impl->getDevice(), c10::Device(c10::DeviceType::PrivateUse1, 0));
}

}  // namespace
