// The peer transport's kernels (the protocol: engine/src/peer_protocol.hpp): the send stores each
// halo straight into its receiver's mailbox and raises the receiver's flag, the receive waits for
// its flags and copies its slot into the ghosts; one kernel does both where every remote halo
// travels peer to peer (peer_exchange), two apart in a mixed exchange. Their host twins run
// the same protocol on the CPU over MPI shared-memory windows, with the same atomics: the flags,
// the counters and the failure words are accessed through cuda::atomic_ref at system scope,
// which is a GPU atomic on the device and a std::atomic-like one on the host.

#include <cuda/atomic>

#include <chrono>
#include <thread>

#include "halo_cells.cuh"
#include "peer_protocol.hpp"

namespace haloflow::detail {
namespace {

using halo_cells::cell_at;
using halo_cells::with_segment;

using SystemWord = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>;
using DeviceWord = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>;

HALOFLOW_HD inline const std::uint64_t* flag_of(const std::uint64_t* first, int message) {
  constexpr std::size_t kWordsApart = kPeerFlagBytes / sizeof(std::uint64_t);
  return first + static_cast<std::size_t>(message) * kWordsApart;
}

// Nanoseconds on a clock that only moves forward: the GPU's global timer, or the host's steady
// clock (with a yield, since the sender may be a process on this very core).
HALOFLOW_HD inline std::uint64_t nanoseconds_now() {
#if defined(__CUDA_ARCH__)
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
#else
  std::this_thread::yield();
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
#endif
}

// Every flag of `frame` raised, or the deadline (the timeout after this rank raised its own flags,
// `sent_ns`, so that a receive that comes after a host-staged exchange's bounded wait in a mixed
// chain does not add a second timeout to it): then the failure words say which message did not
// come, and false. The flags are written by other processes (or GPUs): acquire loads at system
// scope, so that the slot's contents stored before each flag are visible after it. After a
// failure (never cleared: the run has failed) no block waits long again: the frames queued behind
// it, or the later repetitions of a frame loop, end soon, so a silent peer costs one deadline.
// The failure word is host memory (a read crosses PCIe): looked at once, and only after a wait
// longer than a halo's usual latency, so that no frame that gets its halos pays for the look.
template <class T>
HALOFLOW_HD inline bool wait_for_flags(const PeerReceive<T>& receive, std::uint64_t frame,
                                       std::uint64_t sent_ns) {
  constexpr std::uint64_t kLookForFailureNs = 20000;
  const std::uint64_t start = sent_ns;
  bool looked = false;
  for (int m = 0; m < receive.messages; ++m) {
    SystemWord flag(*const_cast<std::uint64_t*>(flag_of(receive.flags, m)));
    while (flag.load(cuda::memory_order_acquire) < frame) {
      const std::uint64_t waited = nanoseconds_now() - start;
      if (!looked && waited > kLookForFailureNs) {
        looked = true;
        if (SystemWord(receive.failure[0]).load(cuda::memory_order_relaxed) != 0) return false;
      }
      if (waited > receive.timeout_ns) {
        SystemWord(receive.failure[1]).store(frame, cuda::memory_order_relaxed);
        SystemWord(receive.failure[0])
            .store(static_cast<std::uint64_t>(m) + 1, cuda::memory_order_release);
        return false;
      }
    }
  }
  return true;
}

// One element of the halos this rank sends: from its cell into the receiver's slot of `frame`.
template <class T>
struct SendElement {
  static HALOFLOW_HD void apply(std::int64_t element, const PeerSegments& segments,
                                const FieldTable<T>& table, std::uint64_t frame) {
    with_segment(element, segments, [&](const PeerSegment& s) {
      T* const slot = static_cast<T*>(s.target) + (frame % 2) * s.slot_elements;
      const T value = cell_at(element - s.buffer_offset, s.lower, s.extent, s.field, table);
#if defined(__CUDA_ARCH__)
      __stcg(slot + (element - s.buffer_offset), value);  // to L2: it is for another process
#else
      slot[element - s.buffer_offset] = value;
#endif
    });
  }
};

// One element of the halos this rank receives: from its slot into the ghost cell.
template <class T>
struct ReceiveElement {
  static HALOFLOW_HD void apply(std::int64_t element, const HaloSegments& segments,
                                const FieldTable<T>& table, const T* slot) {
    with_segment(element, segments, [&](const HaloSegment& s) {
#if defined(__CUDA_ARCH__)
      // L2, not L1: the slot was written by another process since this SM last read it.
      const T value = __ldcg(slot + element);
#else
      const T value = slot[element];
#endif
      cell_at(element - s.buffer_offset, s.lower, s.extent, s.field, table) = value;
    });
  }
};

// A block's share of the sends of frame counters[0] + 1 (which it returns): its halo elements
// stored into the receivers' slots, then the block counted done; the last block of the launch
// raises the flags. Every thread of the block returns the frame.
template <class T>
__device__ std::uint64_t send_block_share(std::size_t elements, const PeerSegments& segments,
                                          const FieldTable<T>& table, const PeerSend& send) {
  // Read before this block counts itself finished: the last block bumps it only after that.
  const std::uint64_t frame = *send.counters + 1;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t e = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < elements; e += stride) {
    SendElement<T>::apply(static_cast<std::int64_t>(e), segments, table, frame);
  }
  // The block's stores, ordered by the barrier before thread 0's fence (cumulative, as in a
  // cooperative grid sync), reach the receivers before the block counts itself done; the last
  // block to count (the count grows by gridDim.x a launch) raises the flags.
  __syncthreads();
  if (threadIdx.x != 0) return frame;
  __threadfence_system();
  const std::uint64_t before =
      DeviceWord(send.counters[1]).fetch_add(1, cuda::memory_order_acq_rel);
  if ((before + 1) % gridDim.x != 0) return frame;
  // One system-scope fence, then relaxed stores: each a release pattern (fence, then a strong
  // store), the fence cumulative over the other blocks' stores this block's count observed. A
  // release store per flag would fence once a flag.
  __threadfence_system();
  for (int m = 0; m < send.messages; ++m) {
    SystemWord(*send.flags[m]).store(frame, cuda::memory_order_relaxed);
  }
  send.counters[0] = frame;
  send.counters[2] = nanoseconds_now();
  return frame;
}

// A block's share of the receive of `frame`: thread 0 waits for the flags (from `since_ns`), the
// barrier hands its acquire to the block, which copies its elements of the slot into the ghosts.
template <class T>
__device__ void receive_block_share(std::size_t elements, const HaloSegments& segments,
                                    const FieldTable<T>& table, const PeerReceive<T>& receive,
                                    std::uint64_t frame, std::uint64_t since_ns) {
  __shared__ bool arrived;
  if (threadIdx.x == 0) arrived = wait_for_flags(receive, frame, since_ns);
  __syncthreads();  // thread 0's acquire, then the barrier: the slot is visible to the block
  if (!arrived) return;
  const T* const slot = receive.slots + (frame % 2) * receive.slot_elements;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t e = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < elements; e += stride) {
    ReceiveElement<T>::apply(static_cast<std::int64_t>(e), segments, table, slot);
  }
}

template <class T>
__global__ void peer_send(std::size_t elements, __grid_constant__ const PeerSegments segments,
                          __grid_constant__ const FieldTable<T> table, PeerSend send) {
  (void)send_block_share(elements, segments, table, send);
}

template <class T>
void peer_send_on_host(const LaunchShape& /*shape*/, std::size_t elements, PeerSegments segments,
                       FieldTable<T> table, PeerSend send) {
  const std::uint64_t frame = send.counters[0] + 1;
  for (std::size_t e = 0; e < elements; ++e) {
    SendElement<T>::apply(static_cast<std::int64_t>(e), segments, table, frame);
  }
  for (int m = 0; m < send.messages; ++m) {
    SystemWord(*send.flags[m]).store(frame, cuda::memory_order_release);
  }
  send.counters[0] = frame;
  send.counters[2] = nanoseconds_now();
}

template <class T>
__global__ void peer_receive(std::size_t elements, __grid_constant__ const HaloSegments segments,
                             __grid_constant__ const FieldTable<T> table, PeerReceive<T> receive) {
  // The send kernel of this frame has finished (it comes before in the frame): its count is ours.
  receive_block_share(elements, segments, table, receive, receive.counters[0], receive.counters[2]);
}

// The exchange of peer routes only, in one kernel: each block stores its share of the sends, then
// waits for this frame's flags and copies its share of the slot. The sends read owned cells and
// the copies write ghosts, so no block's copy meets another's sends. A block waits only after its
// own stores are counted, so the flags it waits for need no block that cannot start: the last
// block to count raises this rank's flags, and the neighbours' come from their own kernels. The
// grid is small (a block per 256 halo elements, at most the exchange's usual count), so every block
// is resident once the kernels beside it make room. Its deadline counts from the block's own
// wait: nothing of this rank waited before it in the exchange.
template <class T>
__global__ void peer_exchange(std::size_t send_elements,
                              __grid_constant__ const PeerSegments send_segments,
                              std::size_t receive_elements,
                              __grid_constant__ const HaloSegments receive_segments,
                              __grid_constant__ const FieldTable<T> table, PeerSend send,
                              PeerReceive<T> receive) {
  const std::uint64_t frame = send_block_share(send_elements, send_segments, table, send);
  receive_block_share(receive_elements, receive_segments, table, receive, frame, nanoseconds_now());
}

template <class T>
void peer_receive_on_host(const LaunchShape& /*shape*/, std::size_t elements, HaloSegments segments,
                          FieldTable<T> table, PeerReceive<T> receive) {
  const std::uint64_t frame = receive.counters[0];
  // On a timeout the exchange's check reports it, naming the peer, when the frame is waited for.
  if (!wait_for_flags(receive, frame, receive.counters[2])) return;
  const T* const slot = receive.slots + (frame % 2) * receive.slot_elements;
  for (std::size_t e = 0; e < elements; ++e) {
    ReceiveElement<T>::apply(static_cast<std::int64_t>(e), segments, table, slot);
  }
}

template <class T>
void peer_exchange_on_host(const LaunchShape& shape, std::size_t send_elements,
                           PeerSegments send_segments, std::size_t receive_elements,
                           HaloSegments receive_segments, FieldTable<T> table, PeerSend send,
                           PeerReceive<T> receive) {
  peer_send_on_host(shape, send_elements, send_segments, table, send);
  peer_receive_on_host(shape, receive_elements, receive_segments, table, receive);
}

// The parameter blocks as CUDA lays them out: far below the 4 KB every CUDA version takes.
static_assert(sizeof(std::size_t) + sizeof(PeerSegments) + sizeof(FieldTable<double>) +
                  sizeof(PeerSend) <=
              2048);
static_assert(sizeof(std::size_t) + sizeof(HaloSegments) + sizeof(FieldTable<double>) +
                  sizeof(PeerReceive<double>) <=
              1280);
static_assert(2 * sizeof(std::size_t) + sizeof(PeerSegments) + sizeof(HaloSegments) +
                  sizeof(FieldTable<double>) + sizeof(PeerSend) + sizeof(PeerReceive<double>) <=
              4096);

}  // namespace

template <class T>
KernelRef<std::size_t, PeerSegments, FieldTable<T>, PeerSend> peer_send_kernel() {
  return {&peer_send<T>, &peer_send_on_host<T>, "peer_send"};
}

template <class T>
KernelRef<std::size_t, HaloSegments, FieldTable<T>, PeerReceive<T>> peer_receive_kernel() {
  return {&peer_receive<T>, &peer_receive_on_host<T>, "peer_receive"};
}

template <class T>
PeerExchangeKernel<T> peer_exchange_kernel() {
  return {&peer_exchange<T>, &peer_exchange_on_host<T>, "peer_exchange"};
}

template KernelRef<std::size_t, PeerSegments, FieldTable<float>, PeerSend>
peer_send_kernel<float>();
template KernelRef<std::size_t, PeerSegments, FieldTable<double>, PeerSend>
peer_send_kernel<double>();
template KernelRef<std::size_t, HaloSegments, FieldTable<float>, PeerReceive<float>>
peer_receive_kernel<float>();
template KernelRef<std::size_t, HaloSegments, FieldTable<double>, PeerReceive<double>>
peer_receive_kernel<double>();
template PeerExchangeKernel<float> peer_exchange_kernel<float>();
template PeerExchangeKernel<double> peer_exchange_kernel<double>();

}  // namespace haloflow::detail
