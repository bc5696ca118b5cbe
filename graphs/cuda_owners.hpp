#pragma once
// Move-only owners of CUDA streams, events, graphs and executable graphs, and small helpers
// the GPU executors share. Internal header; free of fmt so nvcc can include it.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.hpp"
#include "haloflow/plan.hpp"

namespace haloflow::detail {

//! One owner template for every CUDA handle kind: moves transfer ownership, the destructor
//! destroys and reports (never throws), `get()` lends the raw handle.
template <class Traits>
class CudaHandle {
 public:
  using Raw = typename Traits::Raw;

  CudaHandle() = default;
  CudaHandle(Raw raw, std::string name) : raw_(raw), name_(std::move(name)) {}
  ~CudaHandle() { reset(); }
  CudaHandle(CudaHandle&& other) noexcept
      : raw_(std::exchange(other.raw_, Raw{})), name_(std::move(other.name_)) {}
  CudaHandle& operator=(CudaHandle&& other) noexcept {
    if (this != &other) {
      reset();
      raw_ = std::exchange(other.raw_, Raw{});
      name_ = std::move(other.name_);
    }
    return *this;
  }
  CudaHandle(const CudaHandle&) = delete;
  CudaHandle& operator=(const CudaHandle&) = delete;

  [[nodiscard]] Raw get() const { return raw_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  explicit operator bool() const { return raw_ != Raw{}; }

  void reset() noexcept {
    if (raw_ != Raw{}) cuda_warn(Traits::destroy(raw_), Traits::destroy_call, name_);
    raw_ = Raw{};
  }

 private:
  Raw raw_{};
  std::string name_;
};

struct StreamTraits {
  using Raw = cudaStream_t;
  static constexpr const char* destroy_call = "cudaStreamDestroy";
  static cudaError_t destroy(Raw raw) { return cudaStreamDestroy(raw); }
};
struct EventTraits {
  using Raw = cudaEvent_t;
  static constexpr const char* destroy_call = "cudaEventDestroy";
  static cudaError_t destroy(Raw raw) { return cudaEventDestroy(raw); }
};
struct GraphTraits {
  using Raw = cudaGraph_t;
  static constexpr const char* destroy_call = "cudaGraphDestroy";
  static cudaError_t destroy(Raw raw) { return cudaGraphDestroy(raw); }
};
struct GraphExecTraits {
  using Raw = cudaGraphExec_t;
  static constexpr const char* destroy_call = "cudaGraphExecDestroy";
  static cudaError_t destroy(Raw raw) { return cudaGraphExecDestroy(raw); }
};

using Stream = CudaHandle<StreamTraits>;
using Event = CudaHandle<EventTraits>;
using Graph = CudaHandle<GraphTraits>;
using GraphExec = CudaHandle<GraphExecTraits>;

//! A non-blocking stream at `priority` (lower numbers run first; see stream_priorities()).
inline Stream make_stream(int priority, std::string name) {
  cudaStream_t raw = nullptr;
  HALOFLOW_CUDA(cudaStreamCreateWithPriority(&raw, cudaStreamNonBlocking, priority), name);
  return Stream(raw, std::move(name));
}

//! Sets `bytes` of device memory at `device` to zero before it returns. A plain cudaMemset runs on
//! the legacy default stream, which orders nothing on a non-blocking stream: a frame launched on
//! its own stream right after could read what a freed buffer left there first (for a handoff
//! counter, a wait for a release that never comes). Zeroed on a stream of its own and waited for,
//! so neither the legacy stream's work nor any other stream's is waited for.
inline void zero_device_now(void* device, std::size_t bytes, const std::string& context) {
  const Stream stream = make_stream(0, "zeroing stream of " + context);
  HALOFLOW_CUDA(cudaMemsetAsync(device, 0, bytes, stream.get()), context);
  HALOFLOW_CUDA(cudaStreamSynchronize(stream.get()), context);
}

//! An event for ordering only: timing off, so recording and waiting stay cheap.
inline Event make_ordering_event(std::string name) {
  cudaEvent_t raw = nullptr;
  HALOFLOW_CUDA(cudaEventCreateWithFlags(&raw, cudaEventDisableTiming), name);
  return Event(raw, std::move(name));
}

//! The device's stream priority range: `lowest` for bulk work, `highest` for communication.
struct StreamPriorities {
  int lowest = 0;
  int highest = 0;
};

inline StreamPriorities stream_priorities() {
  StreamPriorities range;
  HALOFLOW_CUDA(cudaDeviceGetStreamPriorityRange(&range.lowest, &range.highest),
                "the current device");
  return range;
}

inline cudaMemcpyKind to_cuda(CopyKind kind) {
  switch (kind) {
    case CopyKind::device_to_host:
      return cudaMemcpyDeviceToHost;
    case CopyKind::host_to_device:
      return cudaMemcpyHostToDevice;
    case CopyKind::device_to_device:
      return cudaMemcpyDeviceToDevice;
  }
  return cudaMemcpyDefault;
}

//! GPU executors launch `__global__` entries; a kernel known only by its host twin cannot run.
//! \throws Error naming the first such node.
void require_device_entries(const FramePlan& plan, std::string_view executor);

}  // namespace haloflow::detail
