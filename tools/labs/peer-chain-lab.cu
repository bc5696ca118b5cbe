// What does the peer transport's chain cost on the GPU, and which of its pieces? Issue 29's lab:
// two ranks stood for by two kernels of one process that run side by side (two branches of a CUDA
// graph, as two ranks' streams), each sending its two faces (16 KB or 128 KB each, doubles) into
// the other's mailbox and receiving the other's, with the protocol of kernels/peer_kernels.cu:
// stores into slot n % 2, each block's barrier, fence and count, the last block's fence and the
// flags, one thread per block waiting for the flags (acquire), the block's copy into the ghosts.
// The kernels here are that protocol without the engine's segment tables (a face is contiguous), so
// that each piece can be left out or changed and its cost seen:
//   data only        the stores and the copies, no flag, no wait (the floor of the work);
//   gpu scope        fences and flags at device scope (enough for ranks on one GPU, not for two);
//   system scope     the engine's: system fences in every block and the last, relaxed flag stores;
//   release a flag   as the engine before 2026-12-02: a release store per flag after the fence;
//   block fence gpu  device-scope fence per block, one system fence in the last block only;
//   two kernels      system scope, the send and the receive as two kernels one after the other.
// Each variant is a graph launched 2000 times back to back (the mean per launch, the median of 5
// such runs), and once at a time, waited for (the median of 200); beside them, the same graph with
// empty kernels, whose time is what a launch costs with no work. Built with the project
// (`cmake --build build --target peer-chain-lab`); run by tools/latency-labs:
//   build/labs/peer-chain-lab
#include <cuda_runtime.h>
#include <cuda/atomic>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "lab_timing.cuh"

namespace {

constexpr int kFrames = 2000;
constexpr int kRuns = 5;
constexpr int kWaited = 200;
constexpr int kThreads = 256;
constexpr int kMostBlocks = 264;  // the exchange's usual grid (ExchangeOptions::blocks)
constexpr std::uint64_t kDeadlineNs = 1000000000;  // a lab that hangs says so instead
constexpr int kFaces = 2;
constexpr int kFlagWords = 8;  // a flag per 64-byte line

enum class Variant { empty, data_only, gpu_scope, system_scope, release_a_flag, block_fence_gpu };

// One rank's memory: its field's two faces to send, its ghosts, its mailbox (flags, then two slots
// of both faces), its counters ([0] frames sent, [1] blocks counted).
struct Rank {
  const double* faces = nullptr;   // kFaces faces back to back
  double* ghosts = nullptr;        // kFaces faces back to back
  std::uint64_t* flags = nullptr;  // this rank's mailbox flags (kFaces, kFlagWords apart)
  double* slots = nullptr;         // this rank's mailbox slots: 2 x kFaces faces
  std::uint64_t* counters = nullptr;
  std::uint64_t* peer_flags = nullptr;  // the other rank's mailbox
  double* peer_slots = nullptr;
  int* failed = nullptr;
  std::int64_t face = 0;  // elements a face
};

__device__ inline std::uint64_t now_ns() {
  std::uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <Variant kVariant>
__device__ std::uint64_t send_share(const Rank& r) {
  const std::uint64_t frame = r.counters[0] + 1;
  const std::int64_t elements = kFaces * r.face;
  double* const slot = r.peer_slots + (frame % 2) * elements;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < elements; e += stride) {
    __stcg(slot + e, r.faces[e]);
  }
  if constexpr (kVariant == Variant::data_only) return frame;
  __syncthreads();
  if (threadIdx.x != 0) return frame;
  if constexpr (kVariant == Variant::gpu_scope || kVariant == Variant::block_fence_gpu) {
    __threadfence();
  } else {
    __threadfence_system();
  }
  const std::uint64_t before =
      cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(r.counters[1])
          .fetch_add(1, cuda::memory_order_acq_rel);
  if ((before + 1) % gridDim.x != 0) return frame;
  if constexpr (kVariant == Variant::gpu_scope) {
    __threadfence();
    for (int m = 0; m < kFaces; ++m) {
      cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(r.peer_flags[m * kFlagWords])
          .store(frame, cuda::memory_order_relaxed);
    }
  } else if constexpr (kVariant == Variant::release_a_flag) {
    __threadfence_system();
    for (int m = 0; m < kFaces; ++m) {
      cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(r.peer_flags[m * kFlagWords])
          .store(frame, cuda::memory_order_release);
    }
  } else {
    __threadfence_system();
    for (int m = 0; m < kFaces; ++m) {
      cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(r.peer_flags[m * kFlagWords])
          .store(frame, cuda::memory_order_relaxed);
    }
  }
  r.counters[0] = frame;
  r.counters[2] = now_ns();
  return frame;
}

template <Variant kVariant>
__device__ void receive_share(const Rank& r, std::uint64_t frame) {
  const std::int64_t elements = kFaces * r.face;
  if constexpr (kVariant != Variant::data_only) {
    __shared__ bool arrived;
    if (threadIdx.x == 0) {
      arrived = true;
      const std::uint64_t start = now_ns();
      for (int m = 0; m < kFaces && arrived; ++m) {
        for (;;) {
          std::uint64_t seen = 0;
          if constexpr (kVariant == Variant::gpu_scope) {
            seen =
                cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(r.flags[m * kFlagWords])
                    .load(cuda::memory_order_acquire);
          } else {
            seen =
                cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(r.flags[m * kFlagWords])
                    .load(cuda::memory_order_acquire);
          }
          if (seen >= frame) break;
          if (now_ns() - start > kDeadlineNs) {
            *r.failed = 1;
            arrived = false;
            break;
          }
        }
      }
    }
    __syncthreads();
    if (!arrived) return;
  }
  const double* const slot = r.slots + (frame % 2) * elements;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < elements; e += stride) {
    r.ghosts[e] = __ldcg(slot + e);
  }
}

template <Variant kVariant>
__global__ void exchange(Rank r) {
  if constexpr (kVariant == Variant::empty) return;
  const std::uint64_t frame = send_share<kVariant>(r);
  receive_share<kVariant>(r, frame);
}

__global__ void send_only(Rank r) {
  (void)send_share<Variant::system_scope>(r);
}
__global__ void receive_only(Rank r) {
  receive_share<Variant::system_scope>(r, r.counters[0]);
}

struct Ranks {
  Rank rank[2];
  std::vector<void*> owned;
};

Ranks make_ranks(std::int64_t face) {
  Ranks result;
  const std::int64_t elements = kFaces * face;
  void* memory[2][5] = {};
  for (auto& rank : memory) {
    CHECK(cudaMalloc(&rank[0], elements * sizeof(double)));
    CHECK(cudaMalloc(&rank[1], elements * sizeof(double)));
    CHECK(cudaMalloc(&rank[2], kFaces * kFlagWords * sizeof(std::uint64_t)));
    CHECK(cudaMalloc(&rank[3], 2 * elements * sizeof(double)));
    CHECK(cudaMalloc(&rank[4], 3 * sizeof(std::uint64_t) + sizeof(int)));
    CHECK(cudaMemset(rank[0], 0, elements * sizeof(double)));
    CHECK(cudaMemset(rank[2], 0, kFaces * kFlagWords * sizeof(std::uint64_t)));
    CHECK(cudaMemset(rank[4], 0, 3 * sizeof(std::uint64_t) + sizeof(int)));
    for (void* p : rank) result.owned.push_back(p);
  }
  for (int i = 0; i < 2; ++i) {
    const int other = 1 - i;
    auto* counters = static_cast<std::uint64_t*>(memory[i][4]);
    result.rank[i] = Rank{.faces = static_cast<const double*>(memory[i][0]),
                          .ghosts = static_cast<double*>(memory[i][1]),
                          .flags = static_cast<std::uint64_t*>(memory[i][2]),
                          .slots = static_cast<double*>(memory[i][3]),
                          .counters = counters,
                          .peer_flags = static_cast<std::uint64_t*>(memory[other][2]),
                          .peer_slots = static_cast<double*>(memory[other][3]),
                          .failed = reinterpret_cast<int*>(counters + 3),
                          .face = face};
  }
  return result;
}

// A graph of the two ranks' exchanges side by side (or each rank's send, then its receive).
cudaGraphExec_t make_graph(const Ranks& ranks, void (*kernel)(Rank), bool two_kernels,
                           cudaStream_t stream) {
  const std::int64_t elements = kFaces * ranks.rank[0].face;
  const int blocks = static_cast<int>(
      std::clamp<std::int64_t>((elements + kThreads - 1) / kThreads, 1, kMostBlocks));
  cudaStream_t side = nullptr;
  cudaEvent_t fork = nullptr;
  cudaEvent_t join = nullptr;
  CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  cudaGraph_t graph = nullptr;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  CHECK(cudaEventRecord(fork, stream));
  CHECK(cudaStreamWaitEvent(side, fork));
  cudaStream_t lanes[2] = {stream, side};
  for (int i = 0; i < 2; ++i) {
    if (two_kernels) {
      send_only<<<blocks, kThreads, 0, lanes[i]>>>(ranks.rank[i]);
      receive_only<<<blocks, kThreads, 0, lanes[i]>>>(ranks.rank[i]);
    } else {
      kernel<<<blocks, kThreads, 0, lanes[i]>>>(ranks.rank[i]);
    }
  }
  CHECK(cudaEventRecord(join, side));
  CHECK(cudaStreamWaitEvent(stream, join));
  CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(side));
  return exec;
}

struct Timing {
  double back_to_back_us = 0;
  double waited_us = 0;
};

Timing time_graph(cudaGraphExec_t exec, cudaStream_t stream, const Ranks& ranks) {
  Timing timing;
  std::vector<double> runs;
  for (int run = 0; run < kRuns; ++run) {
    CHECK(cudaStreamSynchronize(stream));
    const auto start = std::chrono::steady_clock::now();
    for (int f = 0; f < kFrames; ++f) CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    runs.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count() /
        kFrames);
  }
  std::sort(runs.begin(), runs.end());
  timing.back_to_back_us = runs[runs.size() / 2];
  std::vector<double> waited;
  for (int f = 0; f < kWaited; ++f) {
    const auto start = std::chrono::steady_clock::now();
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    waited.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(waited.begin(), waited.end());
  timing.waited_us = waited[waited.size() / 2];
  for (const Rank& r : ranks.rank) {
    int failed = 0;
    CHECK(cudaMemcpy(&failed, r.failed, sizeof failed, cudaMemcpyDeviceToHost));
    if (failed != 0) {
      std::fprintf(stderr, "peer-chain-lab: a flag did not come within 1 s\n");
      std::exit(1);
    }
  }
  return timing;
}

// Each rank's ghosts hold the other's faces after a frame (the check that the protocol moved them).
bool ghosts_right(const Ranks& ranks) {
  const std::int64_t elements = kFaces * ranks.rank[0].face;
  std::vector<double> want(static_cast<std::size_t>(elements));
  std::vector<double> got(static_cast<std::size_t>(elements));
  for (int i = 0; i < 2; ++i) {
    CHECK(cudaMemcpy(want.data(), ranks.rank[1 - i].faces, elements * sizeof(double),
                     cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got.data(), ranks.rank[i].ghosts, elements * sizeof(double),
                     cudaMemcpyDeviceToHost));
    if (want != got) return false;
  }
  return true;
}

}  // namespace

int main() {
  cudaDeviceProp properties{};
  CHECK(cudaGetDeviceProperties(&properties, 0));
  std::printf("peer-chain-lab: %s; two ranks as two kernels side by side, two faces each way\n",
              properties.name);
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct Row {
    const char* name;
    void (*kernel)(Rank);
    bool two_kernels;
  };
  const Row rows[] = {{"empty kernels (a launch, no work)", exchange<Variant::empty>, false},
                      {"data only (no flag, no wait)", exchange<Variant::data_only>, false},
                      {"gpu scope", exchange<Variant::gpu_scope>, false},
                      {"system scope (the engine's)", exchange<Variant::system_scope>, false},
                      {"release a flag", exchange<Variant::release_a_flag>, false},
                      {"block fence gpu, last system", exchange<Variant::block_fence_gpu>, false},
                      {"two kernels, system scope", nullptr, true}};
  std::printf("| face | variant | back to back (us a frame) | launched and waited for (us) |\n");
  std::printf("| --- | --- | --- | --- |\n");
  for (const std::int64_t bytes : {16384L, 131072L}) {
    const std::int64_t face = bytes / static_cast<std::int64_t>(sizeof(double));
    for (const Row& row : rows) {
      // Fresh ranks per variant: each counts its own frames from 1.
      Ranks ranks = make_ranks(face);
      std::vector<double> values(static_cast<std::size_t>(kFaces * face));
      for (int i = 0; i < 2; ++i) {
        for (std::size_t e = 0; e < values.size(); ++e) values[e] = 1000.0 * i + e;
        CHECK(cudaMemcpy(const_cast<double*>(ranks.rank[i].faces), values.data(),
                         values.size() * sizeof(double), cudaMemcpyHostToDevice));
      }
      cudaGraphExec_t exec = make_graph(ranks, row.kernel, row.two_kernels, stream);
      const Timing timing = time_graph(exec, stream, ranks);
      // Without flags nothing orders a copy after the other rank's stores: only the others check.
      const bool unordered =
          row.kernel == exchange<Variant::empty> || row.kernel == exchange<Variant::data_only>;
      const bool moved = unordered || ghosts_right(ranks);
      std::printf("| %lld KB | %s | %.2f | %.2f |%s\n", static_cast<long long>(bytes / 1024),
                  row.name, timing.back_to_back_us, timing.waited_us, moved ? "" : " GHOSTS WRONG");
      CHECK(cudaGraphExecDestroy(exec));
      for (void* p : ranks.owned) CHECK(cudaFree(p));
      if (!moved) return 1;
    }
  }
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
