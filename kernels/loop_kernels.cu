// The frame loop's counter (loop_kernels.hpp): the repetitions left live on the device, so that a
// WHILE body needs no parameter patched between its repetitions.

#include <cuda_runtime.h>

#include "loop_kernels.hpp"

namespace haloflow::detail {
namespace {

__global__ void loop_start(unsigned* left, unsigned repetitions) {
  *left = repetitions;
}

// A root of the body, beside the frames: the condition it sets is read when the repetition ends.
// It starts at 1 every launch (cudaGraphCondAssignDefault), and the start kernel asks for at
// least one repetition, so only the end of the loop needs setting.
__global__ void loop_next(unsigned* left, cudaGraphConditionalHandle handle) {
  const unsigned remaining = *left - 1;
  *left = remaining;
  if (remaining == 0) cudaGraphSetConditional(handle, 0);
}

}  // namespace

const void* loop_start_entry() {
  return reinterpret_cast<const void*>(&loop_start);
}

const void* loop_next_entry() {
  return reinterpret_cast<const void*>(&loop_next);
}

}  // namespace haloflow::detail
