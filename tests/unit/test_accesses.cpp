// Accesses: the edges a plan derives from what its nodes read and write, strict mode's refusals,
// launches too small for their writes, and the exchange's and wall node's own accesses. The
// misuses a new user makes (a boundary node without `.after = {unpack}`, an interior that reads
// ghosts, a launch that covers half its cells) are each refused at plan build or ordered right.

#include <doctest/doctest.h>
#include <mpi.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "haloflow/access.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/plan.hpp"
#include "haloflow/walls.hpp"
#include "test_mpi.hpp"

using namespace haloflow;

namespace {

// to[i] = from[i] + 1 over `cells` cells, on the host.
void add_one(const LaunchShape& /*shape*/, std::size_t cells, const int* from, int* to) {
  for (std::size_t i = 0; i < cells; ++i) to[i] = from[i] + 1;
}
// The same, reaching one cell per thread along x, as a per-cell kernel would.
std::uint64_t per_thread(const LaunchShape& shape, std::size_t cells, const int*, int*) {
  return std::min<std::uint64_t>(std::uint64_t{shape.grid.x} * shape.block.x, cells);
}
constexpr KernelRef<std::size_t, const int*, int*> kAddOne{nullptr, &add_one, "add_one",
                                                           &per_thread};
// The same host twin without a reach: a kernel whose coverage the plan cannot check.
constexpr KernelRef<std::size_t, const int*, int*> kSweep{nullptr, &add_one, "sweep"};

const LaunchShape kOne = LaunchShape::fixed(1, 1);

// Cells [from, to) of a one-dimensional field.
Box row(std::int64_t from, std::int64_t to) {
  return Box{{from, 0, 0}, {to, 1, 1}};
}

std::vector<std::vector<std::size_t>> deps_of(const FramePlan& plan) {
  return plan.dependencies();
}

std::string problems_of(const FramePlan& plan) {
  std::string text;
  for (const auto& problem : plan.problems()) text += problem + "\n";
  return text;
}

}  // namespace

TEST_CASE("a read after a write, a write after a read and a write after a write are edges") {
  std::vector<int> u(8, 0);
  std::vector<int> v(8, 0);
  std::vector<int> w(8, 0);
  FramePlan plan("hazards");
  plan.add_kernel({.name = "write u", .access = {writes(u.data(), row(0, 8))}}, kSweep, kOne,
                  std::size_t{8}, w.data(), u.data());
  plan.add_kernel(
      {.name = "read u", .access = {reads(u.data(), row(0, 8)), writes(v.data(), row(0, 8))}},
      kSweep, kOne, std::size_t{8}, u.data(), v.data());
  plan.add_kernel({.name = "write u again", .access = {writes(u.data(), row(4, 8))}}, kSweep, kOne,
                  std::size_t{4}, w.data(), u.data() + 4);
  plan.add_kernel({.name = "read w", .access = {reads(w.data(), row(0, 8))}}, kSweep, kOne,
                  std::size_t{8}, w.data(), w.data());
  REQUIRE(plan.problems().empty());
  const auto deps = deps_of(plan);
  CHECK(deps[0].empty());
  CHECK(deps[1] == std::vector<std::size_t>{0});  // read after write
  // write after read (and after write): one edge, from the nearest; the other is implied
  CHECK(deps[2] == std::vector<std::size_t>{1});
  CHECK(deps[3].empty());  // reads of a field no one writes
  CHECK(plan.to_dot().find("\"read u\" -> \"write u again\"") != std::string::npos);
}

TEST_CASE("disjoint boxes and reads of the same cells are not edges") {
  std::vector<int> u(8, 0);
  std::vector<int> v(8, 0);
  FramePlan plan("independent");
  plan.add_kernel({.name = "low", .access = {writes(u.data(), row(0, 4))}}, kSweep, kOne,
                  std::size_t{4}, v.data(), u.data());
  plan.add_kernel({.name = "high", .access = {writes(u.data(), row(4, 8))}}, kSweep, kOne,
                  std::size_t{4}, v.data(), u.data() + 4);
  plan.add_kernel({.name = "read v", .access = {reads(v.data(), row(0, 8))}}, kSweep, kOne,
                  std::size_t{1}, v.data(), v.data());
  plan.add_kernel({.name = "read v too", .access = {reads(v.data(), row(0, 8))}}, kSweep, kOne,
                  std::size_t{1}, v.data(), v.data());
  for (const auto& list : deps_of(plan)) CHECK(list.empty());
}

TEST_CASE("derived edges give the insertion order's result under every host order") {
  // A chain through three fields, declared by accesses only: any order the edges allow gives
  // u -> v -> w.
  for (const HostOrder order :
       {HostOrder::insertion, HostOrder::reverse, HostOrder::shuffled, HostOrder::threads}) {
    CAPTURE(to_string(HostOrdering{order, 3}));
    std::vector<int> u(8, 1);
    std::vector<int> v(8, 0);
    std::vector<int> w(8, 0);
    FramePlan plan("chain");
    plan.add_kernel(
        {.name = "v = u + 1", .access = {reads(u.data(), row(0, 8)), writes(v.data(), row(0, 8))}},
        kSweep, kOne, std::size_t{8}, u.data(), v.data());
    plan.add_kernel(
        {.name = "w = v + 1", .access = {reads(v.data(), row(0, 8)), writes(w.data(), row(0, 8))}},
        kSweep, kOne, std::size_t{8}, v.data(), w.data());
    Frame frame(std::move(plan), ExecutorKind::host, {.host_order = HostOrdering{order, 3}});
    frame.run();
    CHECK(std::ranges::all_of(w, [](int x) { return x == 3; }));
  }
}

TEST_CASE("an explicit edge against insertion order wins: no derived edge makes a cycle") {
  std::vector<int> u(4, 0);
  FramePlan plan("backwards");
  plan.add_kernel({.name = "reader", .after = {"writer"}, .access = {reads(u.data(), row(0, 4))}},
                  kSweep, kOne, std::size_t{1}, u.data(), u.data());
  plan.add_kernel({.name = "writer", .access = {writes(u.data(), row(0, 4))}}, kSweep, kOne,
                  std::size_t{4}, u.data(), u.data());
  REQUIRE(plan.problems().empty());
  const auto deps = deps_of(plan);
  CHECK(deps[0] == std::vector<std::size_t>{1});
  CHECK(deps[1].empty());
}

TEST_CASE("strict mode refuses a conflict the explicit edges leave unordered, naming both") {
  std::vector<int> u(8, 0);
  FramePlan plan("strict", EdgeRule::strict);
  plan.name_field(u.data(), "u");
  plan.add_kernel({.name = "producer", .access = {writes(u.data(), row(2, 6))}}, kSweep, kOne,
                  std::size_t{4}, u.data(), u.data());
  plan.add_kernel({.name = "consumer", .access = {reads(u.data(), row(5, 8))}}, kSweep, kOne,
                  std::size_t{1}, u.data(), u.data());
  const std::string text = problems_of(plan);
  CHECK(text.find("'producer' and 'consumer'") != std::string::npos);
  CHECK(text.find("field u") != std::string::npos);
  CHECK(text.find("x [5, 6)") != std::string::npos);
  CHECK(text.find("add 'producer' to the `after` of 'consumer'") != std::string::npos);
  CHECK_THROWS_AS(Frame(FramePlan(plan), ExecutorKind::host), Error);
  // With the edge written, strict mode accepts it, and derives nothing more.
  plan.node(1).options.after = {"producer"};
  CHECK(plan.problems().empty());
  CHECK(deps_of(plan)[1] == std::vector<std::size_t>{0});
}

TEST_CASE("FrameOptions::edges and HALOFLOW_EDGES choose the rule for a frame") {
  std::vector<int> u(4, 0);
  const auto make = [&] {
    FramePlan plan("unordered");
    plan.add_kernel({.name = "a", .access = {writes(u.data(), row(0, 4))}}, kSweep, kOne,
                    std::size_t{4}, u.data(), u.data());
    plan.add_kernel({.name = "b", .access = {writes(u.data(), row(0, 4))}}, kSweep, kOne,
                    std::size_t{4}, u.data(), u.data());
    return plan;
  };
  CHECK_NOTHROW(Frame(make(), ExecutorKind::host));
  CHECK_THROWS_WITH_AS(Frame(make(), ExecutorKind::host, {.edges = EdgeRule::strict}),
                       doctest::Contains("neither runs after the other"), Error);
  REQUIRE(setenv("HALOFLOW_EDGES", "strict", 1) == 0);
  CHECK_THROWS_AS(Frame(make(), ExecutorKind::host), Error);
  REQUIRE(setenv("HALOFLOW_EDGES", "loose", 1) == 0);
  CHECK_THROWS_WITH_AS(Frame(make(), ExecutorKind::host),
                       doctest::Contains("HALOFLOW_EDGES=loose is not allowed; expected derive, "
                                         "strict or accesses"),
                       Error);
  REQUIRE(unsetenv("HALOFLOW_EDGES") == 0);
  CHECK(edge_rule_from_string("accesses") == EdgeRule::accesses);
  CHECK_FALSE(edge_rule_from_string("Derive"));
}

TEST_CASE("the accesses rule drops explicit edges into nodes that declare accesses only") {
  std::vector<int> u(4, 0);
  FramePlan plan("accesses only", EdgeRule::accesses);
  plan.add_empty({.name = "start"});
  plan.add_kernel({.name = "a", .after = {"start"}, .access = {writes(u.data(), row(0, 4))}},
                  kSweep, kOne, std::size_t{4}, u.data(), u.data());
  plan.add_kernel({.name = "b", .after = {"a"}, .access = {reads(u.data(), row(8, 9))}}, kSweep,
                  kOne, std::size_t{1}, u.data(), u.data());
  plan.add_empty({.name = "join", .after = {"a", "b"}});
  const auto deps = deps_of(plan);
  CHECK(deps[1].empty());                            // "start" orders nothing that a declares
  CHECK(deps[2].empty());                            // b reads cells a does not write
  CHECK(deps[3] == std::vector<std::size_t>{1, 2});  // a join keeps its edges
}

TEST_CASE("misuse: a launch that reaches fewer cells than the node writes is refused") {
  std::vector<int> u(1024, 0);
  FramePlan plan("half launch");
  plan.name_field(u.data(), "u");
  plan.add_kernel({.name = "sweep", .access = {writes(u.data(), row(0, 1024))}}, kAddOne,
                  LaunchShape::cover(512, 128), std::size_t{1024}, u.data(), u.data());
  const std::string text = problems_of(plan);
  CHECK(text.find("kernel 'sweep' declares it writes 1024 cells of field u (x [0, 1024)") !=
        std::string::npos);
  CHECK(text.find("(4 blocks of 128 threads) reaches 512 of them") != std::string::npos);
  FramePlan enough("full launch");
  enough.add_kernel({.name = "sweep", .access = {writes(u.data(), row(0, 1024))}}, kAddOne,
                    LaunchShape::cover(1024, 128), std::size_t{1024}, u.data(), u.data());
  CHECK(enough.problems().empty());
}

TEST_CASE("a null field in an access is refused, naming the node") {
  FramePlan plan("null");
  plan.add_kernel({.name = "k", .access = {reads(static_cast<const int*>(nullptr), row(0, 1))}},
                  kSweep, kOne, std::size_t{1}, static_cast<const int*>(nullptr),
                  static_cast<int*>(nullptr));
  CHECK(problems_of(plan).find("node 'k' declares a read of a null field") != std::string::npos);
}

TEST_CASE("copy nodes declare all of both buffers") {
  std::vector<int> a(4, 0);
  std::vector<int> b(4, 0);
  FramePlan plan("copies");
  plan.add_kernel({.name = "fill", .access = {writes(a.data(), row(0, 4))}}, kSweep, kOne,
                  std::size_t{4}, b.data(), a.data());
  plan.add_copy({.name = "download"}, {b.data(), 16, Memory::host, "b"},
                {a.data(), 16, Memory::device, "a"}, 16);
  CHECK(deps_of(plan)[1] == std::vector<std::size_t>{0});
  CHECK(plan.node(1).options.access.size() == 2);
}

namespace {

// A 2D periodic grid on one rank with its halos sent to itself through MPI (self_on_device off):
// the whole chain (pack, exchange, unpack) is in the plan, as between ranks.
struct Periodic {
  HaloPlan halo;
  std::vector<double> u;
  std::vector<double> v;
  HaloExchange<double> exchange;
  explicit Periodic(bool self_on_device)
      : halo(make(self_on_device)),
        u(static_cast<std::size_t>(halo.layout.field_elements()), 1.0),
        v(u.size(), 0.0),
        exchange(halo, MPI_COMM_WORLD, {{u.data()}, {v.data()}}, Backend::cpu,
                 {.self_on_device = self_on_device}) {}
  static HaloPlan make(bool /*self_on_device*/) {
    (void)testing::test_mpi();
    DecompositionSpec spec;
    spec.dimensions = 2;
    spec.global_cells = {8, 6, 1};
    spec.process_grid = {1, 1, 1};
    return make_halo_plan(CartesianDecomposition(spec, 1, 0), Stencil{StencilShape::star, 1}, 1, 1);
  }
};

// One card frame: exchange, interior, boundary slabs; the boundary declares what it reads and
// writes, and (when `ordered`) runs after the unpack by hand.
FramePlan card_plan(Periodic& p, EdgeRule rule, bool ordered, bool interior_reads_ghosts) {
  FramePlan plan("card", rule);
  const ExchangeNodes nodes = p.exchange.add_to(plan);
  const FieldLayout& layout = p.halo.layout;
  const CellSplit split = split_owned_cells(layout, Stencil{StencilShape::star, 1});
  Box read = split.interior;
  for (int axis = 0; axis < 2; ++axis) {
    read.lo[axis] -= 1;
    read.hi[axis] += 1;
  }
  if (interior_reads_ghosts) read = Box{{0, 0, 0}, layout.extent()};
  plan.add_kernel(
      {.name = "interior", .access = {reads(p.u.data(), read), writes(p.v.data(), split.interior)}},
      kSweep, kOne, std::size_t{1}, static_cast<const int*>(nullptr), static_cast<int*>(nullptr));
  for (std::size_t b = 0; b < split.boundary.size(); ++b) {
    Box around = split.boundary[b];
    for (int axis = 0; axis < 2; ++axis) {
      around.lo[axis] -= 1;
      around.hi[axis] += 1;
    }
    NodeOptions options{
        .name = "boundary" + std::to_string(b),
        .lane = Lane::communication,
        .access = {reads(p.u.data(), around), writes(p.v.data(), split.boundary[b])}};
    if (ordered) options.after = {nodes.unpack};
    plan.add_kernel(std::move(options), kSweep, kOne, std::size_t{1},
                    static_cast<const int*>(nullptr), static_cast<int*>(nullptr));
  }
  return plan;
}

}  // namespace

TEST_CASE("misuse: a boundary node without `.after = {unpack}` is refused in strict mode") {
  Periodic p(false);
  const std::string text = problems_of(card_plan(p, EdgeRule::strict, false, false));
  CHECK(text.find("nodes 'halo.unpack' and 'boundary0' both touch field halo field 0 of set 0") !=
        std::string::npos);
  CHECK(text.find("('halo.unpack' writes, 'boundary0' reads)") != std::string::npos);
  CHECK(problems_of(card_plan(p, EdgeRule::strict, true, false)).empty());
  // Derived, the same plan gets exactly the edges the hand-written one has.
  CHECK(card_plan(p, EdgeRule::derive, false, false).to_dot() ==
        card_plan(p, EdgeRule::strict, true, false).to_dot());
}

TEST_CASE("misuse: an interior that reads ghost cells is refused in strict mode") {
  Periodic p(false);
  const std::string text = problems_of(card_plan(p, EdgeRule::strict, true, true));
  CHECK(text.find("nodes 'halo.unpack' and 'interior'") != std::string::npos);
  // Derived, it waits for the unpack: correct, but nothing overlaps the exchange any more.
  const auto plan = card_plan(p, EdgeRule::derive, true, true);
  const auto deps = plan.dependencies();
  const std::size_t interior = *plan.find("interior");
  CHECK(std::ranges::find(deps[interior], *plan.find("halo.unpack")) != deps[interior].end());
}

TEST_CASE("the exchange's chain and the self copy follow from their accesses alone") {
  for (const bool self_on_device : {false, true}) {
    CAPTURE(self_on_device);
    Periodic p(self_on_device);
    FramePlan by_hand = card_plan(p, EdgeRule::strict, true, false);
    REQUIRE(by_hand.problems().empty());
    FramePlan derived = card_plan(p, EdgeRule::derive, true, false);
    derived.set_edges(EdgeRule::accesses);
    CHECK(derived.to_dot() == by_hand.to_dot());
  }
}

TEST_CASE("a wall node declares the ghosts it writes and the owned layers it reads") {
  (void)testing::test_mpi();
  DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {6, 4, 1};
  spec.process_grid = {1, 1, 1};
  spec.boundary = {Boundary::physical, Boundary::periodic, Boundary::periodic};
  const HaloPlan halo =
      make_halo_plan(CartesianDecomposition(spec, 1, 0), Stencil{StencilShape::star, 1}, 1, 1);
  std::vector<double> u(static_cast<std::size_t>(halo.layout.field_elements()), 0.0);
  FramePlan plan("walls");
  double* fields[] = {u.data()};
  const FieldWall rule{.rule = WallRule::zero_gradient};
  add_wall_node<double>(plan, {.name = "walls"}, halo, fields, {&rule, 1});
  const auto& access = plan.node(0).options.access;
  REQUIRE(access.size() == 4);  // two faces: a write and a read each
  CHECK(access[0].mode == AccessMode::write);
  CHECK(access[0].box == halo.walls[0].ghosts);
  CHECK(access[1].mode == AccessMode::read);
  CHECK(access[1].box.lo[0] == 1);
  CHECK(access[1].box.hi[0] == 2);
}
