#pragma once
//! \file
//! \brief Stopping a run cleanly on SIGINT or SIGTERM: the handler only notes the signal; the
//! step loop's ranks agree at a frame boundary to stop (StopAgreement), so that every rank stops
//! after the same frame, with its outputs whole, and the command reports the run as interrupted.

#include <mpi.h>

#include <chrono>
#include <string>

#include "haloflow/error.hpp"

namespace haloflow::models {

//! Catches SIGINT and SIGTERM from now on: the first of them is noted (stop_signal()), a second
//! one ends the process as the signal would (the handler is reset after the first). `announce`:
//! the first says so on standard error ("stopping after the current frame").
void catch_stop_signals(bool announce);

//! The signal caught (SIGINT, SIGTERM), 0 while none was.
[[nodiscard]] int stop_signal();

//! Under MPICH's mpiexec, just before a rank that was stopped by a forwarded signal exits: forks a
//! short-lived child holding only this rank's standard output and error, which waits until the
//! rank has exited, closes standard output, and exits 0.2 s later. The launcher forwards
//! SIGINT/SIGTERM to the ranks and then, for a rank it has not seen exit while any of its ranks'
//! output was still open, reports status 0 instead of the rank's own (hydra's proxy, pmip.c,
//! "forced cleanup", MPICH 4.0.2): mpiexec exited 0 in 2 of the first 6 interrupted runs of 2
//! ranks, and in 9 of 28 with the ranks waiting 0.4 s before MPI_Finalize. The closing wakes the
//! proxy while the rank's status is there to collect, and mpiexec exits with it (130 or 143).
void keep_output_open_for_launcher();

//! "SIGINT", "SIGTERM", or "signal N".
[[nodiscard]] std::string signal_name(int signal);

//! \brief Thrown by the step loop on every rank alike when the ranks agreed to stop after
//! `steps_done` of `steps` steps because of `signal`.
class Interrupted : public Error {
 public:
  Interrupted(int signal, int steps_done, int steps);
  [[nodiscard]] int signal() const { return signal_; }
  [[nodiscard]] int steps_done() const { return steps_done_; }
  [[nodiscard]] int steps() const { return steps_; }

 private:
  int signal_;
  int steps_done_;
  int steps_;
};

//! \brief The ranks' agreement to stop on a signal, at frame boundaries: every `period`-th frame
//! each rank starts a nonblocking MAX-reduction of its stop_signal() and completes the one it
//! started `period` frames earlier, so the wait rarely waits, and every rank learns the same
//! answer after the same frame. On one rank no MPI is involved. Collective over `communicator`
//! (a duplicate of it, made at construction, each wait bounded by `timeout`).
class StopAgreement {
 public:
  StopAgreement(MPI_Comm communicator, std::chrono::duration<double> timeout, int period = 8);
  ~StopAgreement();
  StopAgreement(const StopAgreement&) = delete;
  StopAgreement& operator=(const StopAgreement&) = delete;

  //! At the boundary after frame `frame` (counted from 0): the signal every rank agreed to stop
  //! on, 0 to go on. \throws Error naming the ranks not heard from when a wait times out.
  [[nodiscard]] int stop_now(int frame);
  //! Completes the agreement in flight (at the end of the loop): every rank started the same.
  void finish();

 private:
  MPI_Comm communicator_ = MPI_COMM_NULL;
  std::chrono::duration<double> timeout_;
  int period_;
  int ranks_ = 1;
  bool pending_ = false;
  int mine_ = 0;
  int agreed_ = 0;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace haloflow::models
