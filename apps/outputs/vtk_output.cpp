#include "vtk_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "output_files.hpp"
#include "point_pieces.hpp"

namespace haloflow::outputs {
namespace {

std::string piece_file(const std::string& stem, int rank) {
  return fmt::format("{}_r{:04d}.vti", stem, rank);
}

std::vector<ArrayValues> array_values(const models::OwnedField& field, const Piece& piece) {
  std::vector<ArrayValues> arrays;
  for (std::size_t a = 0; a < field.arrays.size(); ++a) {
    arrays.push_back({.name = field.arrays[a].name,
                      .components = field.arrays[a].components,
                      .values = piece.values[a]});
  }
  return arrays;
}

}  // namespace

std::string output_stem(const std::string& name, int step) {
  return fmt::format("{}_{:06d}", name, step);
}

ImageGrid image_grid(const models::OwnedField& field) {
  return {.whole = whole_extent(sample_grid(field)),
          .origin = field.origin,
          .spacing = field.spacing,
          .centring = field.centring,
          .time = field.time};
}

std::vector<WrittenFile> write_vtk(const std::filesystem::path& directory,
                                   const std::filesystem::path& run_directory,
                                   const std::string& name, const models::OwnedField& field,
                                   const VtkFormat& format, const BoundedCollectives& collectives) {
  MPI_Comm communicator = collectives.communicator();
  int rank = 0;
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "the VTK output");
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "the VTK output");
  if (field.arrays.empty()) throw Error("VTK output: the field has no arrays");
  const std::string stem = output_stem(name, field.step);
  const ImageGrid grid = image_grid(field);
  const Piece piece = field_piece(field, collectives);  // collective
  const std::vector<ArrayValues> arrays = array_values(field, piece);
  std::string failure;
  std::uint64_t bytes = 0;
  try {
    const VtiParts parts = vti_parts(grid, piece.extent, arrays, format);
    write_output_file(directory / piece_file(stem, rank), {parts.xml, parts.data, parts.tail},
                      {.replace = true, .run_directory = run_directory});
    bytes = parts.size();
  } catch (const Error& error) {
    failure = error.what();
  }
  // Rank 0 names every piece in the .pvti and announces every file: each piece's extent and size.
  std::array<std::int64_t, 7> mine{};
  std::copy(piece.extent.begin(), piece.extent.end(), mine.begin());
  mine[6] = static_cast<std::int64_t>(bytes);
  std::vector<std::int64_t> all(static_cast<std::size_t>(7 * ranks));
  collectives.gather(mine.data(), 7, MPI_INT64_T, all.data(), 0,
                     fmt::format("the VTK pieces' extents of step {}", field.step));
  int failed = failure.empty() ? 0 : 1;
  int any = 0;
  collectives.allreduce(&failed, &any, 1, MPI_INT, MPI_MAX,
                        fmt::format("the VTK pieces of step {} written", field.step));
  if (!failure.empty()) throw Error(failure);
  if (any != 0) {
    throw Error(fmt::format("VTK output of step {}: another rank's piece could not be written",
                            field.step));
  }
  if (rank != 0) return {};
  std::vector<PieceSource> pieces;
  std::vector<WrittenFile> written;
  for (int r = 0; r < ranks; ++r) {
    Extent e{};
    const auto at = static_cast<std::size_t>(7 * r);
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(at),
              all.begin() + static_cast<std::ptrdiff_t>(at + 6), e.begin());
    pieces.push_back({.extent = e, .file = piece_file(stem, r)});
    written.push_back({.path = directory / piece_file(stem, r),
                       .bytes = static_cast<std::uint64_t>(all[at + 6])});
  }
  const std::string text = pvti_file(grid, pieces, arrays, format);
  write_output_file(directory / (stem + ".pvti"), text,
                    {.replace = true, .run_directory = run_directory});
  written.push_back({.path = directory / (stem + ".pvti"), .bytes = text.size()});
  return written;
}

WrittenFile write_pvd(const std::filesystem::path& path, const std::filesystem::path& run_directory,
                      const std::vector<CollectionEntry>& entries) {
  const std::string text = pvd_file(entries);
  write_output_file(path, text,
                    {.replace = true, .run_directory = run_directory});  // after each output
  return {.path = path, .bytes = text.size()};
}

}  // namespace haloflow::outputs
