#pragma once
// A run's field outputs, as the case asks: VTK image data every run.output_every steps and after
// the last (every rank its piece, rank 0 the .pvti), and a PNG of the field after the last step
// (gathered on rank 0).

#include <nlohmann/json.hpp>

#include <filesystem>

#include "case_file.hpp"
#include "haloflow/mpi_session.hpp"
#include "run_options.hpp"

namespace haloflow::cases {

//! Sets `options.output` (and output_every) to write the case's field outputs into the run
//! directory `out`; rank 0 notes them in `results`, which must outlive the run. Collective.
//! \throws Error when RUN_DIR/vtk cannot be created.
void add_field_outputs(const CaseFile& c, const std::filesystem::path& out, const MpiSession& mpi,
                       models::RunOptions& options, nlohmann::json& results);

}  // namespace haloflow::cases
