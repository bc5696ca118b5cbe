// Halo plans and the interior/boundary split, proven by exchanging encoded values between
// simulated ranks in one process (tests/support/exchange_simulator.hpp).

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "exchange_simulator.hpp"
#include "haloflow/cell_box.hpp"
#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"
#include "haloflow/halo.hpp"

using namespace haloflow;

namespace {

using testing::all_shapes;
using testing::for_each_cell;
using testing::joined;
using testing::mirror_of;
using testing::Shape;
using testing::simulate_exchange;
using testing::whole;
constexpr int fields = testing::kSimulatedFields;

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

TEST_CASE(
    "split_update cuts only the axes it is given; the interior reads ghosts across the others") {
  const FieldLayout layout{.owned = {6, 5, 4}, .ghost_width = 1, .dimensions = 3, .fields = 1};
  const Stencil star{.shape = StencilShape::star, .radius = 1};
  const Box owned = layout.owned_box();
  // Every axis: as split_owned_cells. None: the whole box, no slab.
  CHECK(split_update(owned, layout, star, {true, true, true}).boundary ==
        split_owned_cells(layout, star).boundary);
  const auto none = split_update(owned, layout, star, {false, false, false});
  CHECK(none.interior == owned);
  CHECK(none.boundary.empty());
  // x only: the two x slabs, full in y and z; the interior spans y and z.
  const auto x_only = split_update(owned, layout, star, {true, false, false});
  CHECK(x_only.interior == Box{{2, 1, 1}, {6, 6, 5}});
  CHECK(x_only.boundary == std::vector<Box>{Box{{1, 1, 1}, {2, 6, 5}}, Box{{6, 1, 1}, {7, 6, 5}}});
  // y and z: four slabs, the interior full along x.
  const auto yz = split_update(owned, layout, star, {false, true, true});
  CHECK(yz.interior == Box{{1, 2, 2}, {7, 5, 4}});
  CHECK(yz.boundary.size() == 4);
  // Each mask: interior and slabs tile the box, and no interior cell reads a ghost across a cut
  // axis (a box stencil, so diagonal ghosts too).
  const Stencil box_stencil{.shape = StencilShape::box, .radius = 1};
  for (int mask = 0; mask < 8; ++mask) {
    const std::array<bool, 3> axes{(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
    INFO("axes mask " << mask);
    const auto split = split_update(owned, layout, box_stencil, axes);
    std::int64_t covered = split.interior.volume();
    for (const Box& slab : split.boundary) covered += slab.volume();
    CHECK(covered == owned.volume());
    int reads_cut_ghost = 0;
    for_each_cell(split.interior, [&](const Index3& cell) {
      for (int dz = -1; dz <= 1; ++dz) {
        for (int dy = -1; dy <= 1; ++dy) {
          for (int dx = -1; dx <= 1; ++dx) {
            const Index3 read{cell[0] + dx, cell[1] + dy, cell[2] + dz};
            for (std::size_t axis = 0; axis < 3; ++axis) {
              const bool outside = read[axis] < owned.lo[axis] || read[axis] >= owned.hi[axis];
              if (outside && axes[axis]) ++reads_cut_ghost;
            }
          }
        }
      }
    });
    CHECK(reads_cut_ghost == 0);
  }
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

namespace {

std::vector<Coord3> directions_of(const HaloPlan& plan) {
  std::vector<Coord3> directions;
  for (const auto& message : plan.messages) directions.push_back(message.direction);
  return directions;
}

}  // namespace

TEST_CASE("a stencil that reads along some axes only exchanges only their directions") {
  // 2D, periodic, 2 x 2 ranks: an x sweep sends the two x faces, a y sweep the two y faces.
  const DecompositionSpec flat{.dimensions = 2,
                               .global_cells = {8, 6, 1},
                               .process_grid = {2, 2, 1},
                               .boundary = {Boundary::periodic, Boundary::periodic}};
  const CartesianDecomposition grid2(flat, 4, 0);
  const Stencil along_x{.shape = StencilShape::star, .radius = 2, .axes = {1, 0, 0}};
  const auto x_plan = make_halo_plan(grid2, along_x, 2, 3);
  CHECK(directions_of(x_plan) == std::vector<Coord3>{{-1, 0, 0}, {1, 0, 0}});
  REQUIRE(x_plan.messages.size() == 2);
  CHECK(x_plan.messages[1].send == Box{{4, 2, 0}, {6, 5, 1}});
  CHECK(x_plan.messages[1].receive == Box{{6, 2, 0}, {8, 5, 1}});
  CHECK(x_plan.send_elements == 3 * 2 * (2 * 3));
  // A box stencil reading along y alone has no diagonals either.
  const auto y_plan = make_halo_plan(grid2, {.shape = StencilShape::box, .axes = {0, 1, 0}}, 1, 1);
  CHECK(directions_of(y_plan) == std::vector<Coord3>{{0, -1, 0}, {0, 1, 0}});
  // Designated initialisers without axes keep meaning every axis.
  CHECK(make_halo_plan(grid2, {StencilShape::star, 2}, 2, 1).messages.size() == 4);

  // 3D, periodic, 2 x 2 x 2 ranks: a z sweep sends only the z faces, even with a box shape.
  const DecompositionSpec cube{
      .dimensions = 3,
      .global_cells = {6, 6, 8},
      .process_grid = {2, 2, 2},
      .boundary = {Boundary::periodic, Boundary::periodic, Boundary::periodic}};
  const CartesianDecomposition grid3(cube, 8, 0);
  const auto z_plan = make_halo_plan(grid3, {.shape = StencilShape::box, .axes = {0, 0, 1}}, 1, 2);
  CHECK(directions_of(z_plan) == std::vector<Coord3>{{0, 0, -1}, {0, 0, 1}});
  CHECK(z_plan.messages[0].receive == Box{{1, 1, 0}, {4, 4, 1}});
  // x and z but not y: the x and z faces and the four x-z edges.
  const auto xz_plan = make_halo_plan(grid3, {.shape = StencilShape::box, .axes = {1, 0, 1}}, 1, 1);
  CHECK(directions_of(xz_plan) == std::vector<Coord3>{{-1, 0, -1},
                                                      {0, 0, -1},
                                                      {1, 0, -1},
                                                      {-1, 0, 0},
                                                      {1, 0, 0},
                                                      {-1, 0, 1},
                                                      {0, 0, 1},
                                                      {1, 0, 1}});
}

TEST_CASE("the split of a stencil that reads along some axes only cuts only those axes") {
  const FieldLayout flat{.owned = {8, 6, 1}, .ghost_width = 2, .dimensions = 2};
  const auto x_split = split_owned_cells(flat, {.radius = 2, .axes = {1, 0, 0}});
  CHECK(x_split.interior == Box{{4, 2, 0}, {8, 8, 1}});
  REQUIRE(x_split.boundary.size() == 2);
  CHECK(x_split.boundary[0] == Box{{2, 2, 0}, {4, 8, 1}});
  CHECK(x_split.boundary[1] == Box{{8, 2, 0}, {10, 8, 1}});
  const FieldLayout cube{.owned = {4, 5, 6}, .ghost_width = 1, .dimensions = 3};
  const auto z_split = split_owned_cells(cube, {.shape = StencilShape::box, .axes = {0, 0, 1}});
  CHECK(z_split.interior == Box{{1, 1, 2}, {5, 6, 6}});
  REQUIRE(z_split.boundary.size() == 2);
  CHECK(z_split.boundary[0] == Box{{1, 1, 1}, {5, 6, 2}});
  CHECK(z_split.boundary[1] == Box{{1, 1, 6}, {5, 6, 7}});
}

TEST_CASE("stencil axes are refused unless 0 or 1 with a read active axis, naming the value") {
  const DecompositionSpec spec{.dimensions = 2,
                               .global_cells = {9, 7, 1},
                               .process_grid = {2, 1, 1},
                               .boundary = {Boundary::periodic, Boundary::periodic}};
  CHECK(plan_message(spec, 2, 0, {.radius = 1, .axes = {0, 0, 0}}, 1) ==
        "Stencil.axes: {0, 0, 0} is not allowed; expected 0 or 1 per axis and 1 on at least one "
        "active axis (the first 2)");
  // z is not an active axis of a 2D grid.
  CHECK(plan_message(spec, 2, 0, {.radius = 1, .axes = {0, 0, 1}}, 1) ==
        "Stencil.axes: {0, 0, 1} is not allowed; expected 0 or 1 per axis and 1 on at least one "
        "active axis (the first 2)");
  CHECK(plan_message(spec, 2, 0, {.radius = 1, .axes = {2, 1, 0}}, 1) ==
        "Stencil.axes: {2, 1, 0} is not allowed; expected 0 or 1 per axis and 1 on at least one "
        "active axis (the first 2)");
  CHECK(plan_message(spec, 2, 0, {.radius = 1, .axes = {1, -1, 1}}, 1) ==
        "Stencil.axes: {1, -1, 1} is not allowed; expected 0 or 1 per axis and 1 on at least one "
        "active axis (the first 2)");
  const FieldLayout layout{.owned = {4, 4, 1}, .ghost_width = 1, .dimensions = 2};
  CHECK_THROWS_WITH_AS((void)split_owned_cells(layout, {.axes = {0, 0, 0}}),
                       doctest::Contains("Stencil.axes: {0, 0, 0} is not allowed"), Error);
  // The fewest-cells check looks at read axes only: 7 cells over 4 ranks along y is too thin
  // for two ghost layers, unless the stencil reads along x alone.
  const DecompositionSpec thin_y{.dimensions = 2,
                                 .global_cells = {9, 7, 1},
                                 .process_grid = {2, 4, 1},
                                 .boundary = {Boundary::periodic, Boundary::periodic}};
  CHECK(plan_message(thin_y, 8, 7, {.radius = 2, .axes = {1, 0, 0}}, 2) == "valid");
  CHECK(plan_message(thin_y, 8, 7, {.radius = 2, .axes = {0, 1, 0}}, 2) ==
        "ghost_width: 2 is not allowed; expected at most 1, the fewest cells a rank owns on axis 1 "
        "(global_cells[1] = 7 over process_grid[1] = 4), which has neighbours");
}

TEST_CASE("walls: one per face without a neighbour, in direction order, ghosts without corners") {
  // 2D, x periodic over 2 ranks, y walled and not split: every rank has the two y walls.
  const DecompositionSpec channel{.dimensions = 2,
                                  .global_cells = {8, 5, 1},
                                  .process_grid = {2, 1, 1},
                                  .boundary = {Boundary::periodic, Boundary::physical}};
  const CartesianDecomposition grid(channel, 2, 1);
  const auto plan = make_halo_plan(grid, {.radius = 2, .axes = {1, 0, 0}}, 2, 1);
  REQUIRE(plan.walls.size() == 2);
  CHECK(plan.walls[0].direction == Coord3{0, -1, 0});
  CHECK(plan.walls[0].ghosts == Box{{2, 0, 0}, {6, 2, 1}});
  CHECK(plan.walls[1].direction == Coord3{0, 1, 0});
  CHECK(plan.walls[1].ghosts == Box{{2, 7, 0}, {6, 9, 1}});
  // 3D, walled everywhere, 2 x 1 x 2 ranks: rank 1 (x high, z low) has walls -z, -y, +x, +y.
  const DecompositionSpec box{
      .dimensions = 3,
      .global_cells = {6, 3, 4},
      .process_grid = {2, 1, 2},
      .boundary = {Boundary::physical, Boundary::physical, Boundary::physical}};
  const CartesianDecomposition corner(box, 4, 1);
  const auto walled = make_halo_plan(corner, {.shape = StencilShape::box}, 1, 1);
  std::vector<Coord3> directions;
  for (const auto& wall : walled.walls) directions.push_back(wall.direction);
  CHECK(directions == std::vector<Coord3>{{0, 0, -1}, {0, -1, 0}, {1, 0, 0}, {0, 1, 0}});
  CHECK(walled.walls[0].ghosts == Box{{1, 1, 0}, {4, 4, 1}});
  CHECK(walled.walls[2].ghosts == Box{{4, 1, 1}, {5, 4, 3}});
  // Fully periodic: no walls.
  const DecompositionSpec loop{
      .dimensions = 2, .global_cells = {4, 4, 1}, .process_grid = {1, 1, 1}};
  CHECK(make_halo_plan(CartesianDecomposition(loop, 1, 0), {}, 1, 1).walls.empty());
}
