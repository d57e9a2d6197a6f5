// The CUDA kernels of the operators (add_dispatch_backend(cudaops CUDA SOURCES kernels.cu)): the
// same operators as kernels.cpp's, computed on the GPU by kernels of their own.
#include <cudaops/NativeFunctions.h>

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

namespace cudaops::native {
namespace {

template <typename T>
__global__ void axpbyKernel(const T* x, const T* y, T* out, T a, T b, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + b * y[i];
}

template <typename T>
__global__ void clipKernel(T* x, T limit, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] < -limit ? -limit : (x[i] > limit ? limit : x[i]);
}

constexpr int kThreads = 256;
int blocks(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

}  // namespace

TORCH_IMPL_FUNC(axpby_out_cuda)(const at::Tensor& self, const at::Tensor& other, double a, double b,
                                const at::Tensor& out) {
  TORCH_CHECK(self.is_cuda(), "cudaops::axpby: the CUDA kernel got a tensor on ", self.device());
  TORCH_CHECK(self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble,
              "cudaops::axpby: float32 or float64 tensors, got ", self.scalar_type());
  const at::Tensor x = self.contiguous(), y = other.contiguous();
  // out may be a strided view (axpby_ of a non-contiguous tensor): compute into a contiguous one.
  at::Tensor result = out.is_contiguous() ? out : at::empty_like(out, at::MemoryFormat::Contiguous);
  const int64_t n = x.numel();
  if (n > 0) {
    const c10::cuda::CUDAGuard guard(self.device());
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (self.scalar_type() == at::kFloat) {
      axpbyKernel<float><<<blocks(n), kThreads, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                                             result.data_ptr<float>(), static_cast<float>(a),
                                                             static_cast<float>(b), n);
    } else {
      axpbyKernel<double><<<blocks(n), kThreads, 0, stream>>>(x.data_ptr<double>(), y.data_ptr<double>(),
                                                              result.data_ptr<double>(), a, b, n);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  if (!result.is_same(out)) out.copy_(result);
}

at::Tensor& clip_cuda_(at::Tensor& self, double limit) {
  TORCH_CHECK(limit >= 0, "cudaops::clip_: limit must not be negative, got ", limit);
  TORCH_CHECK(self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble,
              "cudaops::clip_: float32 or float64 tensors, got ", self.scalar_type());
  at::Tensor x = self.is_contiguous() ? self : self.contiguous();
  const int64_t n = x.numel();
  if (n > 0) {
    const c10::cuda::CUDAGuard guard(self.device());
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (self.scalar_type() == at::kFloat) {
      clipKernel<float><<<blocks(n), kThreads, 0, stream>>>(x.data_ptr<float>(), static_cast<float>(limit), n);
    } else {
      clipKernel<double><<<blocks(n), kThreads, 0, stream>>>(x.data_ptr<double>(), limit, n);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  if (!x.is_same(self)) self.copy_(x);
  return self;
}

}  // namespace cudaops::native
