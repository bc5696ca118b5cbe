#pragma once
// One output of a field as VTK image data for ParaView: each rank writes its piece as a .vti
// (its own extent, binary), rank 0 the .pvti that names them all; and the .pvd collection that
// lists a run's outputs with their times (vtk_image.hpp: the formats).

#include <mpi.h>

#include <filesystem>
#include <string>
#include <vector>

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
//! output_stem(name, field.step)). Collective over `communicator`. \returns on rank 0 every
//! file written (each rank's piece with its size, then the .pvti); nothing on the others.
//! \throws Error on every rank when any rank's piece could not be written, naming it.
[[nodiscard]] std::vector<WrittenFile> write_vtk(const std::filesystem::path& directory,
                                                 const std::string& name,
                                                 const models::OwnedField& field,
                                                 const VtkFormat& format, MPI_Comm communicator);

//! Writes `path` (a .pvd) listing `entries`. \returns the file and its size.
WrittenFile write_pvd(const std::filesystem::path& path,
                      const std::vector<CollectionEntry>& entries);

}  // namespace haloflow::outputs
