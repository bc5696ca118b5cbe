#pragma once
// One output of a field as VTK image data for ParaView: each rank writes its piece as a .vti
// (its own extent, binary), rank 0 the .pvti that names them all; and the .pvd collection that
// lists a run's outputs with their times (vtk_image.hpp: the formats).

#include <mpi.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "haloflow/bounded_mpi.hpp"
#include "run_options.hpp"
#include "vtk_image.hpp"
#include "written_files.hpp"

namespace haloflow::outputs {

//! "NAME_STEP" (the step zero-padded to 6 digits): an output's files are named by its step.
[[nodiscard]] std::string output_stem(const std::string& name, int step);

//! The grid every file of `field`'s output describes: the whole extent, origin, spacing,
//! centring, time.
[[nodiscard]] ImageGrid image_grid(const models::OwnedField& field);

//! Writes DIRECTORY/STEM_rRANK.vti on every rank and, on rank 0, DIRECTORY/STEM.pvti (STEM =
//! output_stem(name, field.step)); DIRECTORY lies inside `run_directory`, below which no link is
//! followed. Collective over `collectives`' communicator, each call bounded by its timeout.
//! \returns on rank 0 every file written (each rank's piece with its size, then the .pvti);
//! nothing on the others. \throws Error on every rank when any rank's piece could not be written,
//! naming it; Error naming the ranks that did not take part in time.
[[nodiscard]] std::vector<WrittenFile> write_vtk(const std::filesystem::path& directory,
                                                 const std::filesystem::path& run_directory,
                                                 const std::string& name,
                                                 const models::OwnedField& field,
                                                 const VtkFormat& format,
                                                 const BoundedCollectives& collectives);

//! Writes `path` (a .pvd, inside `run_directory`) listing `entries`. \returns the file and its
//! size.
WrittenFile write_pvd(const std::filesystem::path& path, const std::filesystem::path& run_directory,
                      const std::vector<CollectionEntry>& entries);

}  // namespace haloflow::outputs
