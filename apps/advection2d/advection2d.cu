// 2D linear advection, u_t + cx u_x + cy u_y = 0, first-order upwind, periodic, written the way
// a solver developer would: their own fields, their own __global__ kernels, their own MPI and
// CUDA set-up. haloflow only builds and replays the overlapped frame around them.
//
// Checks itself: rank 0 gathers the field and compares it with a plain serial computation.
// Exit 0: matches; 1: differs or failed; 77: no CUDA device (nothing to run).

#include <cuda_runtime.h>
#include <mpi.h>
#include <haloflow/error.hpp>
#include <haloflow/frame.hpp>
#include <haloflow/halo.hpp>
#include <haloflow/halo_exchange.hpp>
#include <haloflow/ranks.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr long kNx = 256;  // global cells
constexpr long kNy = 192;
constexpr int kSteps = 200;
constexpr double kCx = 1.0;  // velocity
constexpr double kCy = 0.5;
constexpr double kCfl = 0.4;  // |cx| dt/dx + |cy| dt/dy

// The part of the field a kernel launch covers, and the coefficients of the scheme.
struct Region {
  long x0, y0, nx, ny, stride;
};
struct Upwind {
  double ax, ay;  // cx dt/dx, cy dt/dy (both positive here: upwind is the lower neighbour)
};

// The update of one cell, shared by the kernel and the serial reference, so both do the same
// arithmetic in the same order.
__host__ __device__ double upwind(const double* u, long index, long stride, Upwind c) {
  return u[index] - c.ax * (u[index] - u[index - 1]) - c.ay * (u[index] - u[index - stride]);
}

__global__ void advect(Region region, Upwind c, const double* u, double* u_new) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const long j = blockIdx.y * static_cast<long>(blockDim.y) + threadIdx.y;
  if (i >= region.nx || j >= region.ny) return;
  const long index = (region.x0 + i) + region.stride * (region.y0 + j);
  u_new[index] = upwind(u, index, region.stride, c);
}

haloflow::LaunchShape shape_for(const Region& r) {
  const unsigned bx = 128;
  const unsigned by = 2;
  return {.grid = {static_cast<unsigned>((r.nx + bx - 1) / bx),
                   static_cast<unsigned>((r.ny + by - 1) / by), 1},
          .block = {bx, by, 1}};
}

Region region_of(const haloflow::Box& box, long stride) {
  return {box.lo[0], box.lo[1], box.hi[0] - box.lo[0], box.hi[1] - box.lo[1], stride};
}

double initial(long gx, long gy) {
  const double x = (gx + 0.5) / kNx - 0.3;
  const double y = (gy + 0.5) / kNy - 0.5;
  return std::exp(-60.0 * (x * x + y * y));
}

// The same scheme on the whole grid, one process, no haloflow.
std::vector<double> serial_reference(Upwind c) {
  const long stride = kNx + 2;
  std::vector<double> u((kNx + 2) * (kNy + 2)), next(u.size());
  for (long y = 0; y < kNy; ++y) {
    for (long x = 0; x < kNx; ++x) u[(x + 1) + stride * (y + 1)] = initial(x, y);
  }
  for (int step = 0; step < kSteps; ++step) {
    for (long y = 1; y <= kNy; ++y) {  // periodic ghosts
      u[stride * y] = u[kNx + stride * y];
      u[(kNx + 1) + stride * y] = u[1 + stride * y];
    }
    for (long x = 0; x < kNx + 2; ++x) {
      u[x] = u[x + stride * kNy];
      u[x + stride * (kNy + 1)] = u[x + stride];
    }
    for (long y = 1; y <= kNy; ++y) {
      for (long x = 1; x <= kNx; ++x)
        next[x + stride * y] = upwind(u.data(), x + stride * y, stride, c);
    }
    u.swap(next);
  }
  std::vector<double> owned(kNx * kNy);
  for (long y = 0; y < kNy; ++y) {
    for (long x = 0; x < kNx; ++x) owned[x + kNx * y] = u[(x + 1) + stride * (y + 1)];
  }
  return owned;
}

#define CHECK_CUDA(call)                                                     \
  do {                                                                       \
    if (const cudaError_t e = (call); e != cudaSuccess) {                    \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                          \
    }                                                                        \
  } while (0)

int run(MPI_Comm comm, int rank, int ranks) {
  // 1. Which part of the grid is ours. haloflow picks the process grid (MPI_Dims_create).
  haloflow::DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {kNx, kNy, 1};
  const haloflow::CartesianDecomposition grid = haloflow::decompose(comm, spec);

  // 2. Our fields, in our own device memory: one ghost layer, x fastest.
  const haloflow::Stencil stencil{haloflow::StencilShape::star, 1};
  const haloflow::HaloPlan halo = haloflow::make_halo_plan(grid, stencil, 1, 1);
  const auto& layout = halo.layout;
  const long stride = layout.extent()[0];
  const auto bytes = static_cast<std::size_t>(layout.field_elements()) * sizeof(double);
  double* u = nullptr;
  double* u_new = nullptr;
  CHECK_CUDA(cudaMalloc(&u, bytes));
  CHECK_CUDA(cudaMalloc(&u_new, bytes));
  std::vector<double> host(static_cast<std::size_t>(layout.field_elements()), 0.0);
  const auto offset = grid.global_offset();
  for (long y = 0; y < layout.owned[1]; ++y) {
    for (long x = 0; x < layout.owned[0]; ++x) {
      host[static_cast<std::size_t>(layout.offset(x + 1, y + 1, 0))] =
          initial(offset[0] + x, offset[1] + y);
    }
  }
  CHECK_CUDA(cudaMemcpy(u, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(u_new, host.data(), bytes, cudaMemcpyHostToDevice));

  // 3. The frame: exchange u's halo while the interior advances, then the boundary cells.
  //    Two field sets, {u} and {u_new}, so the exchange follows the ping-pong.
  haloflow::HaloExchange<double> exchange(halo, comm, {{u}, {u_new}}, haloflow::Backend::cuda);
  const haloflow::CellSplit split = haloflow::split_owned_cells(layout, stencil);
  const Upwind c{kCx * kCfl / (kCx + kCy), kCy * kCfl / (kCx + kCy)};
  const auto kernel = haloflow::device_kernel(&advect, "advect");

  haloflow::FramePlan plan("advection");
  const haloflow::ExchangeNodes nodes = exchange.add_to(plan);
  const Region inner = region_of(split.interior, stride);
  const auto interior =
      plan.add_kernel({.name = "interior", .lane = haloflow::Lane::bulk}, kernel, shape_for(inner),
                      inner, c, static_cast<const double*>(u), u_new);
  std::vector<haloflow::KernelNode<Region, Upwind, const double*, double*>> boundary;
  for (std::size_t b = 0; b < split.boundary.size(); ++b) {
    const Region edge = region_of(split.boundary[b], stride);
    boundary.push_back(plan.add_kernel({.name = "boundary" + std::to_string(b),
                                        .lane = haloflow::Lane::communication,
                                        .after = {nodes.unpack}},
                                       kernel, shape_for(edge), edge, c,
                                       static_cast<const double*>(u), u_new));
  }
  haloflow::Frame frame(std::move(plan), haloflow::ExecutorKind::graph);

  // 4. The step loop: patch which buffer is read and which written, launch on our stream.
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  for (int step = 0; step < kSteps; ++step) {
    const bool even = step % 2 == 0;
    const double* from = even ? u : u_new;
    double* to = even ? u_new : u;
    exchange.use_field_set(frame, even ? 0 : 1);
    frame.update(interior, inner, c, from, to);
    for (std::size_t b = 0; b < boundary.size(); ++b) {
      frame.update(boundary[b], region_of(split.boundary[b], stride), c, from, to);
    }
    frame.launch(stream);
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  frame.wait();  // reports a failed exchange (e.g. a peer that never answered)

  // 5. Gather and compare with the serial computation.
  const double* result = kSteps % 2 == 0 ? u : u_new;
  CHECK_CUDA(cudaMemcpy(host.data(), result, bytes, cudaMemcpyDeviceToHost));
  std::vector<double> mine;
  for (long y = 0; y < layout.owned[1]; ++y) {
    for (long x = 0; x < layout.owned[0]; ++x) {
      mine.push_back(host[static_cast<std::size_t>(layout.offset(x + 1, y + 1, 0))]);
    }
  }
  std::vector<int> counts(ranks), displacements(ranks);
  const int count = static_cast<int>(mine.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  for (int r = 1; r < ranks; ++r) displacements[r] = displacements[r - 1] + counts[r - 1];
  std::vector<double> gathered(rank == 0 ? kNx * kNy : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, gathered.data(), counts.data(), displacements.data(),
              MPI_DOUBLE, 0, comm);
  int status = 0;
  if (rank == 0) {
    const auto reference = serial_reference(c);
    double worst = 0;
    for (int r = 0; r < ranks; ++r) {  // rank r's block, row by row
      const auto cells = grid.local_cells_of(r);
      const auto origin = grid.global_offset_of(r);
      for (long y = 0; y < cells[1]; ++y) {
        for (long x = 0; x < cells[0]; ++x) {
          const double value = gathered[displacements[r] + x + cells[0] * y];
          const double want = reference[(origin[0] + x) + kNx * (origin[1] + y)];
          worst = std::max(worst, std::abs(value - want));
        }
      }
    }
    // Same arithmetic in the same order; only fused multiply-adds on the GPU may differ.
    status = worst <= 1e-12 ? 0 : 1;
    std::printf(
        "advection2d: %d ranks, %ldx%ld cells, %d steps, max difference from the serial "
        "computation %.2e: %s\n",
        ranks, kNx, kNy, kSteps, worst, status == 0 ? "ok" : "WRONG");
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, comm);
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(u));
  CHECK_CUDA(cudaFree(u_new));
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // Our own MPI and CUDA set-up; haloflow uses them and finalises nothing.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (rank == 0) std::puts("advection2d: no CUDA device, nothing to run");
    MPI_Finalize();
    return 77;
  }
  CHECK_CUDA(cudaSetDevice(rank % devices));
  int status = 1;
  try {
    status = run(MPI_COMM_WORLD, rank, ranks);
  } catch (const haloflow::Error& error) {
    std::fprintf(stderr, "advection2d, rank %d: %s\n", rank, error.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
