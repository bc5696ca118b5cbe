// HaloExchange's kernels on the host executor, one rank whose every neighbour is itself (every
// axis periodic), so both the self copy and the chain pack -> MPI to itself -> unpack run. Their
// segments and field pointers travel in the kernels' parameters when they fit
// (kInlineHaloSegments, kInlineHaloFields) and in device tables otherwise (or when
// ExchangeOptions::inline_tables is off): both must fill every ghost alike.

#include <doctest/doctest.h>

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/halo_exchange.hpp"
#include "test_mpi.hpp"

using namespace haloflow;

namespace {

constexpr double kPoison = -1.0;

struct ExchangeCase {
  int dimensions = 1;
  StencilShape shape = StencilShape::star;
  int fields = 1;
  Index3 cells{1, 1, 1};
  bool fits = true;  //!< segments (messages x fields) and fields within the inline capacities
};

std::string describe(const ExchangeCase& c) {
  return fmt::format("{}D {} {} fields", c.dimensions,
                     c.shape == StencilShape::star ? "star" : "box", c.fields);
}

// Exact in a double; `set` and `field` tell the arrays apart.
double encode(int set, int field, Index3 global) {
  return 1.0 + set * 32.0 + field +
         64.0 * static_cast<double>(global[0] + 100 * (global[1] + 100 * global[2]));
}

// The owned cells encoded, every ghost poisoned.
std::vector<double> initial(const FieldLayout& layout, int set, int field) {
  std::vector<double> values(static_cast<std::size_t>(layout.field_elements()), kPoison);
  const Box owned = layout.owned_box();
  const int g = layout.ghost_width;
  for (std::int64_t k = owned.lo[2]; k < owned.hi[2]; ++k) {
    for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j) {
      for (std::int64_t i = owned.lo[0]; i < owned.hi[0]; ++i) {
        Index3 global{i, j, k};
        for (int a = 0; a < layout.dimensions; ++a) global[a] -= g;
        values[static_cast<std::size_t>(layout.offset(i, j, k))] = encode(set, field, global);
      }
    }
  }
  return values;
}

// What a cell holds after the exchange on a lone periodic rank: its mirror's value, or the poison
// where the stencil exchanges nothing (a star's edges and corners).
double expected(const ExchangeCase& c, const FieldLayout& layout, int set, int field,
                Index3 local) {
  const int g = layout.ghost_width;
  int outside = 0;
  Index3 global{local[0], local[1], local[2]};
  for (int a = 0; a < layout.dimensions; ++a) {
    global[a] = local[a] - g;
    if (global[a] < 0 || global[a] >= c.cells[a]) {
      ++outside;
      global[a] = (global[a] + c.cells[a]) % c.cells[a];
    }
  }
  if (c.shape == StencilShape::star && outside > 1) return kPoison;
  return encode(set, field, global);
}

long count_wrong(const ExchangeCase& c, const FieldLayout& layout, int set,
                 const std::vector<std::vector<double>>& fields) {
  long wrong = 0;
  const Index3 extent = layout.extent();
  for (int field = 0; field < c.fields; ++field) {
    for (std::int64_t k = 0; k < extent[2]; ++k) {
      for (std::int64_t j = 0; j < extent[1]; ++j) {
        for (std::int64_t i = 0; i < extent[0]; ++i) {
          const double have = fields[static_cast<std::size_t>(field)]
                                    [static_cast<std::size_t>(layout.offset(i, j, k))];
          if (have != expected(c, layout, set, field, {i, j, k})) ++wrong;
        }
      }
    }
  }
  return wrong;
}

struct Outcome {
  bool tables_inline = false;
  long wrong = 0;
  std::vector<std::vector<double>> sets[2];  // every field of both sets after both runs
};

// Exchanges set 0, then (after use_field_set) set 1 in the same frame: the switch must reach the
// kernels whether the pointers are inline parameters or a device table. Set 0's ghosts are
// poisoned again before the second run and must stay so.
Outcome exchange_twice(const ExchangeCase& c, bool self_on_device, bool inline_tables) {
  (void)testing::test_mpi();
  DecompositionSpec spec;
  spec.dimensions = c.dimensions;
  spec.global_cells = c.cells;
  spec.process_grid = {1, 1, 1};
  const CartesianDecomposition grid(spec, 1, 0);
  const HaloPlan halo = make_halo_plan(grid, Stencil{c.shape, 1}, 1, c.fields);
  Outcome outcome;
  std::vector<std::vector<double*>> pointers(2);
  for (int set = 0; set < 2; ++set) {
    for (int field = 0; field < c.fields; ++field) {
      outcome.sets[set].push_back(initial(halo.layout, set, field));
    }
    for (auto& field : outcome.sets[set]) {
      pointers[static_cast<std::size_t>(set)].push_back(field.data());
    }
  }
  HaloExchange<double> exchange(
      halo, MPI_COMM_WORLD, pointers, Backend::cpu,
      {.self_on_device = self_on_device, .name = "inline", .inline_tables = inline_tables});
  outcome.tables_inline = exchange.tables_inline();
  FramePlan plan("inline tables");
  exchange.add_to(plan);
  Frame frame(std::move(plan), ExecutorKind::host);
  frame.run();
  outcome.wrong += count_wrong(c, halo.layout, 0, outcome.sets[0]);
  for (int field = 0; field < c.fields; ++field) {  // in place: the exchange holds the pointers
    const auto values = initial(halo.layout, 0, field);
    std::ranges::copy(values, outcome.sets[0][static_cast<std::size_t>(field)].begin());
  }
  exchange.use_field_set(frame, 1);
  frame.run();
  outcome.wrong += count_wrong(c, halo.layout, 1, outcome.sets[1]);
  for (int field = 0; field < c.fields; ++field) {
    if (outcome.sets[0][static_cast<std::size_t>(field)] != initial(halo.layout, 0, field)) {
      ++outcome.wrong;  // set 0 was written after the switch
    }
  }
  CHECK_THROWS_AS(exchange.use_field_set(frame, 2), Error);
  return outcome;
}

}  // namespace

TEST_CASE("halo kernels give the same ghosts with inline tables and with device tables") {
  static_assert(kInlineHaloSegments == 16 && kInlineHaloFields == 8,
                "the cases below sit on both sides of these capacities");
  const std::vector<ExchangeCase> cases = {
      {2, StencilShape::star, 1, {7, 5, 1}, true},    // 4 segments
      {2, StencilShape::box, 2, {7, 5, 1}, true},     // 16: exactly the capacity
      {3, StencilShape::star, 2, {5, 4, 3}, true},    // 12
      {1, StencilShape::star, 8, {9, 1, 1}, true},    // 16 segments, 8 fields: both at capacity
      {3, StencilShape::box, 1, {5, 4, 3}, false},    // 26 segments: a device table
      {2, StencilShape::box, 3, {7, 5, 1}, false},    // 24 segments
      {1, StencilShape::star, 9, {9, 1, 1}, false},   // 18 segments, 9 fields: both in tables
      {3, StencilShape::star, 10, {5, 4, 3}, false},  // 60 segments, 10 fields
  };
  for (const ExchangeCase& c : cases) {
    for (const bool self_on_device : {true, false}) {
      CAPTURE(describe(c));
      CAPTURE(self_on_device);
      const Outcome inline_tables = exchange_twice(c, self_on_device, true);
      const Outcome device_tables = exchange_twice(c, self_on_device, false);
      CHECK(inline_tables.tables_inline == c.fits);
      CHECK_FALSE(device_tables.tables_inline);
      CHECK(inline_tables.wrong == 0);
      CHECK(device_tables.wrong == 0);
      for (int set = 0; set < 2; ++set) {
        CHECK(inline_tables.sets[set] == device_tables.sets[set]);  // bitwise: exact doubles
      }
    }
  }
}

TEST_CASE("an exchange with no neighbour reads no table") {
  (void)testing::test_mpi();
  DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {6, 5, 1};
  spec.process_grid = {1, 1, 1};
  spec.boundary = {Boundary::physical, Boundary::physical, Boundary::physical};
  const CartesianDecomposition grid(spec, 1, 0);
  const HaloPlan halo = make_halo_plan(grid, Stencil{}, 1, 12);
  std::vector<std::vector<double>> storage(
      12, std::vector<double>(static_cast<std::size_t>(halo.layout.field_elements())));
  std::vector<double*> pointers;
  for (auto& field : storage) pointers.push_back(field.data());
  const HaloExchange<double> exchange(halo, MPI_COMM_WORLD, {pointers}, Backend::cpu,
                                      {.inline_tables = false});
  CHECK(exchange.tables_inline());
}
