#include "exchange_simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace haloflow::testing {

DecompositionSpec Shape::spec() const {
  return {
      .dimensions = dimensions, .global_cells = cells, .process_grid = grid, .boundary = boundary};
}

std::string Shape::describe() const {
  const auto b = [&](int axis) {
    return boundary[axis] == Boundary::periodic ? "periodic" : "physical";
  };
  return fmt::format(
      "{}D cells {}x{}x{} over {}x{}x{} ranks, boundaries {}/{}/{}, {} stencil, ghost width "
      "{}, radius {}",
      dimensions, cells[0], cells[1], cells[2], grid[0], grid[1], grid[2], b(0), b(1), b(2),
      stencil == StencilShape::star ? "star" : "box", ghost_width, radius);
}

bool Shape::thick_enough() const {
  for (int axis = 0; axis < dimensions; ++axis) {
    const bool neighbours = grid[axis] > 1 || boundary[axis] == Boundary::periodic;
    if (neighbours && cells[axis] / grid[axis] < ghost_width) return false;
  }
  return true;
}

Box whole(const FieldLayout& layout) {
  return Box{.lo = {0, 0, 0}, .hi = layout.extent()};
}

std::vector<Shape> all_shapes() {
  const std::vector<std::pair<int, Index3>> grids{{1, {11, 1, 1}}, {1, {4, 1, 1}}, {2, {7, 5, 1}},
                                                  {2, {9, 6, 1}},  {2, {3, 8, 1}}, {3, {5, 4, 6}},
                                                  {3, {7, 5, 3}},  {3, {4, 4, 4}}};
  const std::vector<std::array<Boundary, 3>> boundaries{
      {Boundary::periodic, Boundary::periodic, Boundary::periodic},
      {Boundary::physical, Boundary::physical, Boundary::physical},
      {Boundary::periodic, Boundary::physical, Boundary::periodic},
      {Boundary::physical, Boundary::periodic, Boundary::physical}};
  const std::vector<std::pair<int, int>> widths{{1, 1}, {2, 1}, {2, 2}};
  std::vector<Shape> shapes;
  for (const auto& [dimensions, cells] : grids) {
    for (const int ranks : {1, 2, 3, 4, 6, 8}) {
      for (const Coord3 fixed : {Coord3{0, 0, 0}, Coord3{1, 0, 0}}) {
        if (fixed[0] == 1 && dimensions == 1) continue;
        const Coord3 grid = balanced_process_grid(ranks, dimensions, fixed);
        bool fits = true;
        for (int axis = 0; axis < 3; ++axis) fits = fits && grid[axis] <= cells[axis];
        if (!fits) continue;
        for (const auto& boundary : boundaries) {
          for (const auto stencil : {StencilShape::star, StencilShape::box}) {
            for (const auto& [ghost_width, radius] : widths) {
              shapes.push_back(
                  Shape{dimensions, cells, grid, boundary, stencil, ghost_width, radius});
            }
          }
        }
      }
    }
  }
  return shapes;
}

Mirror mirror_of(const Shape& shape, const CartesianDecomposition& grid, const FieldLayout& layout,
                 const Index3& cell) {
  const Box owned = layout.owned_box();
  const Index3 offset = grid.global_offset();
  Mirror mirror{.expected = true};
  int outside_axes = 0;
  for (int axis = 0; axis < 3; ++axis) {
    if (axis >= shape.dimensions) continue;  // the single owned layer
    if (cell[axis] < owned.lo[axis] || cell[axis] >= owned.hi[axis]) ++outside_axes;
    auto global = offset[axis] + cell[axis] - layout.ghost_width;
    const auto n = shape.cells[axis];
    if (global < 0 || global >= n) {
      if (shape.boundary[axis] == Boundary::physical) mirror.expected = false;
      global = (global + n) % n;
    }
    mirror.global[axis] = global;
  }
  if (shape.stencil == StencilShape::star && outside_axes > 1) mirror.expected = false;
  return mirror;
}

namespace {

constexpr std::int64_t unset = -1;
constexpr int fields = kSimulatedFields;

std::int64_t encode(const Shape& shape, int field, const Index3& global) {
  const auto& n = shape.cells;
  return 1 + global[0] + n[0] * (global[1] + n[1] * (global[2] + n[2] * field));
}

}  // namespace

std::string joined(const std::vector<std::string>& failures) {
  std::string text;
  for (const auto& failure : failures) text += "\n  " + failure;
  return text;
}

std::vector<std::string> simulate_exchange(const Shape& shape) {
  std::vector<std::string> failures;
  const auto fail = [&](std::string text) {
    if (failures.size() < 5) failures.push_back(std::move(text));
  };
  const int ranks = shape.ranks();
  const Stencil stencil{.shape = shape.stencil, .radius = shape.radius};
  std::vector<CartesianDecomposition> grids;
  std::vector<HaloPlan> plans;
  std::vector<std::vector<std::int64_t>> data(ranks);
  std::vector<std::vector<std::int64_t>> send(ranks);
  std::vector<std::vector<std::int64_t>> receive(ranks);
  for (int rank = 0; rank < ranks; ++rank) {
    grids.emplace_back(shape.spec(), ranks, rank);
    plans.push_back(make_halo_plan(grids.back(), stencil, shape.ghost_width, fields));
    const auto& layout = plans.back().layout;
    data[rank].assign(fields * layout.field_elements(), unset);
    for (int field = 0; field < fields; ++field) {
      for_each_cell(layout.owned_box(), [&](const Index3& cell) {
        const auto at = field * layout.field_elements() + layout.offset(cell[0], cell[1], cell[2]);
        data[rank][at] = encode(shape, field, mirror_of(shape, grids[rank], layout, cell).global);
      });
    }
    send[rank].assign(plans.back().send_elements, unset);
    receive[rank].assign(plans.back().receive_elements, unset);
  }

  // Pack: field 0's box, then field 1's, x fastest.
  for (int rank = 0; rank < ranks; ++rank) {
    const auto& layout = plans[rank].layout;
    for (const auto& message : plans[rank].messages) {
      std::int64_t next = message.send_offset;
      for (int field = 0; field < fields; ++field) {
        for_each_cell(message.send, [&](const Index3& cell) {
          send[rank][next++] = data[rank][field * layout.field_elements() +
                                          layout.offset(cell[0], cell[1], cell[2])];
        });
      }
      if (next != message.send_offset + message.elements) fail("packed size differs");
    }
  }

  // Deliver each message to the one receive of its peer that names the sender and its tag.
  std::map<std::pair<int, std::size_t>, int> deliveries;
  for (int rank = 0; rank < ranks; ++rank) {
    for (const auto& message : plans[rank].messages) {
      const auto& peer_messages = plans[message.peer].messages;
      int matches = 0;
      for (std::size_t index = 0; index < peer_messages.size(); ++index) {
        const auto& target = peer_messages[index];
        if (target.peer != rank || target.receive_tag != message.send_tag) continue;
        ++matches;
        ++deliveries[{message.peer, index}];
        if (target.elements != message.elements) {
          fail(fmt::format("rank {} sends {} elements with tag {}, rank {} expects {}", rank,
                           message.elements, message.send_tag, message.peer, target.elements));
          continue;
        }
        std::copy_n(send[rank].begin() + message.send_offset, message.elements,
                    receive[message.peer].begin() + target.receive_offset);
      }
      if (matches != 1) {
        fail(fmt::format("rank {}'s message with tag {} to rank {} matches {} receives", rank,
                         message.send_tag, message.peer, matches));
      }
    }
  }
  for (int rank = 0; rank < ranks; ++rank) {
    for (std::size_t index = 0; index < plans[rank].messages.size(); ++index) {
      if (deliveries[{rank, index}] != 1) {
        fail(fmt::format("rank {}'s receive #{} got {} messages", rank, index,
                         deliveries[{rank, index}]));
      }
    }
  }

  // Unpack, then check every ghost cell: the mirrored global value, or untouched.
  for (int rank = 0; rank < ranks; ++rank) {
    const auto& layout = plans[rank].layout;
    for (const auto& message : plans[rank].messages) {
      std::int64_t next = message.receive_offset;
      for (int field = 0; field < fields; ++field) {
        for_each_cell(message.receive, [&](const Index3& cell) {
          data[rank][field * layout.field_elements() + layout.offset(cell[0], cell[1], cell[2])] =
              receive[rank][next++];
        });
      }
    }
    const Box owned = layout.owned_box();
    for (int field = 0; field < fields; ++field) {
      for_each_cell(whole(layout), [&](const Index3& cell) {
        if (owned.contains(cell)) return;
        const auto mirror = mirror_of(shape, grids[rank], layout, cell);
        const auto expected = mirror.expected ? encode(shape, field, mirror.global) : unset;
        const auto got =
            data[rank][field * layout.field_elements() + layout.offset(cell[0], cell[1], cell[2])];
        if (got != expected) {
          fail(fmt::format("rank {} field {} ghost ({}, {}, {}) holds {}, expected {}", rank, field,
                           cell[0], cell[1], cell[2], got, expected));
        }
      });
    }
  }
  return failures;
}

}  // namespace haloflow::testing
