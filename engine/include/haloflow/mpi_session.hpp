#pragma once
//! \file
//! \brief MPI set-up for haloflow: initialised with MPI_THREAD_MULTIPLE (host nodes call MPI from
//! a CUDA driver thread), and never finalised by haloflow unless haloflow initialised it.

#include <string_view>

namespace haloflow {

//! \brief Throws Error("<call> failed for <context>: <MPI error string>") unless `code` is
//! MPI_SUCCESS.
void mpi_check(int code, const char* call, std::string_view context);

//! \brief Initialises MPI if the caller has not; \throws Error when the library cannot provide
//! MPI_THREAD_MULTIPLE. Finalises in the destructor only what it initialised.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  MpiSession(MpiSession&&) = delete;
  MpiSession& operator=(MpiSession&&) = delete;

  [[nodiscard]] int world_rank() const { return rank_; }
  [[nodiscard]] int world_size() const { return size_; }
  [[nodiscard]] bool initialised_here() const { return owns_; }

 private:
  bool owns_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace haloflow

//! Checks an MPI call; `context` names what the call was for.
#define HALOFLOW_MPI(call, context) ::haloflow::mpi_check((call), #call, (context))
