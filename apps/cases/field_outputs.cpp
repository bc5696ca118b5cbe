#include "field_outputs.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "collective.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "output_files.hpp"
#include "vtk_output.hpp"

namespace haloflow::cases {
namespace {

using models::Centring;
using models::OwnedField;

// Where layer k of the axis sits: at the point, or at the cell's centre.
double layer_position(const OwnedField& field, std::size_t axis, std::int64_t k) {
  const double centre = field.centring == Centring::cells ? 0.5 : 0.0;
  return field.origin[axis] + (static_cast<double>(k) + centre) * field.spacing[axis];
}

// The first component of the first array in global layer `z`, gathered on rank 0 (x fastest);
// empty on the other ranks. Collective over `world`'s communicator (MPI_COMM_WORLD).
std::vector<double> gather_layer(const OwnedField& field, std::int64_t z,
                                 const BoundedCollectives& world) {
  const std::int64_t nx = field.global_samples[0];
  const std::int64_t ny = field.global_samples[1];
  const std::int64_t local = z - field.offset[2];
  const models::FieldArray& array = field.arrays.front();
  std::vector<std::int64_t> indices;
  std::vector<double> values;
  if (local >= 0 && local < field.samples[2]) {
    for (std::int64_t j = 0; j < field.samples[1]; ++j) {
      for (std::int64_t i = 0; i < field.samples[0]; ++i) {
        const auto at = static_cast<std::size_t>(
            ((local * field.samples[1] + j) * field.samples[0] + i) * array.components);
        indices.push_back((field.offset[1] + j) * nx + field.offset[0] + i);
        values.push_back(array.values[at]);
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
  if (rank != 0) return {};
  if (static_cast<std::int64_t>(total) != nx * ny) {
    throw Error(
        fmt::format("PNG: the ranks' slices hold {} values; expected {} x {}", total, nx, ny));
  }
  std::vector<double> plane(static_cast<std::size_t>(nx * ny));
  for (std::size_t k = 0; k < all_indices.size(); ++k) {
    plane[static_cast<std::size_t>(all_indices[k])] = all_values[k];
  }
  return plane;
}

outputs::VtkFormat vtk_format(const RunSection& run) {
  return {.precision = run.vtk_precision == "float64" ? outputs::VtkPrecision::float64
                                                      : outputs::VtkPrecision::float32,
          .compression = run.vtk_compression == "zlib" ? outputs::VtkCompression::zlib
                                                       : outputs::VtkCompression::none};
}

}  // namespace

FieldOutputs::FieldOutputs(const CaseFile& c, std::filesystem::path out, const MpiSession& mpi,
                           outputs::WrittenFiles& written)
    : name_(c.name),
      out_(std::move(out)),
      mpi_(mpi),
      written_(written),
      vtk_(c.model->run_shape().writes_fields() && c.run.vtk),
      png_(c.model->run_shape().writes_fields() && c.run.png),
      every_(c.run.output_every),
      format_(vtk_format(c.run)),
      slice_(c.run.png_slice),
      timeout_(c.run.timeout_s) {
  // Made by rank 0 without following a link planted in the run directory; every rank writes its
  // VTK piece there (the run directory is on a file system every rank sees).
  if (vtk_) {
    on_root_everywhere(mpi_, timeout_, "the VTK directory",
                       [&] { outputs::make_run_subdirectory(out_, "vtk"); });
  }
  if (png_) {  // rank 0 draws and writes the pictures
    on_root_everywhere(mpi_, timeout_, "the PNG directory",
                       [&] { outputs::make_run_subdirectory(out_, "png"); });
  }
}

void FieldOutputs::attach(models::RunOptions& options) const {
  if (any()) options.output_every = every_;
}

void FieldOutputs::write(const OwnedField& field) {
  // euler2d with t_end: the steps after the end time leave the state as it was; it is out already.
  if (last_step_ && *last_step_ == field.step) return;
  last_step_ = field.step;
  if (vtk_) write_vtk(field);
  if (png_) write_png(field);
}

void FieldOutputs::write_vtk(const OwnedField& field) {
  // A piece that cannot be written fails every rank; the .pvti (rank 0's) is made to as well.
  std::vector<outputs::WrittenFile> files;
  std::string failure;
  try {
    files = outputs::write_vtk(out_ / "vtk", out_, name_, field, format_,
                               BoundedCollectives(MPI_COMM_WORLD, timeout_));
  } catch (const CollectiveTimeout&) {
    throw;  // a rank went silent: agreeing on it would wait out the timeout a second time
  } catch (const Error& error) {
    failure = error.what();
  }
  agree_everywhere(failure, mpi_, timeout_,
                   fmt::format("the VTK output of step {} written", field.step));
  // The collection is rewritten after each output, so that a run can be watched as it goes.
  on_root_everywhere(mpi_, timeout_, fmt::format("the collection {}.pvd", name_), [&] {
    written_.add(files);
    collection_.push_back(
        {.time = field.time, .file = "vtk/" + outputs::output_stem(name_, field.step) + ".pvti"});
    written_.add(outputs::write_pvd(out_ / (name_ + ".pvd"), out_, collection_));
    arrays_.clear();
    for (const models::FieldArray& array : field.arrays) {
      arrays_.emplace_back(array.name, array.components);
    }
    centring_ = field.centring == Centring::points ? "points" : "cells";
  });
}

std::int64_t FieldOutputs::picture_layer(const OwnedField& field) {
  if (layer_) return *layer_;
  const std::int64_t layers = field.dimensions == 3 ? field.global_samples[2] : 1;
  if (slice_ >= 0 || layers == 1) {
    layer_ = std::min<std::int64_t>(std::max(slice_, 0), layers - 1);
    return *layer_;
  }
  // The layer where |field| is largest: a sine's zero plane (heat3d's z = 1/2) would show
  // only round-off.
  std::vector<double> largest(static_cast<std::size_t>(layers), 0.0);
  const models::FieldArray& array = field.arrays.front();
  const std::int64_t plane = field.samples[0] * field.samples[1];
  for (std::int64_t k = 0; k < field.samples[2]; ++k) {
    double& layer = largest[static_cast<std::size_t>(field.offset[2] + k)];
    for (std::int64_t at = k * plane; at < (k + 1) * plane; ++at) {
      const double v = std::abs(array.values[static_cast<std::size_t>(at * array.components)]);
      if (v > layer) layer = v;  // NaNs never count
    }
  }
  std::vector<double> global(largest.size());
  BoundedCollectives(MPI_COMM_WORLD, timeout_)
      .allreduce(largest.data(), global.data(), static_cast<int>(layers), MPI_DOUBLE, MPI_MAX,
                 "the picture's layer");
  layer_ = std::max_element(global.begin(), global.end()) - global.begin();
  return *layer_;
}

void FieldOutputs::write_png(const OwnedField& field) {
  const std::int64_t layer = picture_layer(field);
  const std::vector<double> plane =
      gather_layer(field, layer, BoundedCollectives(MPI_COMM_WORLD, timeout_));
  std::string failure;
  if (mpi_.world_rank() == 0) {
    try {
      const models::FieldArray& array = field.arrays.front();
      outputs::PictureText text{
          .title = {fmt::format("{}: {}", name_, array.name),
                    field.steady ? fmt::format("step {}", field.step)
                                 : fmt::format("step {}, t = {:.6g}", field.step, field.time)},
          .units = fmt::format("{}, {}", array.name, array.units),
          .x = {.name = "x", .first = layer_position(field, 0, 0), .spacing = field.spacing[0]},
          .y = {.name = "y", .first = layer_position(field, 1, 0), .spacing = field.spacing[1]}};
      if (field.dimensions == 3) {
        text.title.push_back(fmt::format("slice z = {:.4g} (layer {} of {})",
                                         layer_position(field, 2, layer), layer,
                                         field.global_samples[2]));
        picture_slice_ = {{"layer", layer},
                          {"z", layer_position(field, 2, layer)},
                          {"layers", field.global_samples[2]},
                          {"chosen", slice_ >= 0 ? "run.png_slice" : "largest |value|"}};
      }
      const outputs::FieldPicture picture =
          outputs::draw_field(plane, field.global_samples[0], field.global_samples[1], text);
      const std::filesystem::path file =
          out_ / "png" / (outputs::output_stem(name_, field.step) + ".png");
      written_.add({.path = file, .bytes = outputs::write_png(file, picture.picture, out_)});
      pictures_.push_back({{"file", "png/" + file.filename().string()},
                           {"step", field.step},
                           {"time", field.time},
                           {"array", array.name},
                           {"width", picture.picture.width},
                           {"height", picture.picture.height},
                           {"field_x", picture.field_x},
                           {"field_y", picture.field_y},
                           {"field_width", picture.field_width},
                           {"field_height", picture.field_height},
                           {"bar_x", picture.bar_x},
                           {"bar_y", picture.bar_y},
                           {"bar_width", picture.bar_width},
                           {"bar_height", picture.bar_height},
                           {"minimum", picture.minimum},
                           {"maximum", picture.maximum},
                           {"ticks", picture.ticks}});
    } catch (const Error& error) {
      failure = error.what();
    }
  }
  agree_everywhere(failure, mpi_, timeout_,
                   fmt::format("the picture of step {} written", field.step));
}

void FieldOutputs::add_to(nlohmann::json& results) const {
  if (vtk_) {
    nlohmann::json outputs = nlohmann::json::array();
    for (const outputs::CollectionEntry& entry : collection_) {
      outputs.push_back({{"time", entry.time}, {"file", entry.file}});
    }
    nlohmann::json arrays = nlohmann::json::array();
    for (const auto& [name, components] : arrays_) {
      arrays.push_back({{"name", name}, {"components", components}});
    }
    results["vtk"] = {
        {"directory", "vtk"},
        {"collection", name_ + ".pvd"},
        {"every", every_},
        {"precision", format_.precision == outputs::VtkPrecision::float32 ? "float32" : "float64"},
        {"compression", format_.compression == outputs::VtkCompression::zlib ? "zlib" : "none"},
        {"centring", centring_},
        {"arrays", std::move(arrays)},
        {"outputs", std::move(outputs)}};
  }
  if (png_) {
    results["png"] = {{"directory", "png"},
                      {"every", every_},
                      {"slice", picture_slice_},
                      {"pictures", pictures_}};
  }
}

}  // namespace haloflow::cases
