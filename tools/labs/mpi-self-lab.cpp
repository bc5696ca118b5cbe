// What does MPI's send of two 16 KB halos to the sending rank itself cost on the host, in the
// forms haloflow's exchange could post it (low-latency frames: the host-staged chain)? A
// stand-alone measurement, built with the project (tools/labs/CMakeLists.txt; `cmake --build build
// --target mpi-self-lab`) and run by tools/latency-labs: mpiexec -n 1 build/labs/mpi-self-lab
// Each form 20000 times at MPI_THREAD_MULTIPLE (what haloflow asks for); the median and p90 of
// each call sequence, against a plain memcpy of the same 32 KB.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace {
constexpr int kBytes = 16384;
constexpr int kIterations = 20000;
}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  std::vector<char> send(2 * kBytes, 1);
  std::vector<char> receive(2 * kBytes);
  const auto report = [](const char* name, const std::function<void()>& body) {
    std::vector<double> us(kIterations);
    for (double& t : us) {
      const auto start = std::chrono::steady_clock::now();
      body();
      t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count();
    }
    std::sort(us.begin(), us.end());
    std::printf("%-58s median %6.2f us, p90 %6.2f us\n", name, us[kIterations / 2],
                us[kIterations * 9 / 10]);
  };
  std::printf("mpi-self-lab: thread level %d (MPI_THREAD_MULTIPLE is %d), 2 x %d bytes\n", provided,
              MPI_THREAD_MULTIPLE, kBytes);
  MPI_Request requests[4];
  const auto post = [&](MPI_Comm comm) {
    for (int m = 0; m < 2; ++m)
      MPI_Irecv(&receive[m * kBytes], kBytes, MPI_BYTE, 0, 10 + m, comm, &requests[m]);
    for (int m = 0; m < 2; ++m)
      MPI_Isend(&send[m * kBytes], kBytes, MPI_BYTE, 0, 10 + m, comm, &requests[2 + m]);
  };
  const auto test_some = [](MPI_Request* r) {
    int finished[4];
    for (;;) {
      int done = 0;
      MPI_Testsome(4, r, &done, finished, MPI_STATUSES_IGNORE);
      if (done == MPI_UNDEFINED) return;
      if (done == 0) std::this_thread::yield();
    }
  };
  report("Irecv x2, Isend x2, Testsome + yield (the exchange's form)", [&] {
    post(MPI_COMM_WORLD);
    test_some(requests);
  });
  report("Irecv x2, Isend x2, Waitall", [&] {
    post(MPI_COMM_WORLD);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  });
  MPI_Request persistent[4];
  for (int m = 0; m < 2; ++m)
    MPI_Recv_init(&receive[m * kBytes], kBytes, MPI_BYTE, 0, 10 + m, MPI_COMM_WORLD,
                  &persistent[m]);
  for (int m = 0; m < 2; ++m)
    MPI_Send_init(&send[m * kBytes], kBytes, MPI_BYTE, 0, 10 + m, MPI_COMM_WORLD,
                  &persistent[2 + m]);
  report("persistent requests: Startall, Testsome + yield", [&] {
    MPI_Startall(4, persistent);
    test_some(persistent);
  });
  report("persistent requests: Startall, Waitall", [&] {
    MPI_Startall(4, persistent);
    MPI_Waitall(4, persistent, MPI_STATUSES_IGNORE);
  });
  report("memcpy of the same 32 KB", [&] { std::memcpy(receive.data(), send.data(), 2 * kBytes); });
  for (MPI_Request& r : persistent) MPI_Request_free(&r);
  MPI_Finalize();
  return 0;
}
