// Wall nodes (haloflow/walls.hpp) on the host executor: every rule on small 2D and 3D fields of
// one rank, walls on z (y in 2D) with x periodic, each ghost cell checked exactly; and the
// refusals.

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/walls.hpp"

using namespace haloflow;

namespace {

constexpr double kUnset = -999.;

// One rank, x periodic, the last active axis walled: 2D walls on y, 3D walls on z.
HaloPlan walled_plan(int dimensions, int ghost_width) {
  DecompositionSpec spec{.dimensions = dimensions,
                         .global_cells = {5, 4, dimensions == 3 ? 3 : 1},
                         .process_grid = {1, 1, 1}};
  spec.boundary[static_cast<std::size_t>(dimensions - 1)] = Boundary::physical;
  return make_halo_plan(CartesianDecomposition(spec, 1, 0), {.radius = ghost_width}, ghost_width,
                        1);
}

// Owned cells hold 1000 f + 100 k + 10 j + i + 1 (never 0, so a negation shows); ghosts kUnset.
std::vector<double> initial(const FieldLayout& layout, int field) {
  std::vector<double> values(static_cast<std::size_t>(layout.field_elements()), kUnset);
  const Box owned = layout.owned_box();
  for (auto k = owned.lo[2]; k < owned.hi[2]; ++k) {
    for (auto j = owned.lo[1]; j < owned.hi[1]; ++j) {
      for (auto i = owned.lo[0]; i < owned.hi[0]; ++i) {
        values[static_cast<std::size_t>(layout.offset(i, j, k))] =
            1000. * field + 100. * static_cast<double>(k) + 10. * static_cast<double>(j) +
            static_cast<double>(i) + 1.;
      }
    }
  }
  return values;
}

// What a cell should hold after the wall node: owned cells and ghosts outside the walls (x
// ghosts, corners) unchanged; wall ghosts by the rule.
double expected(const HaloPlan& plan, const std::vector<double>& before, const FieldWall& rule,
                const Index3& cell) {
  const FieldLayout& layout = plan.layout;
  const auto at = [&](const Index3& c) {
    return before[static_cast<std::size_t>(layout.offset(c[0], c[1], c[2]))];
  };
  const Box owned = layout.owned_box();
  for (const WallFace& wall : plan.walls) {
    if (!wall.ghosts.contains(cell)) continue;
    const int axis = wall.direction[1] != 0 ? 1 : (wall.direction[2] != 0 ? 2 : 0);
    const bool low = wall.direction[axis] < 0;
    // Layer l from the wall, in the ghosts and in the owned cells.
    const std::int64_t l = low ? owned.lo[axis] - 1 - cell[axis] : cell[axis] - owned.hi[axis];
    Index3 nearest = cell;
    nearest[axis] = low ? owned.lo[axis] : owned.hi[axis] - 1;
    Index3 mirrored = cell;
    mirrored[axis] = low ? owned.lo[axis] + l : owned.hi[axis] - 1 - l;
    switch (rule.rule) {
      case WallRule::zero_gradient:
        return at(nearest);
      case WallRule::reflect:
        return at(mirrored);
      case WallRule::reflect_negated:
        return -at(mirrored);
      case WallRule::fixed:
        return rule.value;
    }
  }
  return at(cell);
}

const std::vector<FieldWall> kEveryRule{{WallRule::zero_gradient},
                                        {WallRule::reflect},
                                        {WallRule::reflect_negated},
                                        {.rule = WallRule::fixed, .value = 2.5}};

// Runs one wall node over fields 0..3, one rule each, and counts the cells that differ.
int wrong_cells(int dimensions, int ghost_width, const std::vector<FieldWall>& rules) {
  const HaloPlan plan = walled_plan(dimensions, ghost_width);
  std::vector<std::vector<double>> fields;
  std::vector<double*> pointers;
  for (int f = 0; f < 4; ++f) fields.push_back(initial(plan.layout, f));
  for (auto& field : fields) pointers.push_back(field.data());
  const auto before = fields;
  FramePlan frame_plan("walls");
  add_wall_node<double>(frame_plan, {.name = "walls"}, plan, pointers, rules);
  Frame frame(std::move(frame_plan), ExecutorKind::host);
  frame.run();
  int wrong = 0;
  const Index3 extent = plan.layout.extent();
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const FieldWall& rule = rules[rules.size() == 1 ? 0 : f];
    for (std::int64_t k = 0; k < extent[2]; ++k) {
      for (std::int64_t j = 0; j < extent[1]; ++j) {
        for (std::int64_t i = 0; i < extent[0]; ++i) {
          const double want = expected(plan, before[f], rule, {i, j, k});
          if (fields[f][static_cast<std::size_t>(plan.layout.offset(i, j, k))] != want) ++wrong;
        }
      }
    }
  }
  return wrong;
}

std::string refusal(const HaloPlan& plan, std::vector<double*> fields,
                    const std::vector<FieldWall>& rules, Coord3 axes = {1, 1, 1}) {
  FramePlan frame_plan("walls");
  try {
    add_wall_node<double>(frame_plan, {.name = "walls"}, plan, fields, rules, axes);
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("wall nodes fill the ghosts of every wall by each rule, 2D and 3D, one rank") {
  for (int dimensions = 2; dimensions <= 3; ++dimensions) {
    for (int ghost_width = 1; ghost_width <= 2; ++ghost_width) {
      INFO(dimensions, "D, ghost width ", ghost_width);
      CHECK(walled_plan(dimensions, ghost_width).walls.size() == 2);
      CHECK(wrong_cells(dimensions, ghost_width, kEveryRule) == 0);
      CHECK(wrong_cells(dimensions, ghost_width, {{WallRule::reflect_negated}}) == 0);
    }
  }
}

TEST_CASE("a wall node's ghost values, cell by cell, 2D with two ghost layers") {
  const HaloPlan plan = walled_plan(2, 2);
  const FieldLayout& layout = plan.layout;  // owned 5 x 4 at [2, 7) x [2, 6)
  std::vector<std::vector<double>> fields;
  for (int f = 0; f < 4; ++f) fields.push_back(initial(layout, f));
  std::vector<double*> pointers;
  for (auto& field : fields) pointers.push_back(field.data());
  FramePlan frame_plan("walls");
  add_wall_node<double>(frame_plan, {.name = "walls"}, plan, pointers, kEveryRule);
  Frame frame(std::move(frame_plan), ExecutorKind::host);
  frame.run();
  const auto cell = [&](int f, std::int64_t i, std::int64_t j) {
    return fields[static_cast<std::size_t>(f)][static_cast<std::size_t>(layout.offset(i, j, 0))];
  };
  // Column i = 3: owned rows j = 2..5 hold 10 j + 4 (+ 1000 f).
  CHECK(cell(0, 3, 1) == 24.);  // zero gradient: both layers = row 2
  CHECK(cell(0, 3, 0) == 24.);
  CHECK(cell(0, 3, 6) == 54.);  // and row 5 above
  CHECK(cell(0, 3, 7) == 54.);
  CHECK(cell(1, 3, 1) == 1024.);  // reflect: row 1 = row 2, row 0 = row 3
  CHECK(cell(1, 3, 0) == 1034.);
  CHECK(cell(1, 3, 6) == 1054.);  // row 6 = row 5, row 7 = row 4
  CHECK(cell(1, 3, 7) == 1044.);
  CHECK(cell(2, 3, 0) == -2034.);  // reflect, negated
  CHECK(cell(2, 3, 7) == -2044.);
  CHECK(cell(3, 3, 0) == 2.5);  // fixed
  CHECK(cell(3, 3, 7) == 2.5);
  CHECK(cell(0, 1, 0) == kUnset);  // a corner is not a wall ghost
  CHECK(cell(0, 1, 3) == kUnset);  // nor an x ghost (periodic: the exchange fills it)
}

TEST_CASE("wall nodes along given axes only; a rank without walls gets an empty node") {
  const HaloPlan plan = walled_plan(2, 1);
  std::vector<double> field = initial(plan.layout, 0);
  std::vector<double*> pointers{field.data()};
  FramePlan frame_plan("walls");
  add_wall_node<double>(frame_plan, {.name = "x walls"}, plan, pointers,
                        std::span(kEveryRule).first(1), {1, 0, 0});
  add_wall_node<double>(frame_plan, {.name = "y walls", .after = {"x walls"}}, plan, pointers,
                        std::span(kEveryRule).first(1), {0, 1, 0});
  CHECK(frame_plan.nodes()[0].kind() == NodeKind::empty);
  CHECK(frame_plan.nodes()[1].kind() == NodeKind::kernel);
  const DecompositionSpec loop{
      .dimensions = 2, .global_cells = {4, 4, 1}, .process_grid = {1, 1, 1}};
  const HaloPlan periodic = make_halo_plan(CartesianDecomposition(loop, 1, 0), {}, 1, 1);
  add_wall_node<double>(frame_plan, {.name = "none"}, periodic, pointers,
                        std::span(kEveryRule).first(1));
  CHECK(frame_plan.nodes()[2].kind() == NodeKind::empty);
}

TEST_CASE("wall nodes refuse what they cannot fill, naming the count and the limit") {
  const HaloPlan plan = walled_plan(2, 2);
  std::vector<double> storage(static_cast<std::size_t>(plan.layout.field_elements()));
  double* const p = storage.data();
  CHECK(refusal(plan, std::vector<double*>(9, p), {{}}) ==
        "add_wall_node \"walls\": 9 fields is not allowed; expected 1 to 8");
  CHECK(refusal(plan, {}, {{}}) ==
        "add_wall_node \"walls\": 0 fields is not allowed; expected 1 to 8");
  CHECK(refusal(plan, {p, p, p}, {{}, {}}) ==
        "add_wall_node \"walls\": 2 rules is not allowed; expected 1 (for every field) or 3 (one "
        "per field)");
  CHECK(refusal(plan, {p, nullptr}, {{}}) == "add_wall_node \"walls\": field 1 is null");
  CHECK(refusal(plan, {p}, {{}}, {1, 2, 0}) ==
        "add_wall_node \"walls\": axes {1, 2, 0} is not allowed; expected 0 or 1 per axis");
  // A rank thinner than the ghost width cannot mirror its ghosts (one layer, two ghosts).
  const DecompositionSpec thin{.dimensions = 2,
                               .global_cells = {4, 1, 1},
                               .process_grid = {1, 1, 1},
                               .boundary = {Boundary::periodic, Boundary::physical}};
  const HaloPlan thin_plan =
      make_halo_plan(CartesianDecomposition(thin, 1, 0), {.radius = 2, .axes = {1, 0, 0}}, 2, 1);
  CHECK(refusal(thin_plan, {p}, {{WallRule::reflect}}) ==
        "add_wall_node \"walls\": field 0 reflects across the wall -y but this rank owns 1 cells "
        "along axis 1; expected at least the ghost width (2)");
  CHECK(refusal(thin_plan, {p}, {{WallRule::zero_gradient}}) == "accepted");
}
