// Halo plans and the interior/boundary split, proven by exchanging encoded values between
// simulated ranks in one process.

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"
#include "haloflow/halo.hpp"

using namespace haloflow;

namespace {

struct Shape {
  int dimensions = 3;
  Index3 cells{1, 1, 1};
  Coord3 grid{1, 1, 1};
  std::array<Boundary, 3> boundary{Boundary::periodic, Boundary::periodic, Boundary::periodic};
  StencilShape stencil = StencilShape::star;
  int ghost_width = 1;
  int radius = 1;

  [[nodiscard]] int ranks() const { return grid[0] * grid[1] * grid[2]; }
  [[nodiscard]] DecompositionSpec spec() const {
    return {.dimensions = dimensions,
            .global_cells = cells,
            .process_grid = grid,
            .boundary = boundary};
  }
  [[nodiscard]] std::string describe() const {
    const auto b = [&](int axis) {
      return boundary[axis] == Boundary::periodic ? "periodic" : "physical";
    };
    return fmt::format(
        "{}D cells {}x{}x{} over {}x{}x{} ranks, boundaries {}/{}/{}, {} stencil, ghost width "
        "{}, radius {}",
        dimensions, cells[0], cells[1], cells[2], grid[0], grid[1], grid[2], b(0), b(1), b(2),
        stencil == StencilShape::star ? "star" : "box", ghost_width, radius);
  }
  //! Whether every rank owns at least ghost_width cells on every axis that has neighbours.
  [[nodiscard]] bool thick_enough() const {
    for (int axis = 0; axis < dimensions; ++axis) {
      const bool neighbours = grid[axis] > 1 || boundary[axis] == Boundary::periodic;
      if (neighbours && cells[axis] / grid[axis] < ghost_width) return false;
    }
    return true;
  }
};

template <class Visit>
void for_each_cell(const Box& box, Visit&& visit) {
  for (auto k = box.lo[2]; k < box.hi[2]; ++k) {
    for (auto j = box.lo[1]; j < box.hi[1]; ++j) {
      for (auto i = box.lo[0]; i < box.hi[0]; ++i) visit(Index3{i, j, k});
    }
  }
}

Box whole(const FieldLayout& layout) {
  return Box{.lo = {0, 0, 0}, .hi = layout.extent()};
}

// Every shape the exchange and coverage tests run over: 1D, 2D and 3D, uneven splits, 1 to 8
// ranks, every boundary mix, star and box stencils, ghost widths 1 and 2, radii 1 and 2.
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

// What a ghost cell mirrors: the global cell (wrapped on periodic axes), or nothing when it lies
// beyond a physical boundary or (for star stencils) off the faces.
struct Mirror {
  bool expected = false;
  Index3 global{0, 0, 0};
};

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

std::int64_t encode(const Shape& shape, int field, const Index3& global) {
  const auto& n = shape.cells;
  return 1 + global[0] + n[0] * (global[1] + n[1] * (global[2] + n[2] * field));
}

// The first failures of one shape, one per line, for INFO.
std::string joined(const std::vector<std::string>& failures) {
  std::string text;
  for (const auto& failure : failures) text += "\n  " + failure;
  return text;
}

constexpr std::int64_t unset = -1;
constexpr int fields = 2;

// Runs one exchange over all ranks of `shape` in this process and returns what went wrong.
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

// Checks one plan's own bookkeeping: boxes in the right places, matching volumes, contiguous
// offsets, tags, and each ghost cell received as often as it should be.
std::vector<std::string> check_plan(const Shape& shape, const CartesianDecomposition& grid,
                                    const HaloPlan& plan) {
  std::vector<std::string> failures;
  const auto fail = [&](std::string text) {
    if (failures.size() < 5) failures.push_back(std::move(text));
  };
  const auto& layout = plan.layout;
  const Box owned = layout.owned_box();
  std::int64_t send_total = 0;
  std::int64_t receive_total = 0;
  int previous_code = -1;
  std::vector<int> coverage(layout.field_elements(), 0);
  for (const auto& message : plan.messages) {
    const auto code = direction_code(message.direction);
    if (code <= previous_code) fail("messages are not in increasing direction order");
    previous_code = code;
    if (message.send_tag != code)
      fail(fmt::format("send tag {} for code {}", message.send_tag, code));
    const Coord3 opposite{-message.direction[0], -message.direction[1], -message.direction[2]};
    if (message.receive_tag != direction_code(opposite)) fail("receive tag is not the opposite");
    if (grid.neighbour(message.direction) != message.peer) fail("peer is not the neighbour");
    if (message.send.volume() != message.receive.volume()) fail("send and receive volumes differ");
    if (message.elements != fields * message.send.volume()) fail("elements != fields * volume");
    if (message.send_offset != send_total || message.receive_offset != receive_total) {
      fail("offsets are not contiguous");
    }
    send_total += message.elements;
    receive_total += message.elements;
    for_each_cell(message.send, [&](const Index3& cell) {
      if (!owned.contains(cell)) fail("a send box leaves the owned cells");
    });
    for_each_cell(message.receive, [&](const Index3& cell) {
      if (owned.contains(cell) || !whole(layout).contains(cell)) {
        fail("a receive box is not in the ghost shell");
        return;
      }
      ++coverage[layout.offset(cell[0], cell[1], cell[2])];
    });
  }
  if (plan.send_elements != send_total || plan.receive_elements != receive_total) {
    fail("totals differ from the sum of the messages");
  }
  for_each_cell(whole(layout), [&](const Index3& cell) {
    if (owned.contains(cell)) return;
    const int expected = mirror_of(shape, grid, layout, cell).expected ? 1 : 0;
    const int got = coverage[layout.offset(cell[0], cell[1], cell[2])];
    if (got != expected) {
      fail(fmt::format("ghost ({}, {}, {}) is received {} times, expected {}", cell[0], cell[1],
                       cell[2], got, expected));
    }
  });
  return failures;
}

std::string plan_message(const DecompositionSpec& spec, int ranks, int rank, Stencil stencil,
                         int ghost_width, int field_count = 1) {
  try {
    (void)make_halo_plan(CartesianDecomposition(spec, ranks, rank), stencil, ghost_width,
                         field_count);
  } catch (const Error& error) {
    return error.what();
  }
  return "valid";
}

std::size_t message_count(int dimensions, Coord3 grid, Boundary boundary, StencilShape shape,
                          int rank = 0) {
  const DecompositionSpec spec{
      .dimensions = dimensions,
      .global_cells = {dimensions >= 1 ? 8 : 1, dimensions >= 2 ? 8 : 1, dimensions >= 3 ? 8 : 1},
      .process_grid = grid,
      .boundary = {boundary, boundary, boundary}};
  const CartesianDecomposition decomposition(spec, grid[0] * grid[1] * grid[2], rank);
  return make_halo_plan(decomposition, {.shape = shape, .radius = 1}, 1, 1).messages.size();
}

}  // namespace

TEST_CASE("field layouts add ghosts on active axes only, x fastest") {
  const FieldLayout flat{.owned = {5, 4, 1}, .ghost_width = 2, .dimensions = 2, .fields = 3};
  CHECK(flat.extent() == Index3{9, 8, 1});
  CHECK(flat.field_elements() == 72);
  CHECK(flat.offset(1, 0, 0) == 1);
  CHECK(flat.offset(0, 1, 0) == 9);
  CHECK(flat.owned_box() == Box{{2, 2, 0}, {7, 6, 1}});
  const FieldLayout cube{.owned = {3, 4, 5}, .ghost_width = 1, .dimensions = 3, .fields = 1};
  CHECK(cube.extent() == Index3{5, 6, 7});
  CHECK(cube.offset(1, 2, 3) == 1 + 5 * (2 + 6 * 3));
  CHECK(cube.owned_box() == Box{{1, 1, 1}, {4, 5, 6}});
}

TEST_CASE("message counts follow the stencil shape and the boundaries") {
  CHECK(message_count(2, {2, 2, 1}, Boundary::periodic, StencilShape::star) == 4);
  CHECK(message_count(2, {2, 2, 1}, Boundary::periodic, StencilShape::box) == 8);
  CHECK(message_count(3, {2, 2, 2}, Boundary::periodic, StencilShape::box) == 26);
  CHECK(message_count(3, {2, 2, 2}, Boundary::periodic, StencilShape::star) == 6);
  CHECK(message_count(1, {2, 1, 1}, Boundary::periodic, StencilShape::box) == 2);
  CHECK(message_count(3, {1, 1, 1}, Boundary::periodic, StencilShape::box) == 26);
  // A corner rank of a walled 2x2(x2) grid has neighbours on one side of each axis only.
  CHECK(message_count(2, {2, 2, 1}, Boundary::physical, StencilShape::star) == 2);
  CHECK(message_count(2, {2, 2, 1}, Boundary::physical, StencilShape::box) == 3);
  CHECK(message_count(3, {2, 2, 2}, Boundary::physical, StencilShape::box) == 7);
  CHECK(message_count(3, {2, 2, 2}, Boundary::physical, StencilShape::star) == 3);
  // The middle rank of a walled 3x3 grid has all eight.
  CHECK(message_count(2, {3, 3, 1}, Boundary::physical, StencilShape::box, 4) == 8);
  CHECK(message_count(3, {1, 1, 1}, Boundary::physical, StencilShape::box) == 0);
}

TEST_CASE("a face message sends the last g owned layers and fills the g ghost layers beyond") {
  const DecompositionSpec spec{.dimensions = 2,
                               .global_cells = {10, 8, 1},
                               .process_grid = {2, 2, 1},
                               .boundary = {Boundary::periodic, Boundary::periodic}};
  const CartesianDecomposition grid(spec, 4, 0);
  const auto plan = make_halo_plan(grid, {.shape = StencilShape::box, .radius = 1}, 2, 3);
  REQUIRE(plan.messages.size() == 8);
  CHECK(plan.layout.owned == Index3{5, 4, 1});
  // Order: (-1,-1), (0,-1), (1,-1), (-1,0), (1,0), (-1,1), (0,1), (1,1).
  const auto& east = plan.messages[4];
  CHECK(east.direction == Coord3{1, 0, 0});
  CHECK(east.peer == 1);
  CHECK(east.send == Box{{5, 2, 0}, {7, 6, 1}});
  CHECK(east.receive == Box{{7, 2, 0}, {9, 6, 1}});
  CHECK(east.elements == 3 * 8);
  CHECK(east.send_tag == 14);
  CHECK(east.receive_tag == 12);
  const auto& south_west = plan.messages[0];
  CHECK(south_west.direction == Coord3{-1, -1, 0});
  CHECK(south_west.peer == 3);
  CHECK(south_west.send == Box{{2, 2, 0}, {4, 4, 1}});
  CHECK(south_west.receive == Box{{0, 0, 0}, {2, 2, 1}});
  CHECK(south_west.send_offset == 0);
  CHECK(plan.messages[1].send_offset == 3 * 4);
  CHECK(plan.send_elements == 3 * (4 * 4 + 2 * 2 * 5 + 2 * 2 * 4));
  CHECK(plan.receive_elements == plan.send_elements);
}

TEST_CASE("plan validation names the field, the value and what is allowed") {
  const DecompositionSpec spec{.dimensions = 2,
                               .global_cells = {9, 7, 1},
                               .process_grid = {2, 4, 1},
                               .boundary = {Boundary::periodic, Boundary::periodic}};
  CHECK(plan_message(spec, 8, 0, {.radius = 1}, 1) == "valid");
  CHECK(plan_message(spec, 8, 0, {.radius = 0}, 1) ==
        "Stencil.radius: 0 is not allowed; expected at least 1");
  CHECK(plan_message(spec, 8, 0, {.radius = 2}, 1) ==
        "ghost_width: 1 is not allowed; expected at least Stencil.radius (2)");
  CHECK(plan_message(spec, 8, 0, {.radius = 1}, 1, 0) ==
        "fields: 0 is not allowed; expected at least 1");
  // 7 cells over 4 ranks: the last rank owns 1, so two ghost layers would reach past it. Every
  // rank refuses, including rank 0, which owns 2.
  const auto thin =
      "ghost_width: 2 is not allowed; expected at most 1, the fewest cells a rank owns on axis 1 "
      "(global_cells[1] = 7 over process_grid[1] = 4), which has neighbours";
  CHECK(plan_message(spec, 8, 0, {.radius = 1}, 2) == thin);
  CHECK(plan_message(spec, 8, 7, {.radius = 1}, 2) == thin);
  // One rank between physical walls has no neighbour on that axis: a thin axis is fine.
  const DecompositionSpec walled{.dimensions = 2,
                                 .global_cells = {9, 1, 1},
                                 .process_grid = {1, 1, 1},
                                 .boundary = {Boundary::physical, Boundary::physical}};
  CHECK(plan_message(walled, 1, 0, {.radius = 2}, 2) == "valid");
  const DecompositionSpec looped{.dimensions = 2,
                                 .global_cells = {9, 1, 1},
                                 .process_grid = {1, 1, 1},
                                 .boundary = {Boundary::physical, Boundary::periodic}};
  CHECK(plan_message(looped, 1, 0, {.radius = 1}, 2) ==
        "ghost_width: 2 is not allowed; expected at most 1, the fewest cells a rank owns on axis "
        "1 (global_cells[1] = 1 over process_grid[1] = 1), which has neighbours");
}

TEST_CASE("each ghost cell with a neighbour is received exactly once, with matching boxes") {
  int plans_checked = 0;
  for (const auto& shape : all_shapes()) {
    if (!shape.thick_enough()) continue;
    for (int rank = 0; rank < shape.ranks(); ++rank) {
      const CartesianDecomposition grid(shape.spec(), shape.ranks(), rank);
      const auto plan = make_halo_plan(grid, {.shape = shape.stencil, .radius = shape.radius},
                                       shape.ghost_width, fields);
      const auto failures = check_plan(shape, grid, plan);
      INFO(fmt::format("{}, rank {}", shape.describe(), rank));
      INFO(joined(failures));
      CHECK(failures.empty());
      ++plans_checked;
    }
  }
  CHECK(plans_checked > 1000);
}

TEST_CASE("a simulated exchange fills every ghost cell with the global cell it mirrors") {
  int exchanges = 0;
  int refused = 0;
  for (const auto& shape : all_shapes()) {
    if (!shape.thick_enough()) {
      // Too thin for the ghost width: every rank refuses the plan.
      const CartesianDecomposition grid(shape.spec(), shape.ranks(), 0);
      CHECK_THROWS_AS((void)make_halo_plan(grid, {.shape = shape.stencil, .radius = shape.radius},
                                           shape.ghost_width, fields),
                      Error);
      ++refused;
      continue;
    }
    const auto failures = simulate_exchange(shape);
    INFO(shape.describe());
    INFO(joined(failures));
    CHECK(failures.empty());
    ++exchanges;
  }
  CHECK(exchanges > 500);
  CHECK(refused > 0);
}

TEST_CASE("the split of owned cells: interior and slabs") {
  const FieldLayout layout{.owned = {6, 5, 4}, .ghost_width = 1, .dimensions = 3, .fields = 1};
  const auto split = split_owned_cells(layout, {.shape = StencilShape::box, .radius = 1});
  CHECK(split.interior == Box{{2, 2, 2}, {6, 5, 4}});
  CHECK(split.boundary == std::vector<Box>{
                              Box{{1, 1, 1}, {2, 6, 5}},  // x low, full y and z
                              Box{{6, 1, 1}, {7, 6, 5}},  // x high
                              Box{{2, 1, 1}, {6, 2, 5}},  // y low, interior x
                              Box{{2, 5, 1}, {6, 6, 5}},  // y high
                              Box{{2, 2, 1}, {6, 5, 2}},  // z low, interior x and y
                              Box{{2, 2, 4}, {6, 5, 5}},  // z high
                          });
  // Thinner than 2r on x: no interior, and the x slabs take everything.
  const FieldLayout thin{.owned = {3, 8, 1}, .ghost_width = 2, .dimensions = 2, .fields = 1};
  const auto thin_split = split_owned_cells(thin, {.shape = StencilShape::star, .radius = 2});
  CHECK(thin_split.interior.empty());
  CHECK(thin_split.boundary ==
        std::vector<Box>{Box{{2, 2, 0}, {4, 10, 1}}, Box{{4, 2, 0}, {5, 10, 1}}});
  CHECK_THROWS_AS((void)split_owned_cells(thin, {.radius = 3}), Error);
  CHECK_THROWS_AS((void)split_owned_cells(thin, {.radius = 0}), Error);
}

TEST_CASE("interior and boundary tile the owned cells; only the boundary reads ghosts") {
  int layouts = 0;
  for (int dimensions = 1; dimensions <= 3; ++dimensions) {
    for (int ghost_width = 1; ghost_width <= 3; ++ghost_width) {
      for (int radius = 1; radius <= ghost_width; ++radius) {
        for (const auto shape : {StencilShape::star, StencilShape::box}) {
          for (const Index3 size : {Index3{1, 1, 1}, Index3{2, 3, 1}, Index3{4, 4, 4},
                                    Index3{7, 2, 5}, Index3{5, 6, 3}, Index3{3, 7, 8}}) {
            Index3 owned = size;
            for (int axis = dimensions; axis < 3; ++axis) owned[axis] = 1;
            const FieldLayout layout{
                .owned = owned, .ghost_width = ghost_width, .dimensions = dimensions};
            const Stencil stencil{.shape = shape, .radius = radius};
            const auto split = split_owned_cells(layout, stencil);
            INFO(fmt::format("{}D owned {}x{}x{}, ghost width {}, radius {}, {}", dimensions,
                             owned[0], owned[1], owned[2], ghost_width, radius,
                             shape == StencilShape::star ? "star" : "box"));
            ++layouts;
            const Box box = layout.owned_box();
            CHECK(split.boundary.size() <= static_cast<std::size_t>(2 * dimensions));
            for (int axis = 0; axis < 3; ++axis)
              CHECK(split.interior.hi[axis] >= split.interior.lo[axis]);
            // Coverage of every cell of the allocation by interior + boundary boxes.
            std::vector<int> coverage(layout.field_elements(), 0);
            std::vector<Box> parts = split.boundary;
            for (const auto& part : split.boundary) CHECK_FALSE(part.empty());
            parts.push_back(split.interior);
            for (const auto& part : parts) {
              for_each_cell(part, [&](const Index3& cell) {
                ++coverage[layout.offset(cell[0], cell[1], cell[2])];
              });
            }
            int wrong = 0;
            for_each_cell(whole(layout), [&](const Index3& cell) {
              const int expected = box.contains(cell) ? 1 : 0;
              if (coverage[layout.offset(cell[0], cell[1], cell[2])] != expected) ++wrong;
            });
            CHECK(wrong == 0);
            // Stencil reads: the interior never leaves the owned box, each boundary cell does.
            const auto reads_ghost = [&](const Index3& cell) {
              const int reach_y = dimensions >= 2 ? radius : 0;
              const int reach_z = dimensions >= 3 ? radius : 0;
              for (int dz = -reach_z; dz <= reach_z; ++dz) {
                for (int dy = -reach_y; dy <= reach_y; ++dy) {
                  for (int dx = -radius; dx <= radius; ++dx) {
                    const int moving = (dx != 0) + (dy != 0) + (dz != 0);
                    if (shape == StencilShape::star && moving > 1) continue;
                    if (!box.contains({cell[0] + dx, cell[1] + dy, cell[2] + dz})) return true;
                  }
                }
              }
              return false;
            };
            int interior_reading_ghosts = 0;
            for_each_cell(split.interior, [&](const Index3& cell) {
              if (reads_ghost(cell)) ++interior_reading_ghosts;
            });
            CHECK(interior_reading_ghosts == 0);
            int boundary_not_reading_ghosts = 0;
            for (const auto& part : split.boundary) {
              for_each_cell(part, [&](const Index3& cell) {
                if (!reads_ghost(cell)) ++boundary_not_reading_ghosts;
              });
            }
            CHECK(boundary_not_reading_ghosts == 0);
          }
        }
      }
    }
  }
  CHECK(layouts == 3 * 6 * 2 * 6);
}
