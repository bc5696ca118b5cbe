#include "point_pieces.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::outputs {
namespace {

using models::Centring;

std::int64_t wrapped(std::int64_t point, std::int64_t samples) {
  return point >= samples ? point - samples : point;  // only the closing layer wraps
}

// The points of `to`'s piece along `axis` whose samples `from` owns.
std::vector<std::int64_t> axis_points(const SampleGrid& grid, const Extent& piece,
                                      const SampleBox& from, std::size_t axis) {
  std::vector<std::int64_t> points;
  for (std::int64_t p = piece[2 * axis]; p <= piece[2 * axis + 1]; ++p) {
    const std::int64_t sample = wrapped(p, grid.global_samples[axis]);
    if (sample >= from.offset[axis] && sample < from.offset[axis] + from.samples[axis]) {
      points.push_back(p);
    }
  }
  return points;
}

}  // namespace

SampleGrid sample_grid(const models::OwnedField& field) {
  return {.global_samples = field.global_samples,
          .periodic = field.periodic,
          .dimensions = field.dimensions,
          .centring = field.centring};
}

SampleBox sample_box(const models::OwnedField& field) {
  return {.offset = field.offset, .samples = field.samples};
}

Extent whole_extent(const SampleGrid& grid) {
  Extent e{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const std::int64_t n = grid.global_samples[axis];
    if (static_cast<int>(axis) >= grid.dimensions) continue;  // a 2D field's z: [0, 0]
    e[2 * axis + 1] = grid.centring == Centring::cells ? n : (grid.periodic[axis] ? n : n - 1);
  }
  return e;
}

Extent piece_extent(const SampleGrid& grid, const SampleBox& box) {
  const Extent whole = whole_extent(grid);
  Extent e{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (static_cast<int>(axis) >= grid.dimensions) continue;
    e[2 * axis] = box.offset[axis];
    // Cells: one point more than cells; points: the next layer, where the grid has one.
    e[2 * axis + 1] = std::min(box.offset[axis] + box.samples[axis], whole[2 * axis + 1]);
  }
  return e;
}

std::vector<SharedPoint> points_shared_with(const SampleGrid& grid, const SampleBox& from,
                                            const SampleBox& to) {
  std::vector<SharedPoint> shared;
  if (grid.centring != Centring::points) return shared;
  const Extent piece = piece_extent(grid, to);
  std::array<std::vector<std::int64_t>, 3> candidates;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    candidates[axis] = axis_points(grid, piece, from, axis);
    if (candidates[axis].empty()) return shared;
  }
  const auto owned_by_to = [&](std::size_t axis, std::int64_t p) {
    return p < to.offset[axis] + to.samples[axis];
  };
  const std::int64_t nx = piece[1] - piece[0] + 1;
  const std::int64_t ny = piece[3] - piece[2] + 1;
  // The shell of the piece outside `to`'s box, split by the first axis on which a point lies
  // outside it, so that no point is listed twice and the owned interior is never walked.
  for (std::size_t outside = 0; outside < 3; ++outside) {
    std::array<std::vector<std::int64_t>, 3> lists;
    for (std::size_t axis = 0; axis < 3; ++axis) {
      for (const std::int64_t p : candidates[axis]) {
        const bool owned = owned_by_to(axis, p);
        if (axis < outside ? owned : (axis == outside ? !owned : true)) lists[axis].push_back(p);
      }
    }
    for (const std::int64_t z : lists[2]) {
      for (const std::int64_t y : lists[1]) {
        for (const std::int64_t x : lists[0]) {
          const std::int64_t sx = wrapped(x, grid.global_samples[0]) - from.offset[0];
          const std::int64_t sy = wrapped(y, grid.global_samples[1]) - from.offset[1];
          const std::int64_t sz = wrapped(z, grid.global_samples[2]) - from.offset[2];
          shared.push_back(
              {.piece_index = ((z - piece[4]) * ny + (y - piece[2])) * nx + (x - piece[0]),
               .source_index = (sz * from.samples[1] + sy) * from.samples[0] + sx});
        }
      }
    }
  }
  return shared;
}

Piece field_piece(const models::OwnedField& field, const BoundedCollectives& collectives) {
  MPI_Comm communicator = collectives.communicator();
  const SampleGrid grid = sample_grid(field);
  const SampleBox mine = sample_box(field);
  const std::int64_t owned = mine.samples[0] * mine.samples[1] * mine.samples[2];
  for (const models::FieldArray& array : field.arrays) {
    if (array.components < 1 ||
        array.values.size() != static_cast<std::size_t>(owned * array.components)) {
      throw Error(fmt::format(
          "field output: array {} holds {} values; {} samples of {} "
          "components need {}",
          array.name, array.values.size(), owned, array.components, owned * array.components));
    }
  }
  Piece piece{.extent = piece_extent(grid, mine), .values = {}};
  if (grid.centring == Centring::cells) {
    for (const models::FieldArray& array : field.arrays) piece.values.emplace_back(array.values);
    return piece;
  }
  int rank = 0;
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "the VTK pieces");
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "the VTK pieces");
  // Every rank's box, so that each can say what it sends whom and receives from whom.
  std::array<std::int64_t, 6> box{mine.offset[0],  mine.offset[1],  mine.offset[2],
                                  mine.samples[0], mine.samples[1], mine.samples[2]};
  std::vector<std::int64_t> boxes(static_cast<std::size_t>(6 * ranks));
  collectives.allgather(box.data(), 6, MPI_INT64_T, boxes.data(), "the VTK pieces' boxes");
  const auto box_of = [&](int r) {
    const auto at = static_cast<std::size_t>(6 * r);
    return SampleBox{.offset = {boxes[at], boxes[at + 1], boxes[at + 2]},
                     .samples = {boxes[at + 3], boxes[at + 4], boxes[at + 5]}};
  };
  int width = 0;  // doubles per point: every array's components
  for (const models::FieldArray& array : field.arrays) width += array.components;

  std::vector<int> send_counts(static_cast<std::size_t>(ranks));
  std::vector<int> receive_counts(static_cast<std::size_t>(ranks));
  std::vector<double> send;
  std::vector<std::vector<SharedPoint>> incoming(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const auto ru = static_cast<std::size_t>(r);
    const std::vector<SharedPoint> out = points_shared_with(grid, mine, box_of(r));
    for (const SharedPoint& point : out) {
      for (const models::FieldArray& array : field.arrays) {
        const auto at = static_cast<std::size_t>(point.source_index * array.components);
        send.insert(send.end(), array.values.begin() + static_cast<std::ptrdiff_t>(at),
                    array.values.begin() + static_cast<std::ptrdiff_t>(at + array.components));
      }
    }
    send_counts[ru] = static_cast<int>(out.size()) * width;
    incoming[ru] = points_shared_with(grid, box_of(r), mine);
    receive_counts[ru] = static_cast<int>(incoming[ru].size()) * width;
  }
  std::vector<int> send_at(static_cast<std::size_t>(ranks));
  std::vector<int> receive_at(static_cast<std::size_t>(ranks));
  std::exclusive_scan(send_counts.begin(), send_counts.end(), send_at.begin(), 0);
  std::exclusive_scan(receive_counts.begin(), receive_counts.end(), receive_at.begin(), 0);
  std::vector<double> received(static_cast<std::size_t>(receive_at.back() + receive_counts.back()));
  collectives.alltoallv(send.data(), send_counts.data(), send_at.data(), MPI_DOUBLE,
                        received.data(), receive_counts.data(), receive_at.data(),
                        "the VTK pieces' shared points");

  // The owned points first, then the shared ones where they go.
  const Extent& e = piece.extent;
  const std::int64_t nx = e[1] - e[0] + 1;
  const std::int64_t ny = e[3] - e[2] + 1;
  const std::int64_t points = extent_samples(e, Centring::points);
  for (const models::FieldArray& array : field.arrays) {
    std::vector<double> values(static_cast<std::size_t>(points * array.components));
    std::size_t next = 0;
    for (std::int64_t z = 0; z < mine.samples[2]; ++z) {
      for (std::int64_t y = 0; y < mine.samples[1]; ++y) {
        for (std::int64_t x = 0; x < mine.samples[0]; ++x) {
          const auto at = static_cast<std::size_t>(((z * ny + y) * nx + x) * array.components);
          for (int c = 0; c < array.components; ++c) values[at + c] = array.values[next++];
        }
      }
    }
    piece.shared.push_back(std::move(values));
  }
  std::size_t at = 0;
  for (const std::vector<SharedPoint>& from : incoming) {
    for (const SharedPoint& point : from) {
      for (std::size_t a = 0; a < field.arrays.size(); ++a) {
        const int components = field.arrays[a].components;
        for (int c = 0; c < components; ++c) {
          piece.shared[a][static_cast<std::size_t>(point.piece_index * components + c)] =
              received[at++];
        }
      }
    }
  }
  for (const std::vector<double>& values : piece.shared) piece.values.emplace_back(values);
  return piece;
}

}  // namespace haloflow::outputs
