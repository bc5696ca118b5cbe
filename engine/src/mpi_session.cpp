#include "haloflow/mpi_session.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "haloflow/bounded_mpi.hpp"

#include "haloflow/error.hpp"

namespace haloflow {

void mpi_check(int code, const char* call, std::string_view context) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    std::snprintf(text, sizeof text, "MPI error code %d", code);
  }
  throw Error(fmt::format("{} failed for {}: {}", call, context, text));
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialised = 0;
  HALOFLOW_MPI(MPI_Initialized(&initialised), "checking whether MPI is initialised");
  int provided = MPI_THREAD_SINGLE;
  if (initialised == 0) {
    HALOFLOW_MPI(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), "haloflow start-up");
    owns_ = true;
  } else {
    HALOFLOW_MPI(MPI_Query_thread(&provided), "the caller's MPI");
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    if (owns_) MPI_Finalize();
    throw Error(fmt::format(
        "MPI provides thread level {} but haloflow needs MPI_THREAD_MULTIPLE ({}): its host "
        "nodes call MPI from a CUDA driver thread",
        provided, MPI_THREAD_MULTIPLE));
  }
  HALOFLOW_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_COMM_WORLD");
  HALOFLOW_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_COMM_WORLD");
}

void MpiSession::finish(std::chrono::duration<double> timeout) {
  if (finished_) return;
  finished_ = true;
  if (size_ > 1) {
    BoundedCollectives(MPI_COMM_WORLD, timeout)
        .barrier("the end of the run (every rank done before MPI_Finalize)");
  }
  if (!owns_) return;
  // MPI_Finalize waits for the other ranks too, without a bound: a rank stopped after the
  // barrier would hold this one forever. The watchdog ends this process instead, and the
  // launcher then ends the job.
  std::mutex mutex;
  std::condition_variable finalised;
  bool done = false;
  const int rank = rank_;
  std::thread watchdog([&] {
    std::unique_lock lock(mutex);
    if (finalised.wait_for(lock, timeout, [&] { return done; })) return;
    std::fprintf(stderr,
                 "haloflow: rank %d: MPI_Finalize did not complete within %g s: another rank "
                 "stopped after the end of the run; ending this rank\n",
                 rank, timeout.count());
    std::fflush(stderr);
    std::_Exit(1);
  });
  const int code = MPI_Finalize();
  {
    const std::lock_guard lock(mutex);
    done = true;
  }
  finalised.notify_one();
  watchdog.join();
  if (code != MPI_SUCCESS) std::fputs("haloflow: MPI_Finalize failed\n", stderr);
}

MpiSession::~MpiSession() {
  if (!owns_ || finished_) return;
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised == 0 && MPI_Finalize() != MPI_SUCCESS) {
    std::fputs("haloflow: MPI_Finalize failed\n", stderr);
  }
}

}  // namespace haloflow
