#pragma once
//! \file
//! \brief MPI set-up for haloflow: initialised with MPI_THREAD_MULTIPLE (host nodes call MPI from
//! a CUDA driver thread), and never finalised by haloflow unless haloflow initialised it.

#include <chrono>
#include <string_view>

namespace haloflow {

//! \brief Throws Error("<call> failed for <context>: <MPI error string>") unless `code` is
//! MPI_SUCCESS.
void mpi_check(int code, const char* call, std::string_view context);

//! \brief Initialises MPI if the caller has not; \throws Error when the library cannot provide
//! MPI_THREAD_MULTIPLE. Finalises in the destructor only what it initialised.
class MpiSession {
 public:
  //! \brief Calls MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE) unless MPI is already
  //! initialised: host nodes call MPI from a CUDA driver thread. `argc` and `argv` may be null.
  //! \throws Error for a failed MPI call or a thread level below MPI_THREAD_MULTIPLE (finalising
  //! first if it initialised MPI).
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  MpiSession(MpiSession&&) = delete;
  MpiSession& operator=(MpiSession&&) = delete;

  //! \brief This process's rank in MPI_COMM_WORLD.
  [[nodiscard]] int world_rank() const { return rank_; }
  //! \brief Number of ranks in MPI_COMM_WORLD.
  [[nodiscard]] int world_size() const { return size_; }
  //! \brief True when this session called MPI_Init_thread, and so will call MPI_Finalize.
  [[nodiscard]] bool initialised_here() const { return owns_; }

  //! \brief Ends the session on every rank within `timeout`, where MPI_Finalize alone would wait
  //! forever for a rank that stopped: first a bounded barrier (\throws Error naming the ranks
  //! not heard from: the caller then aborts the job), then, if this session initialised MPI,
  //! MPI_Finalize under a watchdog that ends this process (status 1, a line on standard error)
  //! when it has not returned after `timeout`. Collective; the destructor then does nothing.
  void finish(std::chrono::duration<double> timeout);

 private:
  bool finished_ = false;
  bool owns_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace haloflow

//! Checks an MPI call; `context` names what the call was for.
#define HALOFLOW_MPI(call, context) ::haloflow::mpi_check((call), #call, (context))
