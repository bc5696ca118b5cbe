// The NCCL watchdog on one GPU: a receive that nobody sends hangs the GPU until the watchdog
// aborts the communicator; the exchange then reports it within its timeout + 2 s, and the GPU
// is free again. Run under mpiexec -n 1. Exit: 0 as required, 1 otherwise, 77 without a GPU.

#include <cuda_runtime_api.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"
#include "nccl_channel.hpp"

int main(int argc, char** argv) {
  using namespace haloflow;
  std::optional<MpiSession> mpi;
  try {
    mpi.emplace(&argc, &argv);
    if (place_rank_on_device(MPI_COMM_WORLD).device < 0) {
      std::puts("no CUDA device: NCCL watchdog check skipped");
      return 77;
    }
    constexpr double kTimeout = 0.5;
    Buffer send(Memory::device, 4096, "send", Backend::cuda);
    Buffer receive(Memory::device, 4096, "receive", Backend::cuda);
    detail::NcclChannel channel(MPI_COMM_WORLD, nullptr,
                                {{.peer = 0, .bytes = 4096, .direction = "+x", .send = false}},
                                send.data(), receive.data(),
                                std::chrono::duration<double>(kTimeout), "rank 0, exchange 'hang'");
    cudaStream_t stream = nullptr;
    if (cudaStreamCreate(&stream) != cudaSuccess) throw Error("cudaStreamCreate failed");
    const auto start = std::chrono::steady_clock::now();
    channel.issue(stream);
    const cudaError_t synced = cudaStreamSynchronize(stream);  // returns once the abort lands
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string message;
    try {
      channel.check();
    } catch (const Error& error) {
      message = error.what();
    }
    std::printf("stream synchronised after %.2f s (%s); check: %s\n", took,
                cudaGetErrorName(synced), message.empty() ? "no error" : message.c_str());
    const bool named = message.find("no halo arrived from rank 0 (+x) through NCCL within 0.5 s") !=
                       std::string::npos;
    const bool bounded = took < kTimeout + 2.0;
    // The GPU is usable again: a plain allocation and copy work.
    Buffer probe(Memory::device, 64, "probe", Backend::cuda);
    const char bytes[64] = {};
    probe.upload(bytes, sizeof bytes);
    if (!named || !bounded) {
      std::printf("FAILED: %s%s\n", named ? "" : "the message does not name the receive; ",
                  bounded ? "" : "not within the timeout + 2 s");
      return 1;
    }
    std::puts("nccl watchdog check: passed");
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "nccl_watchdog_check: %s\n", error.what());
  }
  return 1;
}
