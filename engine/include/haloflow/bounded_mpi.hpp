#pragma once
//! \file
//! \brief MPI collectives with a deadline: a rank that stopped (or died without the launcher
//! noticing) ends the others' wait with an Error naming the call, this rank and the ranks not
//! heard from, instead of a hang that spins a core forever.
//!
//! Each call starts the nonblocking form (MPI_Iallreduce, MPI_Ibcast, MPI_Ibarrier, MPI_Igather,
//! MPI_Igatherv, MPI_Iallgather, MPI_Ialltoallv) and tests it until the deadline. On a timeout this
//! rank asks every other rank of the communicator, on a private duplicate, which collective it is
//! in; ranks waiting in a bounded call answer at once, for a short grace period. Those that do not
//! answer are the ones named. After a timeout the call's buffers may still be written by MPI: the
//! run must end (the haloflow commands abort every rank).

#include <mpi.h>

#include <chrono>
#include <string_view>

#include "haloflow/error.hpp"

namespace haloflow {

//! \brief A bounded collective that did not complete in time: some rank was not heard from.
//! The run must end; a caller that gathers local failures to agree on them (which is another
//! collective, and would wait out the timeout again) lets this one pass.
class CollectiveTimeout : public Error {
 public:
  using Error::Error;
};

//! \brief The collectives of one communicator, each bounded by the same timeout.
//!
//! Every rank of the communicator must make the same bounded calls in the same order (as MPI
//! requires of collectives). The first call on a communicator also duplicates it (MPI_Comm_idup,
//! completed alongside the call) for the notes a timeout exchanges; the duplicate is cached on
//! the communicator and freed with it.
class BoundedCollectives {
 public:
  //! `timeout`: how long any one call may wait for the other ranks.
  BoundedCollectives(MPI_Comm communicator, std::chrono::duration<double> timeout)
      : communicator_(communicator), timeout_(timeout) {}

  //! MPI_Allreduce. `what` names the call in messages ("jacobi2d norms of steps 0 to 99").
  //! \throws Error naming `what`, this rank and the silent ranks on a timeout, or a failed call.
  void allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
                 std::string_view what) const;
  //! MPI_Bcast from `root`. \throws Error as allreduce.
  void broadcast(void* buffer, int count, MPI_Datatype type, int root, std::string_view what) const;
  //! MPI_Barrier. \throws Error as allreduce.
  void barrier(std::string_view what) const;
  //! MPI_Gather of `count` elements of `type` from every rank to `root`. \throws Error as
  //! allreduce.
  void gather(const void* send, int count, MPI_Datatype type, void* receive, int root,
              std::string_view what) const;
  //! MPI_Gatherv to `root` (`counts` and `displacements` matter on the root only). \throws Error
  //! as allreduce.
  void gatherv(const void* send, int count, MPI_Datatype type, void* receive, const int* counts,
               const int* displacements, int root, std::string_view what) const;

  //! MPI_Allgather of `count` elements of `type` from every rank to every rank. \throws Error as
  //! allreduce.
  void allgather(const void* send, int count, MPI_Datatype type, void* receive,
                 std::string_view what) const;
  //! MPI_Alltoallv, the same `type` both ways. \throws Error as allreduce.
  void alltoallv(const void* send, const int* send_counts, const int* send_displacements,
                 MPI_Datatype type, void* receive, const int* receive_counts,
                 const int* receive_displacements, std::string_view what) const;

  //! The communicator the calls run on.
  [[nodiscard]] MPI_Comm communicator() const { return communicator_; }
  //! The bound of each call.
  [[nodiscard]] std::chrono::duration<double> timeout() const { return timeout_; }

 private:
  MPI_Comm communicator_;
  std::chrono::duration<double> timeout_;
};

//! \brief Completes `request`, a nonblocking collective `call` ("MPI_Iallreduce") just started
//! on `communicator`, within `timeout`, answering other ranks' questions while it waits.
//! \throws CollectiveTimeout naming `what`, this rank and the ranks not heard from when it does
//! not complete in time.
void wait_for_collective(MPI_Request& request, MPI_Comm communicator, const char* call,
                         std::string_view what, std::chrono::duration<double> timeout);

}  // namespace haloflow
