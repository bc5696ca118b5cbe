// 2D linear advection, u_t + cx u_x + cy u_y = 0, first-order upwind on a periodic grid, written
// the way a solver team would embed haloflow: their own per-cell update, their own fields and MPI
// set-up. haloflow builds the overlapped timestep (interior while the halo travels, then the
// boundary) and replays it. docs/embedding.md walks through this file; the `snippet` comments
// mark what it quotes.
//
//   advection2d [--executor auto|host|graph|streams|serial[,...]] [--steps N] [--record N]
//               [--transport mpi|nccl] [--handoff proxy|host-node]
//               [--self-exchange device|transport]
// (--transport and --self-exchange apply to the GPU executors; the host executor always uses MPI.
// With --self-exchange transport, a rank that is its own neighbour sends itself its halos through
// the transport instead of copying them on the device: NCCL on one GPU.)
//
// Each executor named runs the same frame; rank 0 compares the result with a serial computation
// and, when several run, with the first one's, bit for bit. Exit 0: all equal; 1: a difference or
// an error; 77: a GPU executor asked for without a GPU (ctest: skipped).

// snippet-begin: include
#include <haloflow/haloflow.hpp>
// snippet-end: include
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "options.hpp"

namespace {

constexpr long kNx = 256;  // global cells
constexpr long kNy = 192;
constexpr double kCx = 1.0;  // velocity
constexpr double kCy = 0.5;
constexpr double kCfl = 0.4;  // |cx| dt/dx + |cy| dt/dy

// snippet-begin: operation
// The cells one launch updates (a box of the local field, ghosts included in `stride`) and the
// scheme's coefficients: plain structs, passed to the kernel by value.
struct Region {
  long x0, y0, nx, ny, stride;
};
struct Upwind {
  double ax, ay;  // cx dt/dx and cy dt/dy, both positive: upwind is the lower neighbour
};

// The update of one cell, written once: nvcc compiles it for the GPU kernel and for its host
// twin, which the host executor runs (HALOFLOW_HD is __host__ __device__ under nvcc).
struct UpwindStep {
  static HALOFLOW_HD void apply(std::size_t cell, Region r, Upwind c, const double* u,
                                double* u_new) {
    const long i = r.x0 + static_cast<long>(cell) % r.nx;
    const long j = r.y0 + static_cast<long>(cell) / r.nx;
    const long at = i + r.stride * j;
    u_new[at] = u[at] - c.ax * (u[at] - u[at - 1]) - c.ay * (u[at] - u[at - r.stride]);
  }
};
// snippet-end: operation

Region region_of(const haloflow::Box& box, long stride) {
  return {box.lo[0], box.lo[1], box.hi[0] - box.lo[0], box.hi[1] - box.lo[1], stride};
}

std::size_t cells_of(const Region& r) {
  return static_cast<std::size_t>(r.nx * r.ny);
}

double initial(long gx, long gy) {
  const double x = (gx + 0.5) / kNx - 0.3;
  const double y = (gy + 0.5) / kNy - 0.5;
  return std::exp(-60.0 * (x * x + y * y));
}

const Upwind kUpwind{kCx * kCfl / (kCx + kCy), kCy* kCfl / (kCx + kCy)};

// The same scheme on the whole grid in one process, without haloflow: the reference.
std::vector<double> serial_reference(int steps) {
  const long stride = kNx + 2;
  std::vector<double> u((kNx + 2) * (kNy + 2)), next(u.size());
  for (long y = 0; y < kNy; ++y) {
    for (long x = 0; x < kNx; ++x) u[(x + 1) + stride * (y + 1)] = initial(x, y);
  }
  const Region all{1, 1, kNx, kNy, stride};
  for (int step = 0; step < steps; ++step) {
    for (long y = 1; y <= kNy; ++y) {  // periodic ghosts
      u[stride * y] = u[kNx + stride * y];
      u[(kNx + 1) + stride * y] = u[1 + stride * y];
    }
    for (long x = 0; x < kNx + 2; ++x) {
      u[x] = u[x + stride * kNy];
      u[x + stride * (kNy + 1)] = u[x + stride];
    }
    for (std::size_t cell = 0; cell < cells_of(all); ++cell)
      UpwindStep::apply(cell, all, kUpwind, u.data(), next.data());
    u.swap(next);
  }
  std::vector<double> owned(kNx * kNy);
  for (long y = 0; y < kNy; ++y) {
    for (long x = 0; x < kNx; ++x) owned[x + kNx * y] = u[(x + 1) + stride * (y + 1)];
  }
  return owned;
}

// Rank 0 receives every rank's owned cells and places them in the global grid (empty elsewhere).
std::vector<double> gather(MPI_Comm comm, const haloflow::CartesianDecomposition& grid,
                           const std::vector<double>& mine) {
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<int> counts(ranks), displacements(ranks);
  const int count = static_cast<int>(mine.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  for (int r = 1; r < ranks; ++r) displacements[r] = displacements[r - 1] + counts[r - 1];
  std::vector<double> pieces(rank == 0 ? kNx * kNy : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, pieces.data(), counts.data(), displacements.data(),
              MPI_DOUBLE, 0, comm);
  std::vector<double> global(pieces.size());
  for (int r = 0; r < ranks && rank == 0; ++r) {
    const auto cells = grid.local_cells_of(r);
    const auto origin = grid.global_offset_of(r);
    for (long y = 0; y < cells[1]; ++y) {
      for (long x = 0; x < cells[0]; ++x) {
        global[(origin[0] + x) + kNx * (origin[1] + y)] =
            pieces[displacements[r] + x + cells[0] * y];
      }
    }
  }
  return global;
}

// snippet-begin: travel
// NCCL moves the halos between device buffers inside the frame's graph (one GPU per rank); peer
// stores them straight into a same-node neighbour's memory (on the host executor through an MPI
// shared-memory window); MPI stages them through pinned host memory. NCCL needs a GPU, so the
// host executor takes MPI for it. Either way the results are the same, bit for bit.
haloflow::ExchangeOptions exchange_options(haloflow::ExecutorKind executor, const Travel& travel) {
  const bool gpu = executor != haloflow::ExecutorKind::host;
  const bool runs_here = gpu || travel.transport != haloflow::Transport::nccl;
  return {.transport = runs_here ? travel.transport : haloflow::Transport::mpi,
          .self_on_device = travel.self_on_device || !gpu};
}
// snippet-end: travel

// Runs `steps` frames of the scheme on `executor`; returns the global field on rank 0.
std::vector<double> advect(MPI_Comm comm, haloflow::ExecutorKind executor, int steps, int record,
                           Travel travel, bool edges_by_hand) {
  // snippet-begin: grid
  haloflow::DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {kNx, kNy, 1};  // periodic on every axis unless spec.boundary says otherwise
  const haloflow::CartesianDecomposition grid = haloflow::decompose(comm, spec);
  const haloflow::Stencil stencil{haloflow::StencilShape::star, 1};  // reads 4 neighbours
  const haloflow::HaloPlan halo = haloflow::make_halo_plan(grid, stencil, /*ghost width*/ 1,
                                                           /*fields*/ 1);
  const haloflow::FieldLayout& layout = halo.layout;  // x fastest, owned cells at [1, n+1)
  const haloflow::CellSplit split = haloflow::split_owned_cells(layout, stencil);
  // snippet-end: grid

  // snippet-begin: fields
  // Device memory for the GPU executors, plain host memory for the host executor: the same code.
  const haloflow::Backend backend = haloflow::backend_of(executor);
  const auto bytes = static_cast<std::size_t>(layout.field_elements()) * sizeof(double);
  haloflow::Buffer u(haloflow::Memory::device, bytes, "u", backend);
  haloflow::Buffer u_new(haloflow::Memory::device, bytes, "u_new", backend);
  std::vector<double> host(bytes / sizeof(double), 0.0);
  const auto origin = grid.global_offset();
  for (long y = 0; y < layout.owned[1]; ++y) {
    for (long x = 0; x < layout.owned[0]; ++x)
      host[layout.offset(x + 1, y + 1, 0)] = initial(origin[0] + x, origin[1] + y);
  }
  u.upload(host.data(), bytes);
  u_new.upload(host.data(), bytes);  // its ghosts are never read before the exchange fills them
  // snippet-end: fields

  // snippet-begin: frame
  // Exchange u's halo while the interior advances, then update the boundary cells. Two field
  // sets, {u} and {u_new}, so that the exchange follows the ping-pong. Each node says which cells
  // it reads and writes; the plan derives the edges from that (the boundary slabs read ghosts
  // the unpack writes, so they run after it; the interior reads none, so it overlaps the
  // exchange).
  haloflow::HaloExchange<double> exchange(halo, comm, {{u.as<double>()}, {u_new.as<double>()}},
                                          backend, exchange_options(executor, travel));
  const auto kernel =
      haloflow::per_cell_kernel<UpwindStep, Region, Upwind, const double*, double*>("upwind");
  const long stride = layout.extent()[0];
  // Explicit edges still work: with --edges strict the boundary slabs also name the unpack, and
  // the plan refuses to build if those edges leave any access unordered.
  haloflow::FramePlan plan("advection",
                           edges_by_hand ? haloflow::EdgeRule::strict : haloflow::EdgeRule::derive);
  plan.name_field(u.data(), "u");  // for messages about accesses
  plan.name_field(u_new.data(), "u_new");
  const auto upwind = [&](const haloflow::Box& box) -> std::vector<haloflow::Access> {
    return {haloflow::reads(u.as<const double>(), haloflow::grown(box, {1, 1, 0})),
            haloflow::writes(u_new.as<double>(), box)};
  };
  const haloflow::ExchangeNodes nodes = exchange.add_to(plan);
  const Region inner = region_of(split.interior, stride);
  const auto interior = plan.add_kernel(
      {.name = "interior", .lane = haloflow::Lane::bulk, .access = upwind(split.interior)}, kernel,
      haloflow::LaunchShape::cover(cells_of(inner), 256), cells_of(inner), inner, kUpwind,
      u.as<const double>(), u_new.as<double>());
  std::vector<Region> edges;
  std::vector<haloflow::KernelNode<std::size_t, Region, Upwind, const double*, double*>> boundary;
  for (const haloflow::Box& box : split.boundary) {
    const Region edge = edges.emplace_back(region_of(box, stride));
    boundary.push_back(plan.add_kernel(
        {.name = "boundary" + std::to_string(boundary.size()),
         .lane = haloflow::Lane::communication,
         .after = edges_by_hand ? std::vector{nodes.unpack} : std::vector<std::string>{},
         .access = upwind(box)},
        kernel, haloflow::LaunchShape::cover(cells_of(edge), 128), cells_of(edge), edge, kUpwind,
        u.as<const double>(), u_new.as<double>()));
  }
  // snippet-end: frame

  // snippet-begin: recorder
  // Optional: when every node ran (wall clock on the host, CUPTI on the GPU). Made before the
  // Frame, as the graph executor needs.
  std::optional<haloflow::FrameRecorder> recorder;
  if (record > 0) recorder.emplace(executor, grid.rank());
  // snippet-end: recorder

  // snippet-begin: step-loop
  haloflow::Frame frame(std::move(plan), executor, {.handoff = travel.handoff});
  for (int step = 0; step < steps; ++step) {
    const bool even = step % 2 == 0;
    const double* from = (even ? u : u_new).as<const double>();
    double* to = (even ? u_new : u).as<double>();
    exchange.use_field_set(frame, even ? 0 : 1);  // which buffer's halo to exchange
    frame.update(interior, cells_of(inner), inner, kUpwind, from, to);  // next launch only
    for (std::size_t b = 0; b < boundary.size(); ++b)
      frame.update(boundary[b], cells_of(edges[b]), edges[b], kUpwind, from, to);
    frame.launch();  // on the frame's own stream; frame.launch(stream) after your own work
  }
  frame.wait();  // reports a failed host node (an exchange that timed out) once
  // snippet-end: step-loop

  const haloflow::Buffer& result = steps % 2 == 0 ? u : u_new;
  result.download(host.data(), bytes);
  std::vector<double> mine;
  for (long y = 0; y < layout.owned[1]; ++y) {
    for (long x = 0; x < layout.owned[0]; ++x) mine.push_back(host[layout.offset(x + 1, y + 1, 0)]);
  }
  std::vector<double> global = gather(comm, grid, mine);

  if (recorder) {
    // snippet-begin: record
    recorder->attach(frame);
    recorder->start();
    for (int f = 0; f < record; ++f) {
      recorder->frame_begins();
      frame.run();  // the same frame again: these steps are not part of the result above
      recorder->frame_ends();
    }
    const haloflow::Trace trace = recorder->stop();
    const haloflow::OverlapReport report = haloflow::analyze(trace);
    // Files a user opens: Perfetto or chrome://tracing, and a browser.
    const std::string stem = "advection2d-rank" + std::to_string(grid.rank());
    haloflow::write_chrome_trace(stem + "-trace.json", {trace});
    haloflow::write_svg_timeline(stem + "-timeline.svg", {trace});
    // snippet-end: record
    if (grid.rank() == 0) {
      std::printf(
          "advection2d: %s executor, %d frames recorded: median frame %.1f us, "
          "communication hidden %.0f %%\n",
          std::string(haloflow::to_string(executor)).c_str(), record, report.frame_us,
          100 * report.hidden);
    }
  }
  return global;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

int run(MPI_Comm comm, const Options& options) {
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::vector<double> reference =
      rank == 0 ? serial_reference(options.steps) : std::vector<double>{};
  std::vector<double> first;
  int status = 0;
  for (const haloflow::ExecutorKind executor : options.executors) {
    const std::vector<double> field = advect(comm, executor, options.steps, options.record,
                                             options.travel, options.edges_by_hand);
    if (rank != 0) continue;
    const std::string name(haloflow::to_string(executor));
    // Same operation in the same order on both sides, and no fused multiply-add on the GPU
    // (CMakeLists.txt): the fields must be equal bit for bit.
    const double worst = max_difference(field, reference);
    std::printf(
        "advection2d: %d ranks, %ldx%ld cells, %d steps, %s executor: max difference "
        "from the serial computation %.2e: %s\n",
        ranks, kNx, kNy, options.steps, name.c_str(), worst, worst == 0 ? "ok" : "WRONG");
    if (worst != 0) status = 1;
    if (first.empty()) {
      first = field;
    } else {
      const double apart = max_difference(field, first);
      std::printf("advection2d: %s executor against the %s executor: max difference %.2e: %s\n",
                  name.c_str(), std::string(haloflow::to_string(options.executors[0])).c_str(),
                  apart, apart == 0 ? "ok" : "WRONG");
      if (apart != 0) status = 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, comm);
  return status;
}

bool wants_gpu(const Options& options) {
  return std::any_of(
      options.executors.begin(), options.executors.end(),
      [](haloflow::ExecutorKind kind) { return kind != haloflow::ExecutorKind::host; });
}

}  // namespace

// snippet-begin: main
int main(int argc, char** argv) {
  // Our own MPI set-up: the graph executor calls MPI from a thread of its own, hence
  // MPI_THREAD_MULTIPLE. haloflow finalises nothing it did not initialise.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int status = 1;
  try {
    // One GPU per node-local rank, before any CUDA work; device -1 without a GPU.
    const haloflow::RankPlacement placement = haloflow::place_rank_on_device(MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // The command line by CLI11 (options.cpp): `--steps abc` is refused, naming both.
    const Parsed parsed = parse_options(argc, argv, placement.device >= 0, rank == 0);
    const std::optional<Options>& options = parsed.options;
    if (!options) {
      status = parsed.status;
    } else if (wants_gpu(*options) && placement.device < 0) {
      std::puts("advection2d: no CUDA device for a GPU executor");
      status = 77;  // ctest: skipped
    } else {
      status = run(MPI_COMM_WORLD, *options);
    }
  } catch (const haloflow::Error& error) {
    std::fprintf(stderr, "advection2d: %s\n", error.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
// snippet-end: main
