// The handoff kernel: the GPU half of the proxy handoff (engine/src/handoff.hpp).

#include "handoff_kernel.hpp"

namespace haloflow::detail {
namespace {

__device__ inline std::uint64_t global_nanoseconds() {
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Host-mapped words are read and written through volatile accesses: each read goes over PCIe
// (about 1 us), which also paces the spin without any sleep.
__device__ inline std::uint64_t read(const HandoffWord& word) {
  return *static_cast<const volatile std::uint64_t*>(&word.value);
}
__device__ inline void write(HandoffWord& word, std::uint64_t value) {
  *static_cast<volatile std::uint64_t*>(&word.value) = value;
}

__global__ void handoff(HandoffArgs args) {
  const std::uint64_t execution = *args.executions + 1;
  *args.executions = execution;
  // The dependencies' writes (a pack into host-mapped memory among them) are complete: they ran
  // in kernels that finished before this one started. The fence orders this thread's view before
  // the doorbell the host acts on.
  __threadfence_system();
  write(args.slot->doorbell, execution);
  const std::uint64_t start = global_nanoseconds();
  while (read(args.slot->release) < execution) {
    if (global_nanoseconds() - start > args.deadline_ns) {
      write(args.slot->gave_up, execution);  // Frame::wait reports it; the graph goes on
      break;
    }
  }
  __threadfence_system();  // what the host wrote before the release, before the kernels after us
  write(args.slot->acknowledged, execution);
}

}  // namespace

const void* handoff_kernel_entry() {
  return reinterpret_cast<const void*>(&handoff);
}

}  // namespace haloflow::detail
