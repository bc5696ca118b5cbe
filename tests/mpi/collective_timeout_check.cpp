// Run under mpiexec: every rank makes bounded collectives (haloflow::BoundedCollectives) in a
// loop, and one rank goes silent at a chosen call; the others must end within the timeout and
// its grace (timeout + 2 s at most) with a message naming the call, themselves and the silent
// rank, and the ranks waiting with them.
//   haloflow_collective_check --silent-rank R --at K --timeout S [--how stop|elsewhere]
//     stop: rank R stops itself (SIGSTOP) before call K, as a process the scheduler froze;
//     elsewhere: rank R sleeps instead of making call K (alive, but in no collective).
//   haloflow_collective_check --calls N   (no silence: N calls of each kind complete, checked)
// Prints "collective_check: ok" when every expectation held; rank 0 then aborts the job, which
// ends the stopped rank too.

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

using namespace haloflow;

namespace {

struct Options {
  int silent_rank = -1;
  int at = 0;
  double timeout_s = 1;
  std::string how = "stop";
  int calls = 50;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--silent-rank") o.silent_rank = std::stoi(value);
    if (flag == "--at") o.at = std::stoi(value);
    if (flag == "--timeout") o.timeout_s = std::stod(value);
    if (flag == "--how") o.how = value;
    if (flag == "--calls") o.calls = std::stoi(value);
  }
  return o;
}

// One call of each kind, checked; \returns false (with a message) on a wrong value.
bool one_round(const BoundedCollectives& world, int call, int rank, int ranks) {
  long long mine = rank + call;
  long long sum = 0;
  world.allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, fmt::format("test sum #{}", call));
  const long long expected =
      static_cast<long long>(ranks) * (ranks - 1) / 2 + static_cast<long long>(ranks) * call;
  int root_value = rank == 0 ? call * 7 : -1;
  world.broadcast(&root_value, 1, MPI_INT, 0, fmt::format("test broadcast #{}", call));
  std::vector<int> all(static_cast<std::size_t>(ranks));
  world.gather(&rank, 1, MPI_INT, all.data(), 0, fmt::format("test gather #{}", call));
  world.barrier(fmt::format("test barrier #{}", call));
  bool ok = sum == expected && root_value == call * 7;
  if (rank == 0) {
    for (int r = 0; r < ranks; ++r) ok = ok && all[static_cast<std::size_t>(r)] == r;
  }
  if (!ok) std::printf("rank %d: FAILED: wrong values in round %d\n", rank, call);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  MpiSession mpi(&argc, &argv);
  const int rank = mpi.world_rank();
  const int ranks = mpi.world_size();
  const BoundedCollectives world(MPI_COMM_WORLD, std::chrono::duration<double>(o.timeout_s));
  if (o.silent_rank < 0) {
    bool ok = true;
    for (int call = 0; call < o.calls; ++call) ok = one_round(world, call, rank, ranks) && ok;
    int all_ok = ok ? 1 : 0;
    int every = 0;
    MPI_Allreduce(&all_ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) std::printf("collective_check: %s\n", every == 1 ? "ok" : "FAILED");
    return every == 1 ? 0 : 1;
  }
  auto start = std::chrono::steady_clock::now();
  try {
    for (int call = 0;; ++call) {
      if (call == o.at && rank == o.silent_rank) {
        std::fflush(stdout);
        if (o.how == "stop") std::raise(SIGSTOP);
        std::this_thread::sleep_for(std::chrono::duration<double>(10 * o.timeout_s + 10));
        return 0;
      }
      start = std::chrono::steady_clock::now();
      long long mine = rank;
      long long sum = 0;
      world.allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM,
                      fmt::format("the test's sum of call {}", call));
    }
  } catch (const Error& error) {
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double bound = o.timeout_s + 2;
    const std::string message = error.what();
    const bool names_call =
        message.find(fmt::format("the test's sum of call {}", o.at)) != std::string::npos;
    const bool names_silent =
        message.find(fmt::format("not heard from: rank {}", o.silent_rank)) != std::string::npos;
    const bool in_time = took >= o.timeout_s && took <= bound;
    std::printf("rank %d: %s\nrank %d: failed after %.2f s (bound %.2f s)\n", rank, message.c_str(),
                rank, took, bound);
    if (rank == 0) {
      std::printf("collective_check: %s\n",
                  names_call && names_silent && in_time ? "ok" : "FAILED");
    }
    std::fflush(stdout);
    // Let the other live ranks report too, then end the job (and the stopped rank with it).
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    MPI_Abort(MPI_COMM_WORLD, names_call && names_silent && in_time ? 3 : 1);
  }
  return 1;
}
