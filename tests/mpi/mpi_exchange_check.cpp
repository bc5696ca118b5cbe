// Run under mpiexec: exchanges ghost cells for many decompositions and checks that every ghost
// cell holds exactly the value of the global cell it mirrors (values encode global indices),
// for every way the halos can travel: staged through copies or mapped memory, a rank's halos to
// itself on the device or through MPI, under the graph executor both host-node lowerings, and
// the kernels' segment and pointer tables inline in their parameters or in device memory. Both ends
// of every route must have chosen the same transport.
//   haloflow_mpi_check [--executor host|graph|streams|serial] [--transport mpi|nccl|peer]
//                      [--nodes odd-even]
//                      (peer: three frames, the owned cells changed before each, so that a
//                      halo read from the wrong slot or before its flag shows; --nodes
//                      odd-even: the ranks sit on two nodes by parity, as MPICH's
//                      MPIR_CVAR_ODD_EVEN_CLIQUES=1 puts them, and every route must travel
//                      peer within a node and mpi across)
//   haloflow_mpi_check --transport nccl --expect-refusal 1   (ranks share a GPU: the nccl
//                      transport must refuse with a message that says why)
//   haloflow_mpi_check --skip-rank R --timeout S [--handoff host-node|proxy] [--transport T]
//                      (rank R never exchanges: the others must fail within S seconds, naming R)
// Exit: 0 all good, 1 a failure, 77 GPU executor asked for without a GPU (ctest: skipped).

#include <fmt/format.h>
#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"

using namespace haloflow;

namespace {

constexpr double kPoison = -1.0;
constexpr int kFields = 2;

struct Config {
  int dimensions;
  StencilShape shape;
  bool periodic;
  int ghost_width;
  Index3 global;
};

//! One way of running the exchange (see the file comment).
struct Variant {
  Transport transport = Transport::mpi;
  Handoff handoff = Handoff::automatic;
  Staging staging = Staging::automatic;
  bool self_on_device = true;
  //! ExchangeOptions::self_left_to_kernels along x: a rank alone along a periodic x leaves its x
  //! face ghosts untouched (its kernels would write them).
  bool x_left_to_kernels = false;
  //! ExchangeOptions::inline_tables: false keeps every kernel table in device memory, the path
  //! of exchanges too large to carry them in the kernels' parameters.
  bool inline_tables = true;
};

std::string describe(const Variant& v) {
  if (v.transport != Transport::mpi) {
    return fmt::format("{}, self {}{}", to_string(v.transport),
                       v.self_on_device ? "device" : to_string(v.transport),
                       v.inline_tables ? "" : ", device tables");
  }
  return fmt::format("{}, {}, self {}{}{}", to_string(v.handoff),
                     v.staging == Staging::mapped ? "mapped" : "copies",
                     v.self_on_device ? "device" : "mpi",
                     v.x_left_to_kernels ? ", x faces left to kernels" : "",
                     v.inline_tables ? "" : ", device tables");
}

std::vector<Variant> variants_for(ExecutorKind executor, Transport transport) {
  std::vector<Variant> variants;
  if (transport == Transport::peer) {
    for (const bool self_on_device : {true, false}) {
      for (const bool inline_tables : {true, false}) {
        variants.push_back({.transport = Transport::peer,
                            .self_on_device = self_on_device,
                            .inline_tables = inline_tables});
      }
    }
    return variants;
  }
  if (transport == Transport::nccl) {
    for (const bool self_on_device : {true, false}) {
      variants.push_back({.transport = Transport::nccl, .self_on_device = self_on_device});
    }
    return variants;
  }
  const bool graph = executor == ExecutorKind::graph;
  for (const Handoff handoff : {Handoff::host_node, Handoff::proxy}) {
    if (!graph && handoff == Handoff::proxy) continue;  // only the graph executor lowers it
    for (const Staging staging : {Staging::copies, Staging::mapped}) {
      for (const bool self_on_device : {true, false}) {
        variants.push_back(
            {Transport::mpi, graph ? handoff : Handoff::automatic, staging, self_on_device});
      }
    }
  }
  variants.push_back({.transport = Transport::mpi,
                      .handoff = graph ? Handoff::proxy : Handoff::automatic,
                      .x_left_to_kernels = true});
  for (const bool self_on_device : {true, false}) {
    variants.push_back({.transport = Transport::mpi,
                        .handoff = graph ? Handoff::proxy : Handoff::automatic,
                        .self_on_device = self_on_device,
                        .inline_tables = false});
  }
  return variants;
}

std::string describe(const Config& c) {
  return fmt::format("{}D {} {} ghost {} global {}x{}x{}", c.dimensions,
                     c.shape == StencilShape::star ? "star" : "box",
                     c.periodic ? "periodic" : "physical", c.ghost_width, c.global[0], c.global[1],
                     c.global[2]);
}

// Exact in a double for these sizes; `set` tells two exchanges' fields apart.
double encode(int set, int field, Index3 global, int round = 0) {
  return 1.0 + set * 2.0 + field +
         4.0 * static_cast<double>(global[0] + 1000 * (global[1] + 1000 * global[2])) +
         0x1p32 * round;
}

struct RankFields {
  std::vector<Buffer> buffers;
  std::vector<double*> pointers;
};

// Owned cells encode their global index (and `round`), ghosts hold the poison.
RankFields make_fields(const CartesianDecomposition& grid, const FieldLayout& layout, int set,
                       Backend backend, int round = 0, RankFields fields = {}) {
  const Index3 extent = layout.extent();
  const Index3 offset = grid.global_offset();
  const int g = layout.ghost_width;
  std::vector<double> values(static_cast<std::size_t>(layout.field_elements()));
  for (int field = 0; field < kFields; ++field) {
    for (std::int64_t k = 0; k < extent[2]; ++k) {
      for (std::int64_t j = 0; j < extent[1]; ++j) {
        for (std::int64_t i = 0; i < extent[0]; ++i) {
          const Index3 local{i, j, k};
          bool owned = true;
          Index3 global{0, 0, 0};
          for (int a = 0; a < layout.dimensions; ++a) {
            owned = owned && local[a] >= g && local[a] < g + layout.owned[a];
            global[a] = offset[a] + local[a] - g;
          }
          values[static_cast<std::size_t>(layout.offset(i, j, k))] =
              owned ? encode(set, field, global, round) : kPoison;
        }
      }
    }
    if (fields.buffers.size() == static_cast<std::size_t>(field)) {
      fields.buffers.emplace_back(Memory::device, values.size() * sizeof(double),
                                  fmt::format("set {} field {}", set, field), backend);
      fields.pointers.push_back(fields.buffers.back().as<double>());
    }
    fields.buffers[static_cast<std::size_t>(field)].upload(values.data(),
                                                           values.size() * sizeof(double));
  }
  return fields;
}

// What a cell must hold after the exchange: its own value, its mirror's, or still the poison.
double expected(const Config& c, const Variant& v, const CartesianDecomposition& grid,
                const FieldLayout& layout, int set, int field, Index3 local, int round) {
  const int g = layout.ghost_width;
  const Index3 offset = grid.global_offset();
  int outside = 0;
  bool outside_x = false;
  Index3 global{0, 0, 0};
  for (int a = 0; a < layout.dimensions; ++a) {
    const bool in_owned = local[a] >= g && local[a] < g + layout.owned[a];
    outside += in_owned ? 0 : 1;
    if (a == 0 && !in_owned) outside_x = true;
    global[a] = offset[a] + local[a] - g;
    if (global[a] < 0 || global[a] >= c.global[a]) {
      if (!c.periodic) return kPoison;  // beyond a physical boundary: nobody sends it
      global[a] = (global[a] + c.global[a]) % c.global[a];
    }
  }
  if (c.shape == StencilShape::star && outside > 1) return kPoison;  // edges and corners
  // An x face ghost of a rank alone along a periodic x, left to the kernels: untouched.
  const bool alone_along_x = c.periodic && grid.process_grid()[0] == 1;
  if (v.x_left_to_kernels && alone_along_x && outside == 1 && outside_x) return kPoison;
  return encode(set, field, global, round);
}

long count_wrong(const Config& c, const Variant& v, const CartesianDecomposition& grid,
                 const FieldLayout& layout, int set, const RankFields& fields, int round) {
  long wrong = 0;
  const Index3 extent = layout.extent();
  std::vector<double> values(static_cast<std::size_t>(layout.field_elements()));
  for (int field = 0; field < kFields; ++field) {
    fields.buffers[static_cast<std::size_t>(field)].download(values.data(),
                                                             values.size() * sizeof(double));
    for (std::int64_t k = 0; k < extent[2]; ++k) {
      for (std::int64_t j = 0; j < extent[1]; ++j) {
        for (std::int64_t i = 0; i < extent[0]; ++i) {
          const double want = expected(c, v, grid, layout, set, field, {i, j, k}, round);
          const double have = values[static_cast<std::size_t>(layout.offset(i, j, k))];
          if (have != want && wrong++ < 3) {
            std::fprintf(stderr,
                         "rank %d %s: set %d field %d cell (%ld,%ld,%ld): %.1f, want %.1f\n",
                         grid.rank(), describe(c).c_str(), set, field, static_cast<long>(i),
                         static_cast<long>(j), static_cast<long>(k), have, want);
          }
        }
      }
    }
  }
  return wrong;
}

//! What a check found besides the cells: routes that travel otherwise than the nodes say, and
//! whether this rank's exchange mixed peer and mpi routes.
struct RouteCount {
  long wrong = 0;
  int mixed = 0;
};

// With the ranks on two nodes by parity (--nodes odd-even): each route peer within a node, mpi to
// the other node saying so.
RouteCount check_routes(const std::vector<HaloRoute>& routes, int rank) {
  RouteCount count;
  bool peer = false;
  bool mpi = false;
  for (const HaloRoute& route : routes) {
    const bool same_node = route.peer % 2 == rank % 2;
    const std::string across = fmt::format("rank {} is on another node", route.peer);
    const bool right = same_node ? route.transport == Transport::peer
                                 : route.transport == Transport::mpi && route.reason == across;
    peer = peer || route.transport == Transport::peer;
    mpi = mpi || route.transport == Transport::mpi;
    if (!right && count.wrong++ < 3) {
      std::fprintf(stderr, "rank %d: the %s halo to rank %d travels %s (%s)\n", rank,
                   route.direction.c_str(), route.peer,
                   std::string(to_string(route.transport)).c_str(), route.reason.c_str());
    }
  }
  count.mixed = peer && mpi ? 1 : 0;
  return count;
}

// A direction's index in [0, 27) from its name ("+x-y"), and the opposite one's.
int direction_index(const std::string& name, bool opposite) {
  int index = 0;
  for (std::size_t i = 0; i + 1 < name.size(); i += 2) {
    const int sign = (name[i] == '+') != opposite ? 1 : -1;
    const int axis = name[i + 1] - 'x';
    index += sign * (axis == 0 ? 1 : axis == 1 ? 3 : 9);
  }
  return index + 13;  // 13: no move along any axis
}

// Both ends of every route chose the same transport: each rank's transport per (neighbour,
// direction) gathered, and each route compared with its other end's (the neighbour's route of the
// opposite direction back to this rank). Collective over `world`.
long check_route_ends(const std::vector<HaloRoute>& routes, MPI_Comm world, int rank, int ranks) {
  constexpr int kNone = -1;
  // Per rank, per neighbour, per direction: the transport (as an int), or kNone.
  const std::size_t per_rank = static_cast<std::size_t>(ranks) * 27;
  std::vector<int> mine(per_rank, kNone);
  for (const HaloRoute& route : routes) {
    mine[static_cast<std::size_t>(route.peer) * 27 +
         static_cast<std::size_t>(direction_index(route.direction, false))] =
        static_cast<int>(route.transport);
  }
  std::vector<int> all(per_rank * static_cast<std::size_t>(ranks));
  HALOFLOW_MPI(MPI_Allgather(mine.data(), static_cast<int>(per_rank), MPI_INT, all.data(),
                             static_cast<int>(per_rank), MPI_INT, world),
               "gathering the routes");
  long wrong = 0;
  for (const HaloRoute& route : routes) {
    const std::size_t other_end = static_cast<std::size_t>(route.peer) * per_rank +
                                  static_cast<std::size_t>(rank) * 27 +
                                  static_cast<std::size_t>(direction_index(route.direction, true));
    if (all[other_end] == static_cast<int>(route.transport)) continue;
    ++wrong;
    std::fprintf(stderr, "rank %d: the %s route to rank %d is %s here, %d there\n", rank,
                 route.direction.c_str(), route.peer,
                 std::string(to_string(route.transport)).c_str(), all[other_end]);
  }
  return wrong;
}

// The node of `plan` named `name`; throws when there is none.
std::size_t node_named(const FramePlan& plan, const std::string& name) {
  for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
    if (plan.node(i).name() == name) return i;
  }
  throw Error(fmt::format("the plan has no node '{}'", name));
}

// Whether node `later` of `plan` runs after node `earlier` on every executor: one of its
// dependencies, or theirs, is `earlier`.
bool runs_after(const FramePlan& plan, std::size_t earlier, std::size_t later) {
  const auto dependencies = plan.dependencies();
  std::vector<bool> seen(dependencies.size(), false);
  std::vector<std::size_t> open = dependencies[later];
  while (!open.empty()) {
    const std::size_t node = open.back();
    open.pop_back();
    if (node == earlier) return true;
    if (seen[node]) continue;
    seen[node] = true;
    open.insert(open.end(), dependencies[node].begin(), dependencies[node].end());
  }
  return false;
}

// A mixed exchange's chain (docs/architecture.md, "Routes of both kinds in one exchange"): every
// send before either wait (peer_send, then pack, before the exchange host node), the peer receive
// after the host node, and unpack after everything, the self copy included.
long check_mixed_chain(const FramePlan& plan, const ExchangeNodes& names, int rank) {
  const std::string prefix = names.unpack.substr(0, names.unpack.rfind('.'));
  const std::size_t peer_send = node_named(plan, prefix + ".peer_send");
  const std::size_t peer_receive = node_named(plan, prefix + ".peer_receive");
  const std::size_t pack = node_named(plan, names.pack);
  const std::size_t exchange = node_named(plan, names.exchange);
  const std::size_t unpack = node_named(plan, names.unpack);
  std::vector<std::pair<std::size_t, std::size_t>> orders = {
      {peer_send, pack}, {pack, exchange}, {exchange, peer_receive}, {peer_receive, unpack}};
  if (!names.self.empty()) orders.emplace_back(node_named(plan, names.self), unpack);
  long wrong = 0;
  for (const auto& [earlier, later] : orders) {
    if (runs_after(plan, earlier, later)) continue;
    ++wrong;
    std::fprintf(stderr, "rank %d: node '%s' does not run after '%s'\n", rank,
                 plan.node(later).name().c_str(), plan.node(earlier).name().c_str());
  }
  return wrong;
}

// Two exchanges (ids 0 and 1) of two fields each, in one frame, with no order between them.
long check(const Config& c, const Variant& v, ExecutorKind executor, MPI_Comm world, int rank,
           int ranks, bool odd_even_nodes, int& mixed) {
  const auto backend = backend_of(executor);
  DecompositionSpec spec;
  spec.dimensions = c.dimensions;
  spec.global_cells = c.global;
  spec.process_grid = choose_process_grid(world, c.dimensions, {0, 0, 0});
  const Boundary boundary = c.periodic ? Boundary::periodic : Boundary::physical;
  spec.boundary = {boundary, boundary, boundary};
  const CartesianDecomposition grid(spec, ranks, rank);
  const HaloPlan halo =
      make_halo_plan(grid, Stencil{c.shape, c.ghost_width}, c.ghost_width, kFields);
  auto first = make_fields(grid, halo.layout, 0, backend);
  auto second = make_fields(grid, halo.layout, 1, backend);
  const auto options = [&](int id, const char* name) {
    return ExchangeOptions{.exchange_id = id,
                           .timeout = std::chrono::seconds(20),
                           .transport = v.transport,
                           .staging = v.staging,
                           .self_on_device = v.self_on_device,
                           .self_left_to_kernels = {v.x_left_to_kernels, false, false},
                           .name = name,
                           .inline_tables = v.inline_tables};
  };
  HaloExchange<double> exchange_a(halo, world, {first.pointers}, backend, options(0, "a"));
  HaloExchange<double> exchange_b(halo, world, {second.pointers}, backend, options(1, "b"));
  long wrong_routes = check_route_ends(exchange_a.routes(), world, rank, ranks);
  if (odd_even_nodes) {
    const RouteCount count = check_routes(exchange_a.routes(), rank);
    wrong_routes += count.wrong;
    mixed = count.mixed;
  }
  long wrong_axes = 0;
  {
    // remote_axes: the axes of the face messages that travel, no other; and every diagonal
    // message that travels has a marked axis (so the interior split_update cuts never reads it).
    const auto axes = exchange_a.remote_axes();
    std::array<bool, 3> expected{false, false, false};
    for (const HaloMessage& m : halo.messages) {
      const bool travels = m.peer != rank || !v.self_on_device;
      int moving = 0;
      std::size_t along = 0;
      for (std::size_t axis = 0; axis < 3; ++axis) {
        if (m.direction[axis] != 0) {
          ++moving;
          along = axis;
        }
      }
      if (moving == 1 && travels) expected[along] = true;
    }
    for (const HaloMessage& m : halo.messages) {
      const bool travels = m.peer != rank || !v.self_on_device;
      bool marked = false;
      for (std::size_t axis = 0; axis < 3; ++axis) {
        marked = marked || (m.direction[axis] != 0 && axes[axis]);
      }
      if (travels && !marked) ++wrong_axes;
    }
    if (axes != expected) ++wrong_axes;
    if (wrong_axes != 0) {
      std::fprintf(stderr, "rank %d: remote_axes %d%d%d, faces that travel %d%d%d\n", rank, axes[0],
                   axes[1], axes[2], expected[0], expected[1], expected[2]);
    }
  }
  FramePlan plan("exchange check");
  const ExchangeNodes nodes_a = exchange_a.add_to(plan);
  exchange_b.add_to(plan);
  if (mixed != 0) wrong_routes += check_mixed_chain(plan, nodes_a, rank);
  Frame frame(std::move(plan), executor, {.handoff = v.handoff});
  // The peer transport alternates slots and counts frames: several, each with new values.
  const int rounds = v.transport == Transport::peer ? 3 : 1;
  long wrong = wrong_axes + wrong_routes;
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) {
      first = make_fields(grid, halo.layout, 0, backend, round, std::move(first));
      second = make_fields(grid, halo.layout, 1, backend, round, std::move(second));
    }
    frame.run();
    wrong += count_wrong(c, v, grid, halo.layout, 0, first, round) +
             count_wrong(c, v, grid, halo.layout, 1, second, round);
  }
  return wrong;
}

int run_checks(ExecutorKind executor, Transport transport, int rank, int ranks,
               bool odd_even_nodes) {
  std::vector<Config> configs;
  for (const int dimensions : {1, 2, 3}) {
    const Index3 global = dimensions == 1   ? Index3{17, 1, 1}
                          : dimensions == 2 ? Index3{13, 11, 1}
                                            : Index3{9, 7, 6};
    for (const auto shape : {StencilShape::star, StencilShape::box}) {
      for (const bool periodic : {true, false}) {
        for (const int ghost : {1, 2})
          configs.push_back({dimensions, shape, periodic, ghost, global});
      }
    }
  }
  long failures = 0;
  std::size_t checks = 0;
  std::size_t mixed_checks = 0;
  for (const auto& variant : variants_for(executor, transport)) {
    for (const auto& config : configs) {
      int mixed = 0;
      const long wrong =
          check(config, variant, executor, MPI_COMM_WORLD, rank, ranks, odd_even_nodes, mixed);
      long total = 0;
      HALOFLOW_MPI(MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), "results");
      int mixed_somewhere = 0;
      HALOFLOW_MPI(MPI_Allreduce(&mixed, &mixed_somewhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
                   "results");
      mixed_checks += static_cast<std::size_t>(mixed_somewhere);
      if (rank == 0) {
        std::printf("%-45s %-32s %s\n", describe(config).c_str(), describe(variant).c_str(),
                    total == 0 ? "ok" : fmt::format("{} wrong cells", total).c_str());
      }
      failures += total != 0 ? 1 : 0;
      ++checks;
    }
  }
  if (rank == 0) {
    std::printf("mpi exchange check (%s executor, %d ranks): %zu passed, %ld failed\n",
                std::string(to_string(executor)).c_str(), ranks, checks - failures, failures);
    if (odd_even_nodes) {
      std::printf("ranks on two nodes by parity: %zu of %zu checks mixed peer and mpi routes\n",
                  mixed_checks, checks);
    }
  }
  return failures == 0 ? 0 : 1;
}

// Rank `skip` never joins the exchange; every other rank must report it within `timeout`.
int run_timeout(ExecutorKind executor, Handoff handoff, Transport transport, int rank, int ranks,
                int skip, double timeout) {
  DecompositionSpec spec;
  spec.dimensions = 1;
  spec.global_cells = {8L * ranks, 1, 1};
  spec.process_grid = {ranks, 1, 1};
  const CartesianDecomposition grid(spec, ranks, rank);
  const HaloPlan halo = make_halo_plan(grid, Stencil{}, 1, kFields);
  auto fields = make_fields(grid, halo.layout, 0, backend_of(executor));
  HaloExchange<double> exchange(
      halo, MPI_COMM_WORLD, {fields.pointers}, backend_of(executor),
      {.timeout = std::chrono::duration<double>(timeout), .transport = transport});
  FramePlan plan("timeout check");
  exchange.add_to(plan);
  Frame frame(std::move(plan), executor, {.handoff = handoff});
  if (rank == skip) {
    std::this_thread::sleep_for(std::chrono::duration<double>(4 * timeout + 5));
    return 0;  // only reached if nobody aborted: the others failed to notice
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    frame.run();
  } catch (const Error& error) {
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "%s\nrank %d: failed after %.2f s (bound %.2f s)\n", error.what(), rank,
                 took, timeout);
    std::fflush(stderr);
    // Let mpiexec forward the message before the abort tears the job down.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    MPI_Abort(MPI_COMM_WORLD, 3);  // the peer never answers: ending the run is the only option
  }
  std::fprintf(stderr, "rank %d: the exchange completed although rank %d never took part\n", rank,
               skip);
  return 1;
}

}  // namespace

// Ranks that share a GPU: an nccl exchange must refuse, saying why, on every rank.
int run_refusal(int rank, int ranks) {
  DecompositionSpec spec;
  spec.dimensions = 1;
  spec.global_cells = {8L * ranks, 1, 1};
  spec.process_grid = {ranks, 1, 1};
  const CartesianDecomposition grid(spec, ranks, rank);
  const HaloPlan halo = make_halo_plan(grid, Stencil{}, 1, kFields);
  auto fields = make_fields(grid, halo.layout, 0, Backend::cuda);
  try {
    HaloExchange<double> exchange(
        halo, MPI_COMM_WORLD, {fields.pointers}, Backend::cuda,
        {.timeout = std::chrono::seconds(20), .transport = Transport::nccl});
  } catch (const Error& error) {
    std::printf("rank %d: refused: %s\n", rank, error.what());
    return std::string(error.what()).find("needs one GPU per rank") != std::string::npos ? 0 : 1;
  }
  std::printf("rank %d: an nccl exchange was made although ranks share a GPU\n", rank);
  return 1;
}

int main(int argc, char** argv) {
  std::string executor_name = "host";
  std::string transport_name = "mpi";
  bool expect_refusal = false;
  int skip = -1;
  double timeout = 1.0;
  std::string handoff_name = "auto";
  std::string nodes = "one";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--handoff") == 0) handoff_name = argv[i + 1];
    if (std::strcmp(argv[i], "--transport") == 0) transport_name = argv[i + 1];
    if (std::strcmp(argv[i], "--expect-refusal") == 0) expect_refusal = std::atoi(argv[i + 1]) != 0;
    if (std::strcmp(argv[i], "--executor") == 0) executor_name = argv[i + 1];
    if (std::strcmp(argv[i], "--skip-rank") == 0) skip = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--timeout") == 0) timeout = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--nodes") == 0) nodes = argv[i + 1];
  }
  std::optional<MpiSession> session;  // outlives the handler below, which may need MPI_Abort
  try {
    const MpiSession& mpi = session.emplace(&argc, &argv);
    const auto executor = executor_from_string(executor_name);
    if (!executor) throw Error(fmt::format("--executor {}: unknown executor", executor_name));
    const auto placement = place_rank_on_device(MPI_COMM_WORLD);
    if (*executor != ExecutorKind::host && placement.device < 0) {
      if (mpi.world_rank() == 0) std::puts("no CUDA device: GPU exchange checks skipped");
      return 77;
    }
    if (nodes != "one" && nodes != "odd-even") {
      throw Error(fmt::format("--nodes {}: expected odd-even (or one, the default)", nodes));
    }
    const bool odd_even_nodes = nodes == "odd-even";
    const auto handoff = handoff_from_string(handoff_name);
    if (!handoff) throw Error(fmt::format("--handoff {}: unknown handoff", handoff_name));
    const auto transport = transport_from_string(transport_name);
    if (!transport) throw Error(fmt::format("--transport {}: unknown transport", transport_name));
    if (*transport == Transport::nccl && placement.device >= 0) {
      const bool shared = placement.local_size > placement.devices;
      if (expect_refusal) return run_refusal(mpi.world_rank(), mpi.world_size());
      if (shared) {
        if (mpi.world_rank() == 0) {
          std::printf("%d ranks share %d GPU(s): the nccl checks need one GPU per rank; skipped\n",
                      placement.local_size, placement.devices);
        }
        return 77;
      }
    }
    if (skip >= 0) {
      return run_timeout(*executor, *handoff, *transport, mpi.world_rank(), mpi.world_size(), skip,
                         timeout);
    }
    return run_checks(*executor, *transport, mpi.world_rank(), mpi.world_size(), odd_even_nodes);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "haloflow_mpi_check: %s\n", error.what());
    if (session) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}
