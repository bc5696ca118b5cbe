#include "field_outputs.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "collective.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "output_files.hpp"
#include "png_output.hpp"
#include "vtk_output.hpp"

namespace haloflow::cases {
namespace {

// The first component of `field` in the plane z = global nz / 2, gathered on rank 0 and drawn
// there into `path`; nullopt on the other ranks. Collective over MPI_COMM_WORLD.
std::optional<outputs::FieldPicture> write_field_png(const std::string& path,
                                                     const models::OwnedField& field,
                                                     const BoundedCollectives& world) {
  const std::int64_t nx = field.global_cells[0];
  const std::int64_t ny = field.global_cells[1];
  const std::int64_t z = field.global_cells[2] / 2 - field.offset[2];
  std::vector<std::int64_t> indices;
  std::vector<double> values;
  if (z >= 0 && z < field.cells[2]) {
    for (std::int64_t j = 0; j < field.cells[1]; ++j) {
      for (std::int64_t i = 0; i < field.cells[0]; ++i) {
        indices.push_back((field.offset[1] + j) * nx + field.offset[0] + i);
        values.push_back(
            field.values[static_cast<std::size_t>((z * field.cells[1] + j) * field.cells[0] + i)]);
      }
    }
  }
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int mine = static_cast<int>(values.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  world.gather(&mine, 1, MPI_INT, counts.data(), 0, "the picture's slice sizes");
  std::vector<int> displacements(static_cast<std::size_t>(ranks));
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displacements[r] = total;
    total += counts[r];
  }
  std::vector<std::int64_t> all_indices(static_cast<std::size_t>(rank == 0 ? total : 0));
  std::vector<double> all_values(all_indices.size());
  world.gatherv(indices.data(), mine, MPI_INT64_T, all_indices.data(), counts.data(),
                displacements.data(), 0, "the picture's slice (its cells)");
  world.gatherv(values.data(), mine, MPI_DOUBLE, all_values.data(), counts.data(),
                displacements.data(), 0, "the picture's slice (its values)");
  if (rank != 0) return std::nullopt;
  if (static_cast<std::int64_t>(total) != nx * ny) {
    throw haloflow::Error(
        fmt::format("{}: the ranks' slices hold {} cells; expected {} x {}", path, total, nx, ny));
  }
  std::vector<double> plane(static_cast<std::size_t>(nx * ny));
  for (std::size_t k = 0; k < all_indices.size(); ++k) {
    plane[static_cast<std::size_t>(all_indices[k])] = all_values[k];
  }
  auto picture = outputs::draw_field(plane, nx, ny);
  outputs::write_png(path, picture.picture);
  return picture;
}

}  // namespace

void add_field_outputs(const CaseFile& c, const std::filesystem::path& out, const MpiSession& mpi,
                       models::RunOptions& o, nlohmann::json& results) {
  if (!c.run.vtk && !c.run.png) return;
  const auto directory = out / "vtk";
  const Seconds timeout(c.run.timeout_s);
  if (c.run.vtk) {
    on_root_everywhere(mpi, timeout, "the VTK directory",
                       [&] { outputs::make_run_subdirectory(out, "vtk"); });
    if (mpi.world_rank() == 0) {
      results["vtk"] = {{"directory", "vtk"}, {"every", c.run.output_every}};
    }
  }
  const auto png = out / (c.name + ".png");
  o.output = [&c, &results, directory, png, timeout](const models::OwnedField& field) {
    if (c.run.vtk) outputs::write_vtk(directory, c.name, field, MPI_COMM_WORLD, timeout);
    if (c.run.png && field.step == c.run.steps) {
      const auto picture =
          write_field_png(png.string(), field, BoundedCollectives(MPI_COMM_WORLD, timeout));
      if (picture) {
        results["png"] = {
            {"file", png.filename().string()},     {"array", field.names.front()},
            {"width", picture->picture.width},     {"height", picture->picture.height},
            {"field_x", picture->field_x},         {"field_y", picture->field_y},
            {"field_width", picture->field_width}, {"field_height", picture->field_height},
            {"minimum", picture->minimum},         {"maximum", picture->maximum}};
      }
    }
  };
  // VTK's interval; the picture needs only the last step.
  o.output_every = c.run.vtk ? c.run.output_every : 0;
}

}  // namespace haloflow::cases
