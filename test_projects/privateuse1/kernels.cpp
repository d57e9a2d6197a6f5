// hostdev's ATen kernels, declared by opgen in PrivateUse1NativeFunctions.h (from backend.yaml). The
// tensors live in hostdev's memory; the kernels compute through CPU views of it (hostdev::host_view).
#include "PrivateUse1NativeFunctions.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>

#include <cstring>

#include "hostdev.h"

namespace hostdev {
namespace {

constexpr c10::DispatchKeySet kKeys(c10::DispatchKey::PrivateUse1);

void check_device(c10::optional<at::Device> device) {
  TORCH_CHECK(!device || device->type() == c10::DeviceType::PrivateUse1, "hostdev: cannot allocate on ", *device);
}

// A new hostdev tensor with the values of the CPU tensor `values`.
at::Tensor to_device(const at::Tensor& values) {
  at::Tensor result = at::detail::empty_generic(values.sizes(), allocator(), kKeys, values.scalar_type(), c10::nullopt);
  host_view(result).copy_(values);
  return result;
}

}  // namespace

at::Tensor PrivateUse1NativeFunctions::empty(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                                             c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                                             c10::optional<bool> pin_memory,
                                             c10::optional<at::MemoryFormat> memory_format) {
  check_device(device);
  return at::detail::empty_generic(size, allocator(), kKeys, c10::dtype_or_default(dtype), memory_format);
}

at::Tensor PrivateUse1NativeFunctions::empty_strided(at::IntArrayRef size, at::IntArrayRef stride,
                                                     c10::optional<at::ScalarType> dtype,
                                                     c10::optional<at::Layout> layout,
                                                     c10::optional<at::Device> device,
                                                     c10::optional<bool> pin_memory) {
  check_device(device);
  return at::detail::empty_strided_generic(size, stride, allocator(), kKeys, c10::dtype_or_default(dtype));
}

// Between hostdev and the CPU, either way (at::Tensor::copy_ calls it for devices it does not know).
at::Tensor PrivateUse1NativeFunctions::_copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  host_view(dst).copy_(host_view(self));
  return dst;
}

// The same, into a tensor resized to self's size first (out= wrappers that opgen derives use it).
at::Tensor PrivateUse1NativeFunctions::_copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  at::native::resize_output(dst, self.sizes());
  host_view(dst).copy_(host_view(self));
  return dst;
}

const at::Tensor& PrivateUse1NativeFunctions::resize_(const at::Tensor& self, at::IntArrayRef size,
                                                      c10::optional<at::MemoryFormat> memory_format) {
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->set_sizes_contiguous(size);
  if (memory_format) impl->empty_tensor_restride(*memory_format);
  const size_t needed = (impl->storage_offset() + impl->numel()) * self.itemsize();
  c10::Storage storage = self.storage();
  if (needed > storage.nbytes()) {
    c10::DataPtr data = allocator()->allocate(needed);
    if (storage.nbytes() > 0) std::memcpy(data.get(), storage.data(), storage.nbytes());
    storage.set_data_ptr_noswap(std::move(data));
    storage.set_nbytes(needed);
  }
  return self;
}

// A view: the same storage, other sizes and strides (transposes, slices, .t().cpu()).
at::Tensor PrivateUse1NativeFunctions::as_strided(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride,
                                                  c10::optional<int64_t> storage_offset) {
  at::Tensor view = at::detail::make_tensor<c10::TensorImpl>(c10::TensorImpl::VIEW, c10::Storage(self.storage()),
                                                             self.key_set(), self.dtype());
  view.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride, storage_offset.value_or(self.storage_offset()));
  return view;
}

at::Tensor& PrivateUse1NativeFunctions::fill_(at::Tensor& self, const at::Scalar& value) {
  host_view(self).fill_(value);
  return self;
}

at::Tensor PrivateUse1NativeFunctions::add(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return to_device(at::add(host_view(self), host_view(other), alpha));
}

at::Tensor& PrivateUse1NativeFunctions::add_(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  host_view(self).add_(host_view(other), alpha);
  return self;
}

at::Tensor& PrivateUse1NativeFunctions::add_out(const at::Tensor& self, const at::Tensor& other,
                                                const at::Scalar& alpha, at::Tensor& out) {
  const at::Tensor sum = at::add(host_view(self), host_view(other), alpha);
  at::native::resize_output(out, sum.sizes());  // through resize_, when the size differs
  host_view(out).copy_(sum);
  return out;
}

at::Tensor PrivateUse1NativeFunctions::mul(const at::Tensor& self, const at::Tensor& other) {
  return to_device(at::mul(host_view(self), host_view(other)));
}

at::Tensor& PrivateUse1NativeFunctions::mul_(at::Tensor& self, const at::Tensor& other) {
  host_view(self).mul_(host_view(other));
  return self;
}

at::Tensor& PrivateUse1NativeFunctions::mul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  const at::Tensor product = at::mul(host_view(self), host_view(other));
  at::native::resize_output(out, product.sizes());
  host_view(out).copy_(product);
  return out;
}

// Listed under `autograd:` in backend.yaml: registered for AutogradPrivateUse1, it runs instead of
// PyTorch's autograd kernel for abs (and opgen derives abs_ and abs.out from it).
at::Tensor PrivateUse1NativeFunctions::abs(const at::Tensor& self) { return to_device(host_view(self).abs()); }

}  // namespace hostdev
