#include "vtk_output.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <vector>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "output_files.hpp"

namespace haloflow::outputs {
namespace {

using Extent = std::array<long long, 6>;

// Cell data: a piece's extent counts points, one more than its cells along each axis.
Extent piece_extent(const haloflow::models::OwnedField& f) {
  Extent e{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    e[2 * axis] = f.offset[axis];
    e[2 * axis + 1] = f.offset[axis] + f.cells[axis];
  }
  return e;
}

std::string extent_text(const Extent& e) {
  return fmt::format("{} {} {} {} {} {}", e[0], e[1], e[2], e[3], e[4], e[5]);
}

std::string whole_extent(const haloflow::models::OwnedField& f) {
  return fmt::format("0 {} 0 {} 0 {}", f.global_cells[0], f.global_cells[1], f.global_cells[2]);
}

std::string spacing_text(const haloflow::models::OwnedField& f) {
  return fmt::format("{:.17g} {:.17g} {:.17g}", f.spacing[0], f.spacing[1], f.spacing[2]);
}

std::string file_stem(const std::string& name, int step) {
  return fmt::format("{}_{:06d}", name, step);
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  // In RUN_DIR/vtk: no link from the run directory down is followed.
  write_output_file(path, text,
                    {.replace = true, .run_directory = path.parent_path().parent_path()});
}

}  // namespace

std::string vti_text(const haloflow::models::OwnedField& f) {
  const std::size_t cells = static_cast<std::size_t>(f.cells[0] * f.cells[1] * f.cells[2]);
  if (f.names.empty() || f.values.size() != cells * f.names.size()) {
    throw Error(fmt::format("VTK output: {} values for {} cells and {} components", f.values.size(),
                            cells, f.names.size()));
  }
  const std::string extent = extent_text(piece_extent(f));
  std::string text = fmt::format(
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      "  <ImageData WholeExtent=\"{}\" Origin=\"0 0 0\" Spacing=\"{}\">\n"
      "    <Piece Extent=\"{}\">\n"
      "      <CellData Scalars=\"{}\">\n",
      whole_extent(f), spacing_text(f), extent, f.names.front());
  for (std::size_t c = 0; c < f.names.size(); ++c) {
    text += fmt::format(
        "        <DataArray type=\"Float64\" Name=\"{}\" NumberOfComponents=\"1\" "
        "format=\"ascii\">\n",
        f.names[c]);
    for (std::size_t i = 0; i < cells; ++i) {
      text += fmt::format("{:.17g}{}", f.values[c * cells + i],
                          (i + 1) % 8 == 0 || i + 1 == cells ? "\n" : " ");
    }
    text += "        </DataArray>\n";
  }
  text +=
      "      </CellData>\n"
      "    </Piece>\n"
      "  </ImageData>\n"
      "</VTKFile>\n";
  return text;
}

void write_vtk(const std::filesystem::path& directory, const std::string& name,
               const haloflow::models::OwnedField& field, MPI_Comm communicator,
               std::chrono::duration<double> timeout) {
  const BoundedCollectives collectives(communicator, timeout);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(communicator, &rank);
  MPI_Comm_size(communicator, &ranks);
  const std::string stem = file_stem(name, field.step);
  const std::string piece = fmt::format("{}_r{:04d}.vti", stem, rank);
  std::string failure;
  try {
    write_text(directory / piece, vti_text(field));
  } catch (const Error& error) {
    failure = error.what();
  }
  const Extent mine = piece_extent(field);
  std::vector<long long> extents(static_cast<std::size_t>(6 * ranks));
  collectives.gather(mine.data(), 6, MPI_LONG_LONG, extents.data(), 0,
                     fmt::format("the VTK pieces' extents of step {}", field.step));
  int failed = failure.empty() ? 0 : 1;
  int any = 0;
  collectives.allreduce(&failed, &any, 1, MPI_INT, MPI_MAX,
                        fmt::format("the VTK pieces of step {} written", field.step));
  if (!failure.empty()) throw Error(failure);
  if (any != 0) throw Error(fmt::format("VTK output of step {}: another rank failed", field.step));
  if (rank != 0) return;
  std::string text = fmt::format(
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      "  <PImageData WholeExtent=\"{}\" GhostLevel=\"0\" Origin=\"0 0 0\" Spacing=\"{}\">\n"
      "    <PCellData Scalars=\"{}\">\n",
      whole_extent(field), spacing_text(field), field.names.front());
  for (const auto& component : field.names) {
    text += fmt::format(
        "      <PDataArray type=\"Float64\" Name=\"{}\" NumberOfComponents=\"1\"/>\n", component);
  }
  text += "    </PCellData>\n";
  for (int r = 0; r < ranks; ++r) {
    Extent e{};
    for (std::size_t i = 0; i < 6; ++i) e[i] = extents[static_cast<std::size_t>(6 * r) + i];
    text += fmt::format("    <Piece Extent=\"{}\" Source=\"{}_r{:04d}.vti\"/>\n", extent_text(e),
                        stem, r);
  }
  text +=
      "  </PImageData>\n"
      "</VTKFile>\n";
  write_text(directory / (stem + ".pvti"), text);
}

}  // namespace haloflow::outputs
