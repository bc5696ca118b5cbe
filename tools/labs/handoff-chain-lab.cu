// Where does the small host-staged chain's time go (low-latency frames: pack, to host, MPI, back,
// unpack of two 16 KB halos; 22 us a frame with the proxy handoff), and what would ringing the
// doorbell from the pack kernel and waiting for the release in the unpack kernel save? A
// stand-alone measurement, built with the project (tools/labs/CMakeLists.txt; `cmake --build build
// --target handoff-chain-lab`, the program build/labs/handoff-chain-lab) and run by
// tools/latency-labs on the GPU machine:
//   mpiexec -n 1 build/labs/handoff-chain-lab
// The host's work is a 32 KB memcpy (what MPI's send to the rank itself does); built with
// -DLAB_MPI (as the build does, linking MPI) the lab also runs the chain with the work the
// exchange does, Irecv x2, Isend x2, Testsome, under mpiexec -n 1.
// Each variant is a CUDA graph launched 2000 times back to back on one stream (the mean per
// launch, the median of 5 such runs), with a host thread standing in for haloflow's progress
// thread where the graph has a handoff: it spins on the doorbell (host-mapped), does its work and
// writes the release, as engine/src/handoff.cpp does; the handoff kernel is
// kernels/handoff_kernel.cu's protocol without the deadline. Pack reads 4096 doubles of a device
// field and writes them to host-mapped memory (write-through stores); unpack reads them back with
// volatile loads.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "lab_timing.cuh"

#if defined(LAB_MPI)
#include <mpi.h>
#endif

namespace {

constexpr int kElements = 4096;  // two 16 KB messages of doubles
constexpr int kFrames = 2000;
constexpr int kRuns = 5;

struct alignas(64) Word {
  unsigned long long value;
};
struct Slot {
  Word doorbell;
  Word release;
};

__device__ inline unsigned long long read(const Word& w) {
  return *static_cast<const volatile unsigned long long*>(&w.value);
}
__device__ inline void write(Word& w, unsigned long long v) {
  *static_cast<volatile unsigned long long*>(&w.value) = v;
}

__global__ void tiny(double* field) {
  if (threadIdx.x == 0) field[0] += 1.0;
}

__global__ void pack(const double* __restrict__ field, double* send, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    __stwt(send + i, field[i]);
  }
}

__global__ void unpack(double* __restrict__ field, const double* receive, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    field[i + n] = __ldcv(receive + i);
  }
}

// Pack and unpack as kernels/halo_kernels.cu finds each element's cell: the segment (one row
// per message here) by binary search over a table in device memory, the field's address from a
// pointer table in device memory, the cell from the segment's box: three dependent loads before
// the element's own, where `pack` and `unpack` have none.
struct Segment {
  long long buffer_offset;
  long long lower[3];
  long long extent[3];
  int field;
};

__device__ inline const Segment& segment_of(long long e, const Segment* segments, int count) {
  int low = 0;
  int high = count - 1;
  while (low < high) {
    const int middle = (low + high + 1) / 2;
    if (segments[middle].buffer_offset <= e) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return segments[low];
}

__device__ inline double& cell_of(long long e, const Segment* segments, int count,
                                  double* const* fields, long long stride) {
  const Segment& s = segment_of(e, segments, count);
  const auto local = static_cast<unsigned>(e - s.buffer_offset);
  const auto nx = static_cast<unsigned>(s.extent[0]);
  const unsigned row = local / nx;
  return fields[s.field][s.lower[0] + (local - row * nx) + stride * (s.lower[1] + row)];
}

__global__ void pack_lookup(std::size_t n, const Segment* segments, int count,
                            double* const* fields, long long stride, double* send) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const auto e = static_cast<long long>(i);
    __stwt(send + e, cell_of(e, segments, count, fields, stride));
  }
}

__global__ void unpack_lookup(std::size_t n, const Segment* segments, int count,
                              double* const* fields, long long stride, const double* receive) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const auto e = static_cast<long long>(i);
    cell_of(e, segments, count, fields, stride) = __ldcv(receive + e);
  }
}

// The engine's handoff kernel: count the execution, ring, spin on the release.
__global__ void handoff(Slot* slot, unsigned long long* executions) {
  const unsigned long long execution = *executions + 1;
  *executions = execution;
  __threadfence_system();
  write(slot->doorbell, execution);
  while (read(slot->release) < execution) {
  }
  __threadfence_system();
}

__device__ inline unsigned long long global_nanoseconds() {
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// The handoff kernel with what kernels/handoff_kernel.cu adds: the deadline read off the global
// timer at every poll (kDeadline) and the acknowledgement written after the last fence
// (kAcknowledge).
template <bool kDeadline, bool kAcknowledge>
__global__ void handoff_as_engine(Slot* slot, unsigned long long* executions, Word* acknowledged) {
  const unsigned long long execution = *executions + 1;
  *executions = execution;
  __threadfence_system();
  write(slot->doorbell, execution);
  const unsigned long long start = kDeadline ? global_nanoseconds() : 0;
  while (read(slot->release) < execution) {
    if (kDeadline && global_nanoseconds() - start > 30'000'000'000ULL) break;
  }
  __threadfence_system();
  if (kAcknowledge) write(*acknowledged, execution);
}

// Pack whose last block to finish rings the doorbell (a ticket in device memory).
__global__ void pack_ring(const double* __restrict__ field, double* send, int n, Slot* slot,
                          unsigned long long* executions, unsigned* ticket) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    __stwt(send + i, field[i]);
  }
  __threadfence_system();  // this thread's stores reach the host before its block's ticket
  __syncthreads();
  if (threadIdx.x != 0) return;
  if (atomicAdd(ticket, 1U) != gridDim.x - 1) return;
  *ticket = 0;
  const unsigned long long execution = *executions + 1;
  *executions = execution;
  __threadfence_system();
  write(slot->doorbell, execution);
}

// The release spin alone (after pack_ring).
__global__ void wait_release(Slot* slot, const unsigned long long* executions) {
  const unsigned long long execution = *executions;
  while (read(slot->release) < execution) {
  }
  __threadfence_system();
}

// Unpack whose blocks first wait for the release (thread 0 of each spins).
__global__ void unpack_wait(double* __restrict__ field, const double* receive, int n, Slot* slot,
                            const unsigned long long* executions) {
  if (threadIdx.x == 0) {
    const unsigned long long execution = *executions;
    while (read(slot->release) < execution) {
    }
    __threadfence_system();
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    field[i + n] = __ldcv(receive + i);
  }
}

enum class Work { none, copy, mpi };

// The exchange's host work at one rank: both halves received from and sent to the rank itself.
void exchange_with_self([[maybe_unused]] const double* send, [[maybe_unused]] double* receive) {
#if defined(LAB_MPI)
  constexpr int kHalf = kElements / 2;
  MPI_Request requests[4];
  for (int m = 0; m < 2; ++m) {
    MPI_Irecv(receive + m * kHalf, kHalf, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, &requests[m]);
  }
  for (int m = 0; m < 2; ++m) {
    MPI_Isend(send + m * kHalf, kHalf, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, &requests[2 + m]);
  }
  int finished[4];
  for (;;) {
    int done = 0;
    MPI_Testsome(4, requests, &done, finished, MPI_STATUSES_IGNORE);
    if (done == MPI_UNDEFINED) return;
    if (done == 0) std::this_thread::yield();
  }
#endif
}

// The stand-in progress thread: serves executions 1..frames, each after its doorbell.
void serve(Slot* slot, unsigned long long frames, const double* send, double* receive, Work work) {
  for (unsigned long long e = 1; e <= frames; ++e) {
    while (
        std::atomic_ref<unsigned long long>(slot->doorbell.value).load(std::memory_order_acquire) <
        e) {
    }
    if (work == Work::copy) std::memcpy(receive, send, kElements * sizeof(double));
    if (work == Work::mpi) exchange_with_self(send, receive);
    std::atomic_ref<unsigned long long>(slot->release.value).store(e, std::memory_order_release);
  }
}

struct Node {
  void* kernel;
  unsigned blocks;
  unsigned threads;
  std::vector<void*> args;
};

// A graph of `nodes` in a chain.
cudaGraphExec_t chain(const std::vector<Node>& nodes) {
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t previous = nullptr;
  for (const Node& node : nodes) {
    cudaKernelNodeParams p{};
    p.func = node.kernel;
    p.gridDim = dim3(node.blocks);
    p.blockDim = dim3(node.threads);
    p.kernelParams = const_cast<void**>(node.args.data());
    cudaGraphNode_t added;
    CHECK(cudaGraphAddKernelNode(&added, graph, previous != nullptr ? &previous : nullptr,
                                 previous != nullptr ? 1 : 0, &p));
    previous = added;
  }
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  return exec;
}

}  // namespace

int main([[maybe_unused]] int argc, [[maybe_unused]] char** argv) {
#if defined(LAB_MPI)
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#endif
  double* field = nullptr;
  CHECK(cudaMalloc(&field, 4 * kElements * sizeof(double)));
  CHECK(cudaMemset(field, 0, 4 * kElements * sizeof(double)));
  unsigned long long* executions = nullptr;
  unsigned* ticket = nullptr;
  CHECK(cudaMalloc(&executions, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&ticket, sizeof(unsigned)));
  CHECK(cudaMemset(ticket, 0, sizeof(unsigned)));
  double *send = nullptr, *receive = nullptr;
  Slot* slot = nullptr;
  const unsigned flags = cudaHostAllocMapped | cudaHostAllocPortable;
  CHECK(cudaHostAlloc(&send, kElements * sizeof(double), flags));
  CHECK(cudaHostAlloc(&receive, kElements * sizeof(double), flags));
  CHECK(cudaHostAlloc(&slot, sizeof(Slot), flags));
  std::memset(receive, 0, kElements * sizeof(double));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int n = kElements;

  // Runs `exec` kFrames times back to back kRuns times (the slot and counter reset before each
  // run, a serving thread beside it if `host`); the median of the runs' means per frame.
  const auto time = [&](cudaGraphExec_t exec, bool host, Work work) {
    std::vector<double> means;
    for (int run = 0; run < kRuns; ++run) {
      slot->doorbell.value = 0;
      slot->release.value = 0;
      CHECK(cudaMemsetAsync(executions, 0, sizeof(unsigned long long), stream));
      CHECK(cudaStreamSynchronize(stream));
      std::thread server;
      if (host) server = std::thread(serve, slot, kFrames, send, receive, work);
      const auto start = std::chrono::steady_clock::now();
      for (int f = 0; f < kFrames; ++f) CHECK(cudaGraphLaunch(exec, stream));
      CHECK(cudaStreamSynchronize(stream));
      const auto end = std::chrono::steady_clock::now();
      if (server.joinable()) server.join();
      means.push_back(std::chrono::duration<double, std::micro>(end - start).count() / kFrames);
    }
    std::sort(means.begin(), means.end());
    return means[means.size() / 2];
  };
  const auto report = [&](const std::string& name, const std::vector<Node>& nodes, bool host,
                          Work work) {
    cudaGraphExec_t exec = chain(nodes);
    std::printf("%-72s %7.1f us\n", name.c_str(), time(exec, host, work));
    CHECK(cudaGraphExecDestroy(exec));
  };
  // The lookups' tables: message m packs row m of the field (2048 doubles) into the buffer's
  // m-th half and unpacks it into row m + 2.
  constexpr long long kStride = kElements / 2;
  const Segment pack_segments[2] = {{0, {0, 0, 0}, {kStride, 1, 1}, 0},
                                    {kStride, {0, 1, 0}, {kStride, 1, 1}, 0}};
  const Segment unpack_segments[2] = {{0, {0, 2, 0}, {kStride, 1, 1}, 0},
                                      {kStride, {0, 3, 0}, {kStride, 1, 1}, 0}};
  Segment* pack_table = nullptr;
  Segment* unpack_table = nullptr;
  double** fields = nullptr;
  CHECK(cudaMalloc(&pack_table, sizeof pack_segments));
  CHECK(cudaMalloc(&unpack_table, sizeof unpack_segments));
  CHECK(cudaMalloc(&fields, sizeof(double*)));
  CHECK(cudaMemcpy(pack_table, pack_segments, sizeof pack_segments, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(unpack_table, unpack_segments, sizeof unpack_segments, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(fields, &field, sizeof(double*), cudaMemcpyHostToDevice));
  std::size_t elements = kElements;
  int segment_count = 2;
  long long stride = kStride;

  std::printf("handoff-chain-lab: %d frames back to back, median of %d runs, mean per frame\n",
              kFrames, kRuns);
  report("two tiny kernels", {{(void*)tiny, 1, 32, {&field}}, {(void*)tiny, 1, 32, {&field}}},
         false, Work::none);
  report("three tiny kernels",
         {{(void*)tiny, 1, 32, {&field}},
          {(void*)tiny, 1, 32, {&field}},
          {(void*)tiny, 1, 32, {&field}}},
         false, Work::none);
  report("tiny, handoff (no host work), tiny",
         {{(void*)tiny, 1, 32, {&field}},
          {(void*)handoff, 1, 1, {&slot, &executions}},
          {(void*)tiny, 1, 32, {&field}}},
         true, Work::none);
  Word* acknowledged = nullptr;
  CHECK(cudaHostAlloc(&acknowledged, sizeof(Word), flags));
  report("tiny, handoff with the deadline at every poll, tiny",
         {{(void*)tiny, 1, 32, {&field}},
          {(void*)handoff_as_engine<true, false>, 1, 1, {&slot, &executions, &acknowledged}},
          {(void*)tiny, 1, 32, {&field}}},
         true, Work::none);
  report("tiny, handoff writing an acknowledgement after its fence, tiny",
         {{(void*)tiny, 1, 32, {&field}},
          {(void*)handoff_as_engine<false, true>, 1, 1, {&slot, &executions, &acknowledged}},
          {(void*)tiny, 1, 32, {&field}}},
         true, Work::none);
  report("tiny, handoff as kernels/handoff_kernel.cu (deadline and acknowledgement), tiny",
         {{(void*)tiny, 1, 32, {&field}},
          {(void*)handoff_as_engine<true, true>, 1, 1, {&slot, &executions, &acknowledged}},
          {(void*)tiny, 1, 32, {&field}}},
         true, Work::none);
  report("tiny, handoff (no host work), tiny: again",
         {{(void*)tiny, 1, 32, {&field}},
          {(void*)handoff, 1, 1, {&slot, &executions}},
          {(void*)tiny, 1, 32, {&field}}},
         true, Work::none);
  for (const unsigned blocks : {264u, 16u}) {
    const std::string b = " (" + std::to_string(blocks) + " blocks of 256)";
    report("pack, unpack with the engine's lookups, no host" + b,
           {{(void*)pack_lookup,
             blocks,
             256,
             {&elements, &pack_table, &segment_count, &fields, &stride, &send}},
            {(void*)unpack_lookup,
             blocks,
             256,
             {&elements, &unpack_table, &segment_count, &fields, &stride, &receive}}},
           false, Work::none);
#if defined(LAB_MPI)
    report("pack, handoff (MPI), unpack, with the engine's lookups" + b,
           {{(void*)pack_lookup,
             blocks,
             256,
             {&elements, &pack_table, &segment_count, &fields, &stride, &send}},
            {(void*)handoff, 1, 1, {&slot, &executions}},
            {(void*)unpack_lookup,
             blocks,
             256,
             {&elements, &unpack_table, &segment_count, &fields, &stride, &receive}}},
           true, Work::mpi);
#endif
  }
  for (const unsigned blocks : {264u, 16u, 4u}) {
    const std::string b = " (" + std::to_string(blocks) + " blocks of 256)";
    report("pack, unpack, no host" + b,
           {{(void*)pack, blocks, 256, {&field, &send, &n}},
            {(void*)unpack, blocks, 256, {&field, &receive, &n}}},
           false, Work::none);
    report("pack, handoff (no host work), unpack" + b,
           {{(void*)pack, blocks, 256, {&field, &send, &n}},
            {(void*)handoff, 1, 1, {&slot, &executions}},
            {(void*)unpack, blocks, 256, {&field, &receive, &n}}},
           true, Work::none);
    report("pack, handoff (host memcpy 32 KB), unpack: the engine's chain" + b,
           {{(void*)pack, blocks, 256, {&field, &send, &n}},
            {(void*)handoff, 1, 1, {&slot, &executions}},
            {(void*)unpack, blocks, 256, {&field, &receive, &n}}},
           true, Work::copy);
#if defined(LAB_MPI)
    report("pack, handoff (MPI: 2 x 16 KB to the rank itself), unpack" + b,
           {{(void*)pack, blocks, 256, {&field, &send, &n}},
            {(void*)handoff, 1, 1, {&slot, &executions}},
            {(void*)unpack, blocks, 256, {&field, &receive, &n}}},
           true, Work::mpi);
#endif
    report("pack ringing the doorbell, release spin, unpack" + b,
           {{(void*)pack_ring, blocks, 256, {&field, &send, &n, &slot, &executions, &ticket}},
            {(void*)wait_release, 1, 1, {&slot, &executions}},
            {(void*)unpack, blocks, 256, {&field, &receive, &n}}},
           true, Work::copy);
    report("pack ringing the doorbell, unpack waiting for the release" + b,
           {{(void*)pack_ring, blocks, 256, {&field, &send, &n, &slot, &executions, &ticket}},
            {(void*)unpack_wait, blocks, 256, {&field, &receive, &n, &slot, &executions}}},
           true, Work::copy);
  }
  // The unpacked halves must hold what was packed (the last frame's values).
  std::vector<double> out(2 * kElements);
  CHECK(cudaMemcpy(out.data(), field, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
  const bool same =
      std::memcmp(out.data(), out.data() + kElements, kElements * sizeof(double)) == 0;
  std::printf("unpacked halo equals the packed one: %s\n", same ? "yes" : "NO");
#if defined(LAB_MPI)
  MPI_Finalize();
#endif
  return same ? 0 : 1;
}
