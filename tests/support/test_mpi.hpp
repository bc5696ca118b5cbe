#pragma once
// The MPI session of a test executable that calls code which needs MPI (replay, the case reader's
// agreement between ranks) without mpiexec: MPI starts once, as a singleton, on first use, and
// ends at exit; MPI cannot start again after it ends.

#include "haloflow/mpi_session.hpp"

namespace haloflow::testing {

inline const MpiSession& test_mpi() {
  static const MpiSession session(nullptr, nullptr);
  return session;
}

}  // namespace haloflow::testing
