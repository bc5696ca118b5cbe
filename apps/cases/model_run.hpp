#pragma once
// haloflow run for a model case (jacobi2d, heat3d, euler2d): see model_run.cpp.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <vector>

#include "case_file.hpp"
#include "commands.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::app {

//! Runs the model of `c` into the run directory `out` on every rank: the first of `executors`
//! with the case's outputs, checkpoints and --restart; each further one (--executor all) the same
//! steps, timed only, compared in results["executor_comparison"]. Rank 0 fills `results`.
//! \returns the driver's status (1: a failed --compare). \throws Error when a run failed.
int run_model(const CaseFile& c, const RunOptions& options,
              const std::vector<ExecutorKind>& executors, const std::filesystem::path& out,
              const MpiSession& mpi, nlohmann::json& results);

}  // namespace haloflow::app
