// Wall nodes (haloflow/walls.hpp) on the graph executor: the same ghosts, bit for bit, as the host
// executor's (whose values tests/unit/test_walls.cpp checks cell by cell), for every rule, 2D and
// 3D, float and double.

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/decomposition.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/walls.hpp"

using namespace haloflow;

namespace {

// Four fields of one rank (x periodic, the last active axis walled) after one wall node with one
// rule per field, run by `kind`.
template <class T>
std::vector<T> walls_after(int dimensions, ExecutorKind kind) {
  DecompositionSpec spec{.dimensions = dimensions,
                         .global_cells = {7, 5, dimensions == 3 ? 4 : 1},
                         .process_grid = {1, 1, 1}};
  spec.boundary[static_cast<std::size_t>(dimensions - 1)] = Boundary::physical;
  const HaloPlan plan = make_halo_plan(CartesianDecomposition(spec, 1, 0), {.radius = 2}, 2, 1);
  const auto elements = static_cast<std::size_t>(plan.layout.field_elements());
  std::vector<T> values(4 * elements);
  for (std::size_t e = 0; e < values.size(); ++e) values[e] = static_cast<T>(e) * T(0.37) - T(5);
  Buffer fields(Memory::device, values.size() * sizeof(T), "fields", backend_of(kind));
  fields.upload(values.data(), fields.bytes());
  std::vector<T*> pointers;
  for (std::size_t f = 0; f < 4; ++f) pointers.push_back(fields.as<T>() + f * elements);
  const std::vector<FieldWall> rules{{WallRule::zero_gradient},
                                     {WallRule::reflect},
                                     {WallRule::reflect_negated},
                                     {.rule = WallRule::fixed, .value = 0.1}};
  FramePlan frame_plan("walls");
  add_wall_node<T>(frame_plan, {.name = "walls"}, plan, pointers, rules);
  Frame frame(std::move(frame_plan), kind);
  frame.run();
  fields.download(values.data(), fields.bytes());
  return values;
}

template <class T>
void check_same_bits() {
  for (int dimensions = 2; dimensions <= 3; ++dimensions) {
    CAPTURE(dimensions);
    const auto host = walls_after<T>(dimensions, ExecutorKind::host);
    const auto graph = walls_after<T>(dimensions, ExecutorKind::graph);
    REQUIRE(host.size() == graph.size());
    CHECK(std::memcmp(host.data(), graph.data(), host.size() * sizeof(T)) == 0);
  }
}

}  // namespace

TEST_CASE("a wall node on the graph executor gives the host executor's bits") {
  check_same_bits<double>();
  check_same_bits<float>();
}
