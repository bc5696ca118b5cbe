// The copy kernel of the measured bandwidths: one 16-byte load and store a word, as the kernel
// labs' copy, so that a model's kernel is compared with what a kernel reaches (cudaMemcpy's copy
// engine path reaches more: 4.2 TB/s on an H200 against the kernel's 3.86-3.88).

#include <cuda_runtime.h>

#include "copy_kernel.hpp"

namespace haloflow::models {
namespace copy_detail {

__global__ void copy_words(std::int64_t words, const void* from, void* to) {
  const auto* source = static_cast<const float4*>(from);
  auto* target = static_cast<float4*>(to);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    target[i] = source[i];
  }
}

}  // namespace copy_detail

CopyKernel copy_kernel() {
  return device_kernel(&copy_detail::copy_words, "copy");
}

double l2_cache_bytes() {
  int device = 0;
  int bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess) {
    return 0;
  }
  return bytes;
}

}  // namespace haloflow::models
