// The exchange benchmark: a 2D field of nx x nx cells per rank, split along y, a 5-point stencil
// with a 1-cell halo, ping-pong buffers swapped by patching every step. Prints the frame time,
// the interior alone, the communication chain alone and the fraction of the chain hidden, each
// launched and waited for one at a time (medians), and the same frames launched back to back
// (means per frame: what a time-stepping loop sees).
//   mpiexec -n 2 haloflow_halo_bench [--cells 16384] [--rows N] [--frames 200] [--executor graph]
//       [--handoff auto|host-node|proxy] [--staging auto|copies|mapped]
//       [--transport auto|mpi|nccl|peer]
//       [--self-exchange device|mpi]   (mpi: one rank sends its halos to itself through the
//                          transport)
//       [--tables inline|device]   (the halo kernels' segments and field pointers in their
//                          parameters, the default, or in device memory: what inlining saves)
//       [--x-boundary periodic|physical]   (periodic, the default: every rank is also its own
//                          neighbour along x, so it exchanges four halos, two of them columns;
//                          physical: only the two rows along y, what a rank of a 1D split has)
//       [--breakdown 1]   (also the pieces of the chain alone: two tiny kernels, the same with a
//                          no-op host node between them under each handoff, the exchange alone;
//                          each the median of 5 rounds of --frames frames back to back)
//       [--cuda-dot FILE] (graph executor: rank 0 writes the chain's CUDA graph as CUDA prints
//                          it, child graphs included: what a library captured into it, NCCL's)

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/graph_dot.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/ranks.hpp"
#include "stencil_kernels.hpp"

using namespace haloflow;

namespace {

struct Options {
  std::int64_t cells = 16384;
  std::int64_t rows = 0;  //!< rows per rank; 0: as many as cells (a square)
  int frames = 200;
  int warmup = 20;
  std::string executor = "graph";
  std::string handoff = "auto";
  std::string staging = "auto";
  std::string transport = "auto";
  std::string self_exchange = "device";
  std::string x_boundary = "periodic";
  std::string tables = "inline";  //!< ExchangeOptions::inline_tables: "inline" or "device"
  bool breakdown = false;
  std::string cuda_dot;  //!< where rank 0 writes the chain's CUDA graph (graph executor)
};

Staging staging_from(const std::string& text) {
  if (text == "auto") return Staging::automatic;
  if (text == "copies") return Staging::copies;
  if (text == "mapped") return Staging::mapped;
  throw Error(fmt::format("--staging {}: expected auto, copies or mapped", text));
}

std::string_view staging_name(Staging staging) {
  return staging == Staging::mapped ? "mapped" : staging == Staging::copies ? "copies" : "auto";
}

int run(const Options& options, int rank, int ranks) {
  const auto executor = *executor_from_string(options.executor);
  const auto backend = backend_of(executor);
  DecompositionSpec spec;
  spec.dimensions = 2;
  const std::int64_t rows = options.rows > 0 ? options.rows : options.cells;
  spec.global_cells = {options.cells, rows * ranks, 1};
  spec.process_grid = {1, ranks, 1};
  if (options.x_boundary != "periodic" && options.x_boundary != "physical") {
    throw Error(fmt::format("--x-boundary {}: expected periodic or physical", options.x_boundary));
  }
  const Boundary x_boundary =
      options.x_boundary == "periodic" ? Boundary::periodic : Boundary::physical;
  spec.boundary = {x_boundary, Boundary::periodic, Boundary::periodic};
  const CartesianDecomposition grid(spec, ranks, rank);
  const Stencil stencil{StencilShape::star, 1};
  const HaloPlan halo = make_halo_plan(grid, stencil, 1, 1);
  const auto& layout = halo.layout;
  const auto bytes = static_cast<std::size_t>(layout.field_elements()) * sizeof(double);
  Buffer a(Memory::device, bytes, "a", backend);
  Buffer b(Memory::device, bytes, "b", backend);
  {
    std::vector<double> values(static_cast<std::size_t>(layout.field_elements()));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = 1.0 + 1e-6 * static_cast<double>(i % 1000);
    a.upload(values.data(), bytes);
    b.upload(values.data(), bytes);
  }
  if (options.self_exchange != "device" && options.self_exchange != "mpi") {
    throw Error(fmt::format("--self-exchange {}: expected device or mpi", options.self_exchange));
  }
  const auto transport = transport_from_string(options.transport);
  if (!transport) {
    throw Error(fmt::format("--transport {}: expected auto, mpi, nccl or peer", options.transport));
  }
  const auto handoff = handoff_from_string(options.handoff);
  if (!handoff) {
    throw Error(fmt::format("--handoff {}: expected auto, host-node or proxy", options.handoff));
  }
  if (options.tables != "inline" && options.tables != "device") {
    throw Error(fmt::format("--tables {}: expected inline or device", options.tables));
  }
  HaloExchange<double> exchange(halo, MPI_COMM_WORLD, {{a.as<double>()}, {b.as<double>()}}, backend,
                                {.timeout = std::chrono::seconds(30),
                                 .transport = *transport,
                                 .staging = staging_from(options.staging),
                                 .self_on_device = options.self_exchange == "device",
                                 .inline_tables = options.tables == "inline"});
  const CellSplit split = split_owned_cells(layout, stencil);
  const std::int64_t stride = layout.extent()[0];

  FramePlan plan("stencil");
  const auto average = kernels::average5();
  const auto nodes = exchange.add_to(plan);
  const auto interior = plan.add_kernel(
      {.name = "interior"}, average,
      LaunchShape::cover(static_cast<std::size_t>(split.interior.volume()), 256),
      static_cast<std::size_t>(split.interior.volume()), kernels::box2_of(split.interior, stride),
      a.as<const double>(), b.as<double>());
  std::vector<KernelNode<std::size_t, kernels::Box2, const double*, double*>> boundary;
  for (std::size_t i = 0; i < split.boundary.size(); ++i) {
    const auto cells = static_cast<std::size_t>(split.boundary[i].volume());
    boundary.push_back(plan.add_kernel({.name = fmt::format("boundary{}", i),
                                        .lane = Lane::communication,
                                        .after = {nodes.unpack}},
                                       average, LaunchShape::cover(cells, 256), cells,
                                       kernels::box2_of(split.boundary[i], stride),
                                       a.as<const double>(), b.as<double>()));
  }
  const FrameOptions frame_options{.handoff = *handoff};
  Frame full(plan, executor, frame_options);
  Frame interior_only(plan.only(Lane::bulk), executor, frame_options);
  Frame chain_only(plan.only(Lane::communication), executor, frame_options);
  if (!options.cuda_dot.empty() && rank == 0) write_cuda_graph_dot(chain_only, options.cuda_dot);

  // One step: read `from`, write `to`, after exchanging `from`'s halo; then the roles swap.
  // A lane-only frame holds some of these nodes; each is patched where it exists.
  const auto patch = [&](Frame& frame, int step) {
    const bool even = step % 2 == 0;
    const double* from = even ? a.as<const double>() : b.as<const double>();
    double* to = even ? b.as<double>() : a.as<double>();
    const auto has = [&](const std::string& name) { return frame.plan().find(name).has_value(); };
    if (has(nodes.pack)) exchange.use_field_set(frame, even ? 0 : 1);
    if (has(interior.name)) {
      frame.update(interior, static_cast<std::size_t>(split.interior.volume()),
                   kernels::box2_of(split.interior, stride), from, to);
    }
    for (std::size_t i = 0; i < boundary.size(); ++i) {
      if (!has(boundary[i].name)) continue;
      frame.update(boundary[i], static_cast<std::size_t>(split.boundary[i].volume()),
                   kernels::box2_of(split.boundary[i], stride), from, to);
    }
  };
  using Clock = std::chrono::steady_clock;
  const auto timed = [&](Frame& frame, int step) {
    patch(frame, step);
    HALOFLOW_MPI(MPI_Barrier(MPI_COMM_WORLD), "benchmark");  // ranks start each frame together
    const auto start = Clock::now();
    frame.run();
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  };
  std::vector<double> full_us, interior_us, chain_us;
  for (int step = 0; step < options.warmup + options.frames; ++step) {
    const double f = timed(full, step);
    const double i = timed(interior_only, step);
    const double c = timed(chain_only, step);
    if (step < options.warmup) continue;
    full_us.push_back(f);
    interior_us.push_back(i);
    chain_us.push_back(c);
  }
  // Back to back: `frames` launches of one frame, patched as a time-stepping loop patches them,
  // then one wait; the mean per frame.
  const auto pipelined = [&](Frame& frame) {
    HALOFLOW_MPI(MPI_Barrier(MPI_COMM_WORLD), "benchmark");
    const auto start = Clock::now();
    for (int step = 0; step < options.frames; ++step) {
      patch(frame, step);
      frame.launch();
    }
    frame.wait();
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / options.frames;
  };
  (void)pipelined(chain_only);  // the first run of each pays for its thread and queues
  const double back_to_back[3] = {pipelined(full), pipelined(interior_only), pipelined(chain_only)};
  const double frame = median(full_us);
  const double inside = median(interior_us);
  const double chain = median(chain_us);
  double mine[6] = {frame, inside, chain, back_to_back[0], back_to_back[1], back_to_back[2]};
  double slowest[6] = {};
  HALOFLOW_MPI(MPI_Reduce(mine, slowest, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "results");
  if (rank == 0) {
    std::printf(
        "halo bench: %d ranks, %lld x %lld cells per rank, face %lld cells (%lld bytes per "
        "message), %zu messages per rank (x boundary %s), %s executor, %s transport, handoff %s, "
        "staging %s, self exchange %s, tables %s, %d frames\n"
        "frame %.1f us, interior alone %.1f us, communication chain alone %.1f us, chain hidden "
        "%.1f %% (slowest rank: frame %.1f, interior %.1f, chain %.1f)\n"
        "back to back, per frame: frame %.1f us, interior alone %.1f us, communication chain "
        "alone %.1f us (slowest rank)\n",
        ranks, static_cast<long long>(options.cells), static_cast<long long>(rows),
        static_cast<long long>(options.cells), static_cast<long long>(options.cells * 8),
        exchange.remote_messages(), options.x_boundary.c_str(), options.executor.c_str(),
        std::string(to_string(exchange.transport())).c_str(), options.handoff.c_str(),
        std::string(staging_name(exchange.staging())).c_str(), options.self_exchange.c_str(),
        exchange.tables_inline() ? "inline" : "device", options.frames, frame, inside, chain,
        100 * hidden_fraction(frame, inside, chain), slowest[0], slowest[1], slowest[2], slowest[3],
        slowest[4], slowest[5]);
  }
  if (options.breakdown) {
    // The chain's pieces, each frame alone and back to back (no patching): what a handoff and
    // the exchange's own nodes cost beyond two dependent kernels.
    const auto tiny = [&](FramePlan& p, const std::string& name, std::vector<std::string> after) {
      p.add_kernel({.name = name, .lane = Lane::communication, .after = std::move(after)}, average,
                   LaunchShape::fixed(1, 32), std::size_t{1},
                   kernels::Box2{.x0 = 1, .y0 = 1, .nx = 1, .stride = stride}, a.as<const double>(),
                   b.as<double>());
    };
    // The median of kRounds rounds' means: one round of a few thousand frames varies by about
    // 1 us from run to run on an H200, as much as the pieces differ.
    constexpr int kRounds = 5;
    const auto queued = [&](Frame& f) {
      for (int step = 0; step < options.warmup; ++step) f.launch();
      f.wait();
      std::vector<double> means;
      for (int round = 0; round < kRounds; ++round) {
        const auto start = Clock::now();
        for (int step = 0; step < options.frames; ++step) f.launch();
        f.wait();
        means.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                        options.frames);
      }
      return median(means);
    };
    FramePlan kernels_only("two kernels");
    tiny(kernels_only, "k1", {});
    tiny(kernels_only, "k2", {"k1"});
    FramePlan with_host("kernel, host node, kernel");
    tiny(with_host, "k1", {});
    with_host.add_host({.name = "host", .lane = Lane::communication, .after = {"k1"}}, [] {});
    tiny(with_host, "k2", {"host"});
    FramePlan exchange_plan("exchange alone");
    exchange.add_to(exchange_plan);
    Frame two(kernels_only, executor);
    Frame proxied(with_host, executor, {.handoff = Handoff::proxy});
    Frame host_node(with_host, executor, {.handoff = Handoff::host_node});
    Frame exchange_alone(exchange_plan, executor, frame_options);
    double pieces[4] = {queued(two), queued(proxied), queued(host_node), queued(exchange_alone)};
    double slowest_pieces[4] = {};
    HALOFLOW_MPI(MPI_Reduce(pieces, slowest_pieces, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
                 "results");
    if (rank == 0) {
      std::printf(
          "breakdown, back to back, per frame (median of 5 rounds): two tiny kernels %.1f us; "
          "with a no-op host node "
          "between them: proxy %.1f us, host node %.1f us; the exchange alone (pack .. unpack, "
          "handoff %s) %.1f us\n",
          slowest_pieces[0], slowest_pieces[1], slowest_pieces[2], options.handoff.c_str(),
          slowest_pieces[3]);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--cells") == 0) options.cells = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--rows") == 0) options.rows = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--frames") == 0) options.frames = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--executor") == 0) options.executor = argv[i + 1];
    if (std::strcmp(argv[i], "--handoff") == 0) options.handoff = argv[i + 1];
    if (std::strcmp(argv[i], "--staging") == 0) options.staging = argv[i + 1];
    if (std::strcmp(argv[i], "--transport") == 0) options.transport = argv[i + 1];
    if (std::strcmp(argv[i], "--self-exchange") == 0) options.self_exchange = argv[i + 1];
    if (std::strcmp(argv[i], "--x-boundary") == 0) options.x_boundary = argv[i + 1];
    if (std::strcmp(argv[i], "--tables") == 0) options.tables = argv[i + 1];
    if (std::strcmp(argv[i], "--breakdown") == 0) options.breakdown = std::atoi(argv[i + 1]) != 0;
    if (std::strcmp(argv[i], "--cuda-dot") == 0) options.cuda_dot = argv[i + 1];
  }
  std::optional<MpiSession> mpi;  // outlives the handler below, which may need MPI_Abort
  try {
    mpi.emplace(&argc, &argv);
    if (!executor_from_string(options.executor)) {
      throw Error(
          fmt::format("--executor {}: expected graph, streams, serial or host", options.executor));
    }
    (void)place_rank_on_device(MPI_COMM_WORLD);
    return run(options, mpi->world_rank(), mpi->world_size());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "haloflow_halo_bench: %s\n", error.what());
    if (mpi && mpi->world_size() > 1) MPI_Abort(MPI_COMM_WORLD, 1);  // peers may wait on us
  }
  return 1;
}
