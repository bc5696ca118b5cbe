#pragma once
// What the model check programs (haloflow_model_jacobi_check, _heat_order, _euler_check) share:
// MPI, the executor from --executor (host by default), exit 77 when a GPU executor is asked for
// on a machine without a CUDA device, the verdict on rank 0, and one exit status on every rank.

#include <fmt/format.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"

namespace haloflow::tests {

struct ModelCheck {
  ExecutorKind executor = ExecutorKind::host;
  int rank = 0;
  int ranks = 1;
};

//! The value after `name` on the command line, or `fallback`.
inline std::string option(int argc, char** argv, const char* name, std::string fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return fallback;
}

//! Runs `checks` (which returns its failures) on every rank and prints "`what` (EXECUTOR
//! executor, N ranks): all ok|FAILED" on rank 0. \returns the process's exit status: 0, 1, or 77
//! (skipped) for a GPU executor without a device; rank 0's verdict on every rank.
inline int run_model_check(int argc, char** argv, const char* program, const std::string& what,
                           const std::function<int(const ModelCheck&)>& checks) {
  const std::string executor_name = option(argc, argv, "--executor", "host");
  std::optional<MpiSession> session;  // outlives the handler below, which may need MPI_Abort
  try {
    const MpiSession& mpi = session.emplace(&argc, &argv);
    const auto executor = executor_from_string(executor_name);
    if (!executor) throw Error(fmt::format("--executor {}: unknown executor", executor_name));
    if (*executor != ExecutorKind::host && place_rank_on_device(MPI_COMM_WORLD).device < 0) {
      if (mpi.world_rank() == 0)
        std::printf("no CUDA device: GPU check '%s' skipped\n", what.c_str());
      return 77;
    }
    int failures = checks({*executor, mpi.world_rank(), mpi.world_size()});
    HALOFLOW_MPI(MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD), "the verdict");
    if (mpi.world_rank() == 0) {
      std::printf("%s (%s executor, %d ranks): %s\n", what.c_str(), executor_name.c_str(),
                  mpi.world_size(), failures == 0 ? "all ok" : "FAILED");
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", program, error.what());
    if (session) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}

//! Observed orders log2(e_i / e_{i+1}) between consecutive refinements (each grid twice as fine
//! as the one before), each checked against [lowest, highest] and printed on rank 0 as
//! "observed `what` n = A -> B: ..."; \returns the number outside.
inline int order_failures(const std::vector<double>& errors, const std::vector<std::int64_t>& cells,
                          double lowest, double highest, int rank, const char* what) {
  int failures = 0;
  for (std::size_t i = 0; i + 1 < errors.size(); ++i) {
    const double order = std::log2(errors[i] / errors[i + 1]);
    const bool ok = order >= lowest && order <= highest;
    if (rank == 0) {
      std::printf("observed %s n = %lld -> %lld: %.4f (expected %.1f to %.1f): %s\n", what,
                  static_cast<long long>(cells[i]), static_cast<long long>(cells[i + 1]), order,
                  lowest, highest, ok ? "ok" : "FAILED");
    }
    failures += ok ? 0 : 1;
  }
  return failures;
}

}  // namespace haloflow::tests
