#pragma once
// Kernels that mark the start and end of an NCCL exchange on the GPU (kernels/nccl_marks.cu).

#include <cuda_runtime_api.h>

#include <cstdint>

#include "handoff.hpp"

namespace haloflow::detail {

//! Where the marks of one exchange go: host-mapped words the watchdog reads.
struct NcclMarks {
  HandoffWord started;   //!< executions that reached the exchange
  HandoffWord finished;  //!< executions whose sends and receives completed
};

//! Queues a one-thread kernel on `stream`: with `start`, counts an execution in `executions`
//! (device memory); either way writes the count to `word`.
cudaError_t launch_mark(CUstream_st* stream, std::uint64_t* executions, HandoffWord* word,
                        bool start);

}  // namespace haloflow::detail
