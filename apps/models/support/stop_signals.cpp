#include "stop_signals.hpp"

#include <fmt/format.h>
#include <linux/close_range.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::models {
namespace {

std::atomic<int> caught{0};
std::atomic<bool> announce_stop{false};
static_assert(std::atomic<int>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");

extern "C" void note_stop_signal(int signal) {
  int none = 0;
  if (!caught.compare_exchange_strong(none, signal)) return;
  if (announce_stop.load()) {
    // write() is async-signal-safe; stdio is not.
    constexpr char kLine[] =
        "\nhaloflow: stopping after the current frame (the results will say interrupted); "
        "a second signal ends it at once\n";
    [[maybe_unused]] const ssize_t wrote = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
  }
}

}  // namespace

void catch_stop_signals(bool announce) {
  announce_stop = announce;
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // the second signal acts as it would
  for (const int signal : {SIGINT, SIGTERM}) {
    if (::sigaction(signal, &action, nullptr) != 0) {
      throw Error(
          fmt::format("sigaction({}) failed: {}", signal_name(signal), std::strerror(errno)));
    }
  }
}

int stop_signal() {
  return caught.load();
}

namespace {

// Whether process `pid` has exited (a zombie, or gone).
bool has_exited(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  std::FILE* stat = std::fopen(path, "r");
  if (stat == nullptr) return true;
  char state = '?';
  const int read = std::fscanf(stat, "%*d (%*[^)]) %c", &state);
  std::fclose(stat);
  return read != 1 || state == 'Z' || state == 'X';
}

}  // namespace

void keep_output_open_for_launcher() {
  if (std::getenv("PMI_RANK") == nullptr) return;  // not launched by MPICH's mpiexec
  std::fflush(nullptr);
  const pid_t rank = ::getpid();
  const pid_t child = ::fork();
  if (child != 0) return;  // the rank goes on to exit (or, if fork failed, exits all the same)
  // The child: nothing but standard output and error; no MPI, no CUDA, no stdio buffers.
  ::close_range(3, ~0U, 0);
  for (int waited = 0; waited < 500 && !has_exited(rank); ++waited) {
    ::usleep(10000);
  }
  // The rank has exited: closing standard output wakes the launcher's proxy, which then collects
  // the rank's status while standard error is still open here.
  ::close(STDOUT_FILENO);
  ::usleep(200000);
  ::_exit(0);
}

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return fmt::format("signal {}", signal);
}

Interrupted::Interrupted(int signal, int steps_done, int steps)
    : Error(fmt::format("interrupted by {} after {} of {} steps", signal_name(signal), steps_done,
                        steps)),
      signal_(signal),
      steps_done_(steps_done),
      steps_(steps) {}

StopAgreement::StopAgreement(MPI_Comm communicator, std::chrono::duration<double> timeout,
                             int period)
    : timeout_(timeout), period_(period < 1 ? 1 : period) {
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks_), "the agreement to stop on a signal");
  if (ranks_ == 1) return;
  // A duplicate, so that the agreement's reductions never meet the step's own collectives.
  MPI_Request request = MPI_REQUEST_NULL;
  HALOFLOW_MPI(MPI_Comm_idup(communicator, &communicator_, &request),
               "the agreement to stop on a signal");
  wait_for_collective(request, communicator, "MPI_Comm_idup", "the agreement to stop on a signal",
                      timeout_);
  // Named, so that tools (and tests/mpi/stop_in_collective.cpp) can tell its calls apart.
  HALOFLOW_MPI(MPI_Comm_set_name(communicator_, "haloflow stop agreement"),
               "the agreement to stop on a signal");
}

StopAgreement::~StopAgreement() {
  // After a failure the ranks may be anywhere: a request in flight is left to MPI's end.
  if (communicator_ != MPI_COMM_NULL && !pending_) MPI_Comm_free(&communicator_);
}

int StopAgreement::stop_now(int frame) {
  if (ranks_ == 1) return stop_signal();
  if ((frame + 1) % period_ != 0) return 0;
  if (pending_) {
    wait_for_collective(request_, communicator_, "MPI_Iallreduce",
                        "the agreement to stop on a signal", timeout_);
    pending_ = false;
    if (agreed_ != 0) return agreed_;
  }
  mine_ = stop_signal();
  HALOFLOW_MPI(MPI_Iallreduce(&mine_, &agreed_, 1, MPI_INT, MPI_MAX, communicator_, &request_),
               "the agreement to stop on a signal");
  pending_ = true;
  return 0;
}

void StopAgreement::finish() {
  if (!pending_) return;
  wait_for_collective(request_, communicator_, "MPI_Iallreduce",
                      "the agreement to stop on a signal", timeout_);
  pending_ = false;
}

}  // namespace haloflow::models
