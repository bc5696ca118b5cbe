#include "haloflow/mpi_session.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>

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

MpiSession::~MpiSession() {
  if (!owns_) return;
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised == 0 && MPI_Finalize() != MPI_SUCCESS) {
    std::fputs("haloflow: MPI_Finalize failed\n", stderr);
  }
}

}  // namespace haloflow
