#pragma once
// VTK image data for ParaView: each rank writes its owned cells as a .vti (ASCII cell data, its
// global extent, origin and spacing), rank 0 a .pvti that references every rank's piece.

#include <mpi.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "run_options.hpp"

namespace haloflow::outputs {

//! The .vti of one rank's piece (ASCII cell data, one DataArray per component).
std::string vti_text(const haloflow::models::OwnedField& field);

//! Writes DIRECTORY/NAME_STEP_rRANK.vti on every rank and, on rank 0, DIRECTORY/NAME_STEP.pvti.
//! Collective over `communicator` (rank 0 gathers every piece's extent), each call bounded by
//! `timeout`. \throws Error naming a file that cannot be written, or the ranks that did not take
//! part in time.
void write_vtk(const std::filesystem::path& directory, const std::string& name,
               const haloflow::models::OwnedField& field, MPI_Comm communicator,
               std::chrono::duration<double> timeout = std::chrono::seconds(60));

}  // namespace haloflow::outputs
