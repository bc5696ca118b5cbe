// What does NCCL's send and receive of two 16 KB halos to the rank itself cost inside a CUDA graph
// at one rank (the nccl transport's goal: the nccl chain alone, pack .. unpack, at most 10 us)? A
// stand-alone measurement, built with the project when it is built with NCCL
// (tools/labs/CMakeLists.txt; `cmake --build build --target nccl-self-lab`, the program
// build/labs/nccl-self-lab) and run by tools/latency-labs on the GPU machine.
// A one-rank communicator (ncclCommInitAll over device 0); each variant is captured once into a
// graph and launched 2000 times back to back on one stream: the mean per launch, the median of 5
// such runs. Variants: NCCL's group of two sends and two receives to itself alone, of one of
// each, the same group between two tiny kernels (as the frame has pack and unpack around it), and
// for scale two tiny kernels and a captured cudaMemcpyAsync of the same 32 KB.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "lab_timing.cuh"

#define NCCL_CHECK(call)                                                                        \
  do {                                                                                          \
    ncclResult_t result_ = (call);                                                              \
    if (result_ != ncclSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s (line %d)\n", #call, ncclGetErrorString(result_), __LINE__); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

namespace {

constexpr int kHalf = 2048;  // doubles: 16 KB a message
constexpr int kFrames = 2000;
constexpr int kRuns = 5;

__global__ void tiny(double* x) {
  if (threadIdx.x == 0) x[0] += 1.0;
}

}  // namespace

int main() {
  int device = 0;
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitAll(&comm, 1, &device));
  int version = 0;
  NCCL_CHECK(ncclGetVersion(&version));
  double* send = nullptr;
  double* receive = nullptr;
  double* scratch = nullptr;
  CHECK(cudaMalloc(&send, 2 * kHalf * sizeof(double)));
  CHECK(cudaMalloc(&receive, 2 * kHalf * sizeof(double)));
  CHECK(cudaMalloc(&scratch, sizeof(double)));
  CHECK(cudaMemset(send, 0, 2 * kHalf * sizeof(double)));
  CHECK(cudaMemset(scratch, 0, sizeof(double)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const auto group = [&](int messages) {
    NCCL_CHECK(ncclGroupStart());
    for (int m = 0; m < messages; ++m) {
      NCCL_CHECK(ncclSend(send + m * kHalf, kHalf, ncclDouble, 0, comm, stream));
      NCCL_CHECK(ncclRecv(receive + m * kHalf, kHalf, ncclDouble, 0, comm, stream));
    }
    NCCL_CHECK(ncclGroupEnd());
  };
  // Captures `issue` on the stream and times the graph's launches.
  const auto report = [&](const std::string& name, const std::function<void()>& issue) {
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    issue();
    CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int f = 0; f < 20; ++f) CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    std::vector<double> means;
    for (int run = 0; run < kRuns; ++run) {
      const auto start = std::chrono::steady_clock::now();
      for (int f = 0; f < kFrames; ++f) CHECK(cudaGraphLaunch(exec, stream));
      CHECK(cudaStreamSynchronize(stream));
      means.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count() /
          kFrames);
    }
    std::sort(means.begin(), means.end());
    std::printf("%-64s %7.1f us\n", name.c_str(), means[kRuns / 2]);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  };
  std::printf("nccl-self-lab: NCCL %d, one rank; %d launches back to back, median of %d runs\n",
              version, kFrames, kRuns);
  report("two tiny kernels", [&] {
    tiny<<<1, 32, 0, stream>>>(scratch);
    tiny<<<1, 32, 0, stream>>>(scratch);
  });
  report("cudaMemcpyAsync device to device, 32 KB", [&] {
    CHECK(cudaMemcpyAsync(receive, send, 2 * kHalf * sizeof(double), cudaMemcpyDeviceToDevice,
                          stream));
  });
  report("NCCL group: one send and one receive to itself, 16 KB", [&] { group(1); });
  report("NCCL group: two sends and two receives to itself, 2 x 16 KB", [&] { group(2); });
  report("tiny kernel, the NCCL group of two, tiny kernel", [&] {
    tiny<<<1, 32, 0, stream>>>(scratch);
    group(2);
    tiny<<<1, 32, 0, stream>>>(scratch);
  });
  NCCL_CHECK(ncclCommDestroy(comm));
  return 0;
}
