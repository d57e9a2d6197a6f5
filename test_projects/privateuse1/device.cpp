// The hostdev device: its allocator and its device guard, registered for DeviceType::PrivateUse1.
#include "hostdev.h"

#include <ATen/ATen.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/version.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace hostdev {
namespace {

std::atomic<int64_t> g_allocations{0};
std::atomic<int64_t> g_live{0};

void release(void* p) {
  if (p == nullptr) return;
  g_live--;
  std::free(p);
}

struct HostDevAllocator final : c10::Allocator {
  // PyTorch 2 made allocate() non-const and added copy_data().
#if TORCH_VERSION_MAJOR >= 2
  c10::DataPtr allocate(size_t nbytes) override {
#else
  c10::DataPtr allocate(size_t nbytes) const override {
#endif
    void* p = nbytes == 0 ? nullptr : std::malloc(nbytes);
    TORCH_CHECK(nbytes == 0 || p != nullptr, "hostdev: out of memory allocating ", nbytes, " bytes");
    if (p != nullptr) {
      g_allocations++;
      g_live++;
    }
    return {p, p, &release, c10::Device(c10::DeviceType::PrivateUse1, 0)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
#if TORCH_VERSION_MAJOR >= 2
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
#endif
};

HostDevAllocator g_allocator;

// One device, index 0, with one (default) stream.
struct HostDevGuardImpl final : c10::impl::DeviceGuardImplInterface {
  static constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;
  c10::DeviceType type() const override { return kType; }
  c10::Device exchangeDevice(c10::Device d) const override {
    setDevice(d);
    return {kType, 0};
  }
  c10::Device getDevice() const override { return {kType, 0}; }
  void setDevice(c10::Device d) const override {
    TORCH_CHECK(d.type() == kType && d.index() <= 0, "hostdev has one device, not ", d);
  }
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device) const noexcept override { return c10::Stream(c10::Stream::DEFAULT, {kType, 0}); }
  c10::Stream exchangeStream(c10::Stream) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, {kType, 0});
  }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }
};

}  // namespace

c10::Allocator* allocator() { return &g_allocator; }

at::Tensor host_view(const at::Tensor& t) {
  if (!t.defined() || t.device().type() != c10::DeviceType::PrivateUse1) return t;
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(at::kCPU));
}

}  // namespace hostdev

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &hostdev::g_allocator);
C10_REGISTER_GUARD_IMPL(PrivateUse1, hostdev::HostDevGuardImpl);

extern "C" int64_t hostdev_allocations() { return hostdev::g_allocations; }
extern "C" int64_t hostdev_live_blocks() { return hostdev::g_live; }
