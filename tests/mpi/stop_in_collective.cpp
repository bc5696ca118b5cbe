// A fault injector for the fault tests, preloaded (LD_PRELOAD) under mpiexec: through MPI's
// profiling interface it sees every nonblocking collective a haloflow command starts, and stops
// one rank (SIGSTOP, as a scheduler freezing a process) right before one, so that the others are
// the ones waiting in it. No haloflow code knows about it.
//   HALOFLOW_STOP_RANK=R        the rank of MPI_COMM_WORLD that stops
//   HALOFLOW_STOP_CALL=NAME     MPI_Iallreduce, MPI_Ibcast, MPI_Ibarrier, MPI_Igather, MPI_Igatherv
//                               or any
//                               or MPI_Finalize (a rank that stops at the very end)
//   HALOFLOW_STOP_AFTER_S=T     the first such call at least T seconds after the process started
//                               (well into the steps, whatever the start-up's collectives)
//   (never in haloflow's agreement to stop on a signal: its own communicator, by name)
//   HALOFLOW_STOP_SKIP=N        pass N such calls first (N = 1 with MPI_Ibarrier: the barrier at
//                               the end of a run, after the one before its timed steps)

#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

const auto loaded = std::chrono::steady_clock::now();
bool stopped = false;
int passed = 0;  // matching calls let through (HALOFLOW_STOP_SKIP)

// haloflow's agreement to stop on a signal reduces on a communicator of its own every few frames:
// these faults are about the calls the run itself makes, so that one is let through.
bool is_stop_agreement(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return false;
  char name[MPI_MAX_OBJECT_NAME] = {};
  int length = 0;
  PMPI_Comm_get_name(comm, name, &length);
  return std::strncmp(name, "haloflow stop agreement", 23) == 0;
}

void maybe_stop(const char* call, MPI_Comm comm = MPI_COMM_NULL) {
  if (stopped || is_stop_agreement(comm)) return;
  const char* rank_text = std::getenv("HALOFLOW_STOP_RANK");
  const char* wanted = std::getenv("HALOFLOW_STOP_CALL");
  const char* after_text = std::getenv("HALOFLOW_STOP_AFTER_S");
  if (rank_text == nullptr || wanted == nullptr) return;
  if (std::strcmp(wanted, "any") != 0 && std::strcmp(wanted, call) != 0) return;
  const double after = after_text != nullptr ? std::atof(after_text) : 0.0;
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - loaded).count() < after) {
    return;
  }
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != std::atoi(rank_text)) return;
  const char* skip_text = std::getenv("HALOFLOW_STOP_SKIP");
  if (skip_text != nullptr && passed < std::atoi(skip_text)) {
    ++passed;
    return;
  }
  stopped = true;
  std::fprintf(stderr, "stop_in_collective: rank %d stops before %s\n", rank, call);
  std::fflush(stderr);
  std::raise(SIGSTOP);
}

}  // namespace

extern "C" {

int MPI_Iallreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  maybe_stop("MPI_Iallreduce", comm);
  return PMPI_Iallreduce(send, receive, count, type, op, comm, request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  maybe_stop("MPI_Ibcast", comm);
  return PMPI_Ibcast(buffer, count, type, root, comm, request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  maybe_stop("MPI_Ibarrier", comm);
  return PMPI_Ibarrier(comm, request);
}

int MPI_Igather(const void* send, int send_count, MPI_Datatype send_type, void* receive,
                int receive_count, MPI_Datatype receive_type, int root, MPI_Comm comm,
                MPI_Request* request) {
  maybe_stop("MPI_Igather", comm);
  return PMPI_Igather(send, send_count, send_type, receive, receive_count, receive_type, root, comm,
                      request);
}

int MPI_Igatherv(const void* send, int send_count, MPI_Datatype send_type, void* receive,
                 const int* receive_counts, const int* displacements, MPI_Datatype receive_type,
                 int root, MPI_Comm comm, MPI_Request* request) {
  maybe_stop("MPI_Igatherv", comm);
  return PMPI_Igatherv(send, send_count, send_type, receive, receive_counts, displacements,
                       receive_type, root, comm, request);
}

int MPI_Finalize() {
  maybe_stop("MPI_Finalize");
  return PMPI_Finalize();
}

}  // extern "C"
