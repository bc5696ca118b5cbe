// The marks around an NCCL exchange on the GPU: how far the device got, for the NCCL watchdog
// (graphs/nccl_channel.cpp). One thread each; a start mark counts the execution.

#include <cuda_runtime_api.h>

#include "nccl_marks.hpp"

namespace haloflow::detail {
namespace {

__global__ void mark(std::uint64_t* executions, HandoffWord* word, bool start) {
  if (start) ++*executions;
  __threadfence_system();
  *static_cast<volatile std::uint64_t*>(&word->value) = *executions;
}

}  // namespace

cudaError_t launch_mark(CUstream_st* stream, std::uint64_t* executions, HandoffWord* word,
                        bool start) {
  mark<<<1, 1, 0, stream>>>(executions, word, start);
  return cudaGetLastError();
}

}  // namespace haloflow::detail
