#include "haloflow/device.hpp"

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace haloflow {

bool gpu_available() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();  // "no device" must not linger as the runtime's last error
  return status == cudaSuccess && count > 0;
}

std::optional<DeviceInfo> current_device() {
  if (!gpu_available()) return std::nullopt;
  DeviceInfo info;
  HALOFLOW_CUDA(cudaGetDevice(&info.ordinal), "the current device");
  cudaDeviceProp properties{};
  HALOFLOW_CUDA(cudaGetDeviceProperties(&properties, info.ordinal), "the current device");
  info.name = properties.name;
  info.multiprocessors = properties.multiProcessorCount;
  info.memory_gib = static_cast<double>(properties.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  HALOFLOW_CUDA(cudaDeviceGetStreamPriorityRange(&info.priority_lowest, &info.priority_highest),
                "the current device");
  HALOFLOW_CUDA(cudaDriverGetVersion(&info.driver_version), "the CUDA driver");
  HALOFLOW_CUDA(cudaRuntimeGetVersion(&info.runtime_version), "the CUDA runtime");
  return info;
}

}  // namespace haloflow
