#include "seed_frame.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "haloflow/frame.hpp"
#include "seed_kernels.hpp"

namespace haloflow::models {
namespace {

using Clock = std::chrono::steady_clock;

// Busy, not sleeping: a sleep overshoots by tens of microseconds, more than MPI itself takes.
void busy_host_work(double microseconds) {
  const auto end = Clock::now() + std::chrono::duration<double, std::micro>(microseconds);
  while (Clock::now() < end) {
  }
}

}  // namespace

double seed_initial_value(std::size_t cell) {
  return 0.5 + static_cast<double>(cell % 997) * 1e-3;
}

void patch_seed_fluxes(const SeedCase& seed, const SeedFrame& seed_frame, Frame& frame) {
  auto* grid = seed_frame.data.as<double>();
  frame.update(seed_frame.interior, seed.cells - seed.halo_cells, grid + seed.halo_cells,
               seed.intensity);
  frame.update(seed_frame.boundary, seed.halo_cells, grid, seed.intensity);
}

SeedFrame build_seed_frame(const SeedCase& seed, Backend backend) {
  const std::size_t halo_bytes = seed.halo_cells * sizeof(double);
  SeedFrame frame{.data = Buffer(Memory::device, seed.cells * sizeof(double), "grid", backend),
                  .halo_device = Buffer(Memory::device, halo_bytes, "halo (device)", backend),
                  .halo_host = Buffer(Memory::host, halo_bytes, "halo (pinned host)", backend),
                  .plan = FramePlan(seed.name, EdgeRule::strict),
                  .interior = {},
                  .boundary = {}};
  // Fill the grid in slices so a 100 M-cell case needs no second full-size host array.
  std::vector<double> slice(std::min<std::size_t>(seed.cells, 1 << 20));
  for (std::size_t start = 0; start < seed.cells; start += slice.size()) {
    const std::size_t count = std::min(slice.size(), seed.cells - start);
    for (std::size_t i = 0; i < count; ++i) slice[i] = seed_initial_value(start + i);
    frame.data.upload(slice.data(), count * sizeof(double), start * sizeof(double));
  }

  auto* grid = frame.data.as<double>();
  auto* packed = frame.halo_device.as<double>();
  const std::size_t interior_cells = seed.cells - seed.halo_cells;
  const auto flux = kernels::seed_flux();
  const auto copy = kernels::seed_copy();
  const auto copy_shape = LaunchShape::fixed(seed.copy_blocks, seed.block_size);
  FramePlan& plan = frame.plan;
  constexpr Lane comm = Lane::communication;

  // What each node reads and writes, checked against the edges written here (strict): the
  // boundary cells are grid[0, halo), the interior the rest; the host node stands for the MPI
  // exchange of the pinned halo, in place.
  const auto halo_cells = static_cast<std::int64_t>(seed.halo_cells);
  const Box boundary_cells = buffer_cells(halo_cells);
  const Box interior_cells_box{{halo_cells, 0, 0}, {static_cast<std::int64_t>(seed.cells), 1, 1}};
  const double* pinned = frame.halo_host.as<const double>();
  plan.name_field(grid, "grid");
  plan.name_field(packed, "halo (device)");
  plan.name_field(pinned, "halo (pinned host)");
  frame.interior = plan.add_kernel(
      {.name = "interior_flux",
       .lane = Lane::bulk,
       .access = {reads(grid, interior_cells_box), writes(grid, interior_cells_box)}},
      flux, LaunchShape::cover(interior_cells, seed.block_size), interior_cells,
      grid + seed.halo_cells, seed.intensity);
  plan.add_kernel({.name = "pack",
                   .lane = comm,
                   .access = {reads(grid, boundary_cells), writes(packed, boundary_cells)}},
                  copy, copy_shape, seed.halo_cells, static_cast<const double*>(grid), packed);
  plan.add_copy({.name = "download", .lane = comm, .after = {"pack"}}, frame.halo_host.view(),
                frame.halo_device.view(), halo_bytes);
  plan.add_host({.name = "exchange",
                 .lane = comm,
                 .after = {"download"},
                 .access = {reads(pinned, every_cell()), writes(pinned, every_cell())}},
                [us = seed.host_work_us] { busy_host_work(us); });
  plan.add_copy({.name = "upload", .lane = comm, .after = {"exchange"}}, frame.halo_device.view(),
                frame.halo_host.view(), halo_bytes);
  plan.add_kernel({.name = "unpack",
                   .lane = comm,
                   .after = {"upload"},
                   .access = {reads(packed, boundary_cells), writes(grid, boundary_cells)}},
                  copy, copy_shape, seed.halo_cells, static_cast<const double*>(packed), grid);
  frame.boundary =
      plan.add_kernel({.name = "boundary_flux",
                       .lane = comm,
                       .after = {"unpack"},
                       .access = {reads(grid, boundary_cells), writes(grid, boundary_cells)}},
                      flux, LaunchShape::cover(seed.halo_cells, seed.block_size), seed.halo_cells,
                      grid, seed.intensity);
  return frame;
}

}  // namespace haloflow::models
