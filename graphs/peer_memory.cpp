// The peer transport's calls into CUDA (declared in engine/src/gpu_ports.hpp): a mailbox's IPC
// handle, mapping a neighbour's mailbox into this process, and whether this device can store
// into another one.

#include <fmt/format.h>

#include <cstring>

#include "cuda_check.hpp"
#include "gpu_ports.hpp"

namespace haloflow::detail {

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(IpcHandle::bytes));

IpcHandle ipc_handle_of(void* device_memory, const std::string& context) {
  cudaIpcMemHandle_t handle{};
  HALOFLOW_CUDA(cudaIpcGetMemHandle(&handle, device_memory), context);
  IpcHandle result;
  std::memcpy(result.bytes, &handle, sizeof handle);
  return result;
}

void* open_ipc_handle(const IpcHandle& handle, const std::string& context) {
  cudaIpcMemHandle_t cuda_handle{};
  std::memcpy(&cuda_handle, handle.bytes, sizeof cuda_handle);
  void* mapped = nullptr;
  // Lazy peer access: a neighbour on another GPU of the node is mapped with peer access enabled.
  HALOFLOW_CUDA(cudaIpcOpenMemHandle(&mapped, cuda_handle, cudaIpcMemLazyEnablePeerAccess),
                context);
  return mapped;
}

void close_ipc_handle(void* mapped, const std::string& context) noexcept {
  HALOFLOW_CUDA_NOTHROW(cudaIpcCloseMemHandle(mapped), context);
}

DeviceAddress current_device_address(const std::string& context) {
  int device = 0;
  HALOFLOW_CUDA(cudaGetDevice(&device), context);
  DeviceAddress address;
  HALOFLOW_CUDA(cudaDeviceGetPCIBusId(address.bus_id, sizeof address.bus_id, device), context);
  return address;
}

std::string why_device_unreachable(const DeviceAddress& other, const std::string& context) {
  int mine = 0;
  HALOFLOW_CUDA(cudaGetDevice(&mine), context);
  int theirs = -1;
  if (cudaDeviceGetByPCIBusId(&theirs, other.bus_id) != cudaSuccess) {
    (void)cudaGetLastError();
    return fmt::format("its GPU ({}) is not visible to this process (CUDA_VISIBLE_DEVICES?)",
                       other.bus_id);
  }
  if (theirs == mine) return {};
  int can = 0;
  HALOFLOW_CUDA(cudaDeviceCanAccessPeer(&can, mine, theirs), context);
  if (can == 0) {
    return fmt::format("GPU {} cannot access GPU {} directly (cudaDeviceCanAccessPeer)", mine,
                       theirs);
  }
  return {};
}

}  // namespace haloflow::detail
