// euler2d's host-side views of its state (apps/models/euler2d/euler2d_fields.cpp): the initial
// conserved fields at the owned cells of a rank's piece, and the primitive variables the outputs
// get back from them.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "euler2d/euler2d_fields.hpp"
#include "euler2d/euler2d_frames.hpp"
#include "euler2d/euler2d_problem.hpp"

using namespace haloflow;
using namespace haloflow::models;

namespace {

// Rank `rank` of a 2 x 2 process grid over a periodic 12 x 10 vortex case.
struct Piece {
  EulerConfig config;
  CartesianDecomposition grid;
  HaloPlan halo;
  explicit Piece(int rank)
      : config{.nx = 12, .ny = 10},
        grid({.dimensions = 2,
              .global_cells = {12, 10, 1},
              .process_grid = {2, 2, 1},
              .boundary = {Boundary::periodic, Boundary::periodic}},
             4, rank),
        halo(make_halo_plan(grid, euler::kStencil, euler::kGhosts, 4)) {}
};

}  // namespace

TEST_CASE("euler2d fields: the initial state holds the problem's gas at each owned cell's centre") {
  const Piece piece(3);  // the upper right quarter: cells (6..11, 5..9)
  const FieldLayout& layout = piece.halo.layout;
  const std::vector<double> state = euler::initial_state(piece.config, piece.grid, layout);
  const std::int64_t fs = layout.field_elements();
  REQUIRE(state.size() == static_cast<std::size_t>(4 * fs));
  const auto size = euler::domain(piece.config);
  const auto h = euler_cell_size(piece.config);
  int owned = 0;
  euler::for_owned_cells(piece.grid, layout, [&](std::int64_t at, std::int64_t i, std::int64_t j) {
    CHECK(i >= 6);
    CHECK(j >= 5);
    const euler::Primitive w =
        euler::initial_at(piece.config, (static_cast<double>(i) + 0.5) * h[0],
                          (static_cast<double>(j) + 0.5) * h[1], size);
    CHECK(state[static_cast<std::size_t>(at)] == w.rho);
    CHECK(state[static_cast<std::size_t>(at + fs)] == w.rho * w.u);
    CHECK(state[static_cast<std::size_t>(at + 2 * fs)] == w.rho * w.v);
    ++owned;
  });
  CHECK(owned == 6 * 5);
  // A ghost cell (the first storage element) holds a valid gas at rest.
  CHECK(state[0] == 1.0);
  CHECK(state[static_cast<std::size_t>(3 * fs)] == 1.0);
}

TEST_CASE("euler2d fields: the primitive variables of the initial state are the problem's") {
  const Piece piece(1);
  const FieldLayout& layout = piece.halo.layout;
  const std::vector<double> state = euler::initial_state(piece.config, piece.grid, layout);
  const std::vector<FieldArray> arrays =
      euler::primitive_arrays(state, piece.grid, layout, piece.config.gamma);
  REQUIRE(arrays.size() == 4);
  CHECK(arrays[0].name == "density");
  CHECK(arrays[1].name == "velocity");
  CHECK(arrays[1].components == 3);
  CHECK(arrays[2].name == "pressure");
  CHECK(arrays[3].name == "mach");
  const auto size = euler::domain(piece.config);
  const auto h = euler_cell_size(piece.config);
  std::size_t n = 0;
  euler::for_owned_cells(piece.grid, layout, [&](std::int64_t, std::int64_t i, std::int64_t j) {
    const euler::Primitive w =
        euler::initial_at(piece.config, (static_cast<double>(i) + 0.5) * h[0],
                          (static_cast<double>(j) + 0.5) * h[1], size);
    CHECK(arrays[0].values[n] == w.rho);
    CHECK(arrays[1].values[3 * n] == doctest::Approx(w.u).epsilon(1e-14));
    CHECK(arrays[1].values[3 * n + 1] == doctest::Approx(w.v).epsilon(1e-14));
    CHECK(arrays[1].values[3 * n + 2] == 0.0);
    CHECK(arrays[2].values[n] == doctest::Approx(w.p).epsilon(1e-13));
    const double sound = std::sqrt(piece.config.gamma * w.p / w.rho);
    CHECK(arrays[3].values[n] ==
          doctest::Approx(std::sqrt(w.u * w.u + w.v * w.v) / sound).epsilon(1e-12));
    ++n;
  });
  CHECK(n == arrays[0].values.size());
  CHECK(arrays[1].values.size() == 3 * n);
}
