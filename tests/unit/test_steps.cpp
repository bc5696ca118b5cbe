// Frames of k steps (haloflow/steps.hpp): the ghost depth, the exchange's stencil, the region each
// sub-step computes, the redundant cells, and the refusals, on simulated ranks of a decomposition.

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/steps.hpp"

using namespace haloflow;

namespace {

constexpr Stencil kStar{StencilShape::star, 1};
constexpr int kLimit = 4;
constexpr const char* kField = "/heat3d/steps_per_frame";

CartesianDecomposition decomposition(Index3 cells, Coord3 ranks, int rank,
                                     std::array<Boundary, 3> boundary = {Boundary::periodic,
                                                                         Boundary::periodic,
                                                                         Boundary::periodic}) {
  DecompositionSpec spec;
  spec.dimensions = 3;
  spec.global_cells = cells;
  spec.process_grid = ranks;
  spec.boundary = boundary;
  return {spec, ranks[0] * ranks[1] * ranks[2], rank};
}

Box owned_at(Index3 lo, Index3 cells) {
  return {.lo = lo, .hi = {lo[0] + cells[0], lo[1] + cells[1], lo[2] + cells[2]}};
}

bool inside(const Box& inner, const Box& outer) {
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (inner.lo[axis] < outer.lo[axis] || inner.hi[axis] > outer.hi[axis]) return false;
  }
  return true;
}

//! `box` grown by `by` along the axes marked in `axes`.
Box grown_along(const Box& box, std::int64_t by, const std::array<bool, 3>& axes) {
  Box out = box;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (!axes[axis]) continue;
    out.lo[axis] -= by;
    out.hi[axis] += by;
  }
  return out;
}

}  // namespace

TEST_CASE("steps: one step a frame is the plain frame") {
  const OneStep step = one_step(decomposition({10, 10, 10}, {1, 1, 1}, 0), kStar);
  const StepFrame frame(step, 1, kLimit, kField);
  CHECK(frame.ghost_depth() == 1);
  CHECK(frame.exchange_stencil().shape == StencilShape::star);
  CHECK(frame.exchange_stencil().radius == 1);
  const Box owned = owned_at({1, 1, 1}, {10, 10, 10});
  CHECK(frame.computed(1, owned) == owned);
  CHECK(frame.redundant_cells() == 0);
  CHECK(frame.redundant_fraction() == 0.0);
}

TEST_CASE("steps: k steps on one periodic rank grow every axis and exchange a box k deep") {
  const OneStep step = one_step(decomposition({10, 10, 10}, {1, 1, 1}, 0), kStar);
  CHECK(exchanged_axes(step) == std::array<bool, 3>{true, true, true});
  const StepFrame frame(step, 3, kLimit, kField);
  CHECK(frame.ghost_depth() == 3);
  CHECK(frame.exchange_stencil().shape == StencilShape::box);
  CHECK(frame.exchange_stencil().radius == 3);
  const Box owned = owned_at({3, 3, 3}, {10, 10, 10});
  CHECK(frame.computed(1, owned) == owned_at({1, 1, 1}, {14, 14, 14}));
  CHECK(frame.computed(2, owned) == owned_at({2, 2, 2}, {12, 12, 12}));
  CHECK(frame.computed(3, owned) == owned);
  CHECK(frame.redundant_cells() == (14 * 14 * 14 - 1000) + (12 * 12 * 12 - 1000));
  CHECK(frame.redundant_fraction() == doctest::Approx((2744.0 + 1728.0 - 2000.0) / 3000.0));
}

TEST_CASE("steps: every sub-step reads only cells the one before computed, or the ghosts") {
  // Ranks along x and y, z periodic on one rank; radius 2 box stencil on some shapes.
  for (const Stencil stencil : {kStar, Stencil{StencilShape::box, 2}}) {
    for (int rank = 0; rank < 4; ++rank) {
      const OneStep step = one_step(decomposition({17, 13, 9}, {2, 2, 1}, rank), stencil);
      const int most = most_steps_per_frame(step, kLimit);
      for (int k = 1; k <= most; ++k) {
        CAPTURE(stencil.radius);
        CAPTURE(rank);
        CAPTURE(k);
        const StepFrame frame(step, k, kLimit, kField);
        const int depth = frame.ghost_depth();
        const Box owned = owned_at({depth, depth, depth}, step.owned);
        const Box ghosts = grown_along(owned, depth, frame.exchanged());
        CHECK(inside(grown_along(frame.computed(1, owned), stencil.radius, frame.exchanged()),
                     ghosts));
        for (int s = 2; s <= k; ++s) {
          CHECK(inside(grown_along(frame.computed(s, owned), stencil.radius, frame.exchanged()),
                       frame.computed(s - 1, owned)));
        }
        CHECK(frame.computed(k, owned) == owned);
      }
    }
  }
}

TEST_CASE("steps: no growth past a physical boundary or along an axis the stencil does not read") {
  // x physical over 2 ranks, y periodic on one, z not read.
  const Stencil stencil{StencilShape::star, 1, {1, 1, 0}};
  const std::array<Boundary, 3> walls{Boundary::physical, Boundary::periodic, Boundary::periodic};
  const OneStep low = one_step(decomposition({12, 6, 5}, {2, 1, 1}, 0, walls), stencil);
  const OneStep high = one_step(decomposition({12, 6, 5}, {2, 1, 1}, 1, walls), stencil);
  CHECK(exchanged_axes(low) == std::array<bool, 3>{true, true, false});
  const StepFrame low_frame(low, 2, kLimit, kField);
  const StepFrame high_frame(high, 2, kLimit, kField);
  const Box owned = owned_at({2, 2, 2}, {6, 6, 5});
  CHECK(low_frame.computed(1, owned) == Box{{2, 1, 2}, {9, 9, 7}});
  CHECK(high_frame.computed(1, owned) == Box{{1, 1, 2}, {8, 9, 7}});
  CHECK(low_frame.redundant_cells() == 7 * 8 * 5 - 6 * 6 * 5);
}

TEST_CASE("steps: ghosts deeper than the thinnest share are refused naming the field") {
  // 7 cells over 2 ranks along x: shares of 4 and 3, so at most 3 steps of radius 1.
  for (int rank = 0; rank < 2; ++rank) {
    const OneStep step = one_step(decomposition({7, 8, 8}, {2, 1, 1}, rank), kStar);
    CHECK(step.thinnest[0] == 3);
    CHECK(most_steps_per_frame(step, kLimit) == 3);
    CHECK_FALSE(step_frame_refusal(step, 3, kLimit, kField).has_value());
    const auto refusal = step_frame_refusal(step, 4, kLimit, kField);
    REQUIRE(refusal.has_value());
    CHECK(*refusal ==
          "/heat3d/steps_per_frame: 4 is not allowed on this process grid: 4 steps a frame of a "
          "radius-1 stencil need ghosts 4 deep, and a rank owns 3 cells along x (the thinnest "
          "share of 2 ranks); expected 1 to 3");
    CHECK_THROWS_WITH_AS((void)StepFrame(step, 4, kLimit, kField), refusal->c_str(), Error);
  }
}

TEST_CASE("steps: a periodic axis on one rank is its own neighbour and bounds k too") {
  const OneStep step = one_step(decomposition({16, 2, 16}, {1, 1, 1}, 0), kStar);
  CHECK(most_steps_per_frame(step, kLimit) == 2);
  const auto refusal = step_frame_refusal(step, 3, kLimit, kField);
  REQUIRE(refusal.has_value());
  CHECK(refusal->find("a rank owns 2 cells along y (the thinnest share of 1 rank, periodic: its "
                      "own neighbour); expected 1 to 2") != std::string::npos);
}

TEST_CASE("steps: k outside 1..limit is refused") {
  const OneStep step = one_step(decomposition({16, 16, 16}, {1, 1, 1}, 0), kStar);
  CHECK(step_frame_refusal(step, 0, kLimit, kField) ==
        "/heat3d/steps_per_frame: 0 is not allowed; expected 1 to 4");
  CHECK(step_frame_refusal(step, 5, kLimit, kField) ==
        "/heat3d/steps_per_frame: 5 is not allowed; expected 1 to 4");
}

TEST_CASE("steps: computed() checks its arguments") {
  const OneStep step = one_step(decomposition({8, 8, 8}, {1, 1, 1}, 0), kStar);
  const StepFrame frame(step, 2, kLimit, kField);
  const Box owned = owned_at({2, 2, 2}, {8, 8, 8});
  CHECK_THROWS_AS((void)frame.computed(0, owned), Error);
  CHECK_THROWS_AS((void)frame.computed(3, owned), Error);
  CHECK_THROWS_AS((void)frame.computed(1, owned_at({2, 2, 2}, {8, 7, 8})), Error);
}

TEST_CASE("steps: auto takes the fewest steps a frame within the tolerance of the fastest") {
  CHECK(fastest_steps_per_frame({14.7e-6}) == 1);
  CHECK(fastest_steps_per_frame({14.7e-6, 17.8e-6, 18.1e-6, 17.9e-6}) == 1);
  CHECK(fastest_steps_per_frame({14.7e-6, 9.1e-6, 9.6e-6, 8.0e-6}) == 4);
  // 9.2 is within 3 % of 9.0: two steps, not four, for a gain the noise could make.
  CHECK(fastest_steps_per_frame({14.7e-6, 9.2e-6, 9.6e-6, 9.0e-6}) == 2);
  CHECK(fastest_steps_per_frame({14.7e-6, 9.2e-6, 9.6e-6, 9.0e-6}, 0.0) == 4);
  CHECK(fastest_steps_per_frame({0.0, 0.0}) == 1);  // a clock too coarse to tell: the plain frame
  CHECK_THROWS_WITH_AS((void)fastest_steps_per_frame({}), doctest::Contains("no step times"),
                       Error);
  CHECK_THROWS_WITH_AS((void)fastest_steps_per_frame({1e-6, std::nan("")}),
                       doctest::Contains("with 2 steps a frame is not a time"), Error);
  CHECK_THROWS_WITH_AS((void)fastest_steps_per_frame({1e-6, -1e-6}),
                       doctest::Contains("expected a finite number of at least 0"), Error);
  CHECK_THROWS_WITH_AS((void)fastest_steps_per_frame({1e-6}, -0.5), doctest::Contains("tolerance"),
                       Error);
}

TEST_CASE("steps: each sub-step's part before the halos reads only the part before it") {
  // x and y travel (2 ranks each), z is one periodic rank's own (its ghosts are self copies).
  const std::array<bool, 3> travelling{true, true, false};
  for (const Stencil stencil : {kStar, Stencil{StencilShape::box, 2}}) {
    for (int rank = 0; rank < 4; ++rank) {
      const OneStep step = one_step(decomposition({17, 13, 9}, {2, 2, 1}, rank), stencil);
      for (int k = 1; k <= most_steps_per_frame(step, kLimit); ++k) {
        CAPTURE(stencil.radius);
        CAPTURE(rank);
        CAPTURE(k);
        const StepFrame frame(step, k, kLimit, kField);
        const int depth = frame.ghost_depth();
        const Box owned = owned_at({depth, depth, depth}, step.owned);
        // What needs no travelling halo: the owned cells along x and y, every ghost along z.
        Box no_travelling = grown_along(owned, depth, frame.exchanged());
        for (std::size_t axis = 0; axis < 2; ++axis) {
          no_travelling.lo[axis] = owned.lo[axis];
          no_travelling.hi[axis] = owned.hi[axis];
        }
        for (int s = 1; s <= k; ++s) {
          CAPTURE(s);
          const Box part = frame.before_halos(s, owned, travelling);
          CHECK(inside(part, frame.computed(s, owned)));
          if (part.empty()) continue;
          const Box read = grown_along(part, stencil.radius, frame.exchanged());
          CHECK(
              inside(read, s == 1 ? no_travelling : frame.before_halos(s - 1, owned, travelling)));
          // s * r inside along x and y, the whole grown region along z.
          CHECK(part.lo[0] == owned.lo[0] + s * stencil.radius);
          CHECK(part.hi[1] == owned.hi[1] - s * stencil.radius);
          CHECK(part.lo[2] == frame.computed(s, owned).lo[2]);
        }
      }
    }
  }
  // Nothing travels: the whole sub-step; a share too thin: empty, never inverted.
  const OneStep alone = one_step(decomposition({8, 8, 8}, {1, 1, 1}, 0), kStar);
  const StepFrame three(alone, 3, kLimit, kField);
  const Box owned = owned_at({3, 3, 3}, {8, 8, 8});
  CHECK(three.before_halos(1, owned, {false, false, false}) == three.computed(1, owned));
  const Box thin = three.before_halos(3, owned_at({3, 3, 3}, {8, 8, 8}), {true, true, true});
  CHECK(thin == owned_at({6, 6, 6}, {2, 2, 2}));
  const OneStep narrow = one_step(decomposition({6, 8, 8}, {2, 1, 1}, 0), kStar);
  const StepFrame frame(narrow, 3, kLimit, kField);
  const Box empty = frame.before_halos(2, owned_at({3, 3, 3}, {3, 8, 8}), {true, false, false});
  CHECK(empty.empty());
  CHECK(empty.hi[0] >= empty.lo[0]);
}
