#include "machine_fit.hpp"

#include <fmt/format.h>

#include "haloflow/error.hpp"

namespace haloflow::models {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

const char* const kAxisNames[] = {"nx", "ny", "nz"};

// make_halo_plan's rule on one axis: with a neighbour (more than one rank along it, or periodic),
// the rank owning the fewest cells (cells / ranks, rounded down) owns at least the ghost layers
// the halo fills.
void check_halo_depth(JsonFields& fields, const GridNeeds& needs, const MachineLimits& limits,
                      const Coord3& grid, const std::string& shape, std::size_t axis) {
  const bool neighbours = grid[axis] > 1 || needs.periodic[axis];
  const std::int64_t fewest = needs.cells[axis] / grid[axis];
  if (!neighbours || fewest >= needs.halo_depth) return;
  const bool copy_rows = needs.copy_rows_in_y && axis == 1;
  const std::int64_t least = needs.halo_depth * grid[axis] + (copy_rows ? 2 : 0);
  const std::string unit = copy_rows ? "computed row" : "cell";
  if (!needs.depth_pointer.empty()) {
    fields.report(
        needs.depth_pointer,
        fmt::format(
            "{} is not allowed on {} rank{}: the process grid {} leaves a rank {} {}{} "
            "along {} ({} {}{} over {} rank{}{}), fewer than the {} ghost layers its "
            "halo exchange fills; expected {}, or {}/{} at least {}",
            needs.depth_value, limits.ranks, limits.ranks == 1 ? "" : "s", shape, fewest, unit,
            fewest == 1 ? "" : "s", axis == 0 ? "x" : (axis == 1 ? "y" : "z"), needs.cells[axis],
            unit, needs.cells[axis] == 1 ? "" : "s", grid[axis], grid[axis] == 1 ? "" : "s",
            grid[axis] == 1 && needs.periodic[axis] ? ", periodic: its own neighbour" : "",
            needs.halo_depth,
            needs.depth_advice.empty() ? std::string("a shallower halo") : needs.depth_advice,
            needs.section, kAxisNames[axis], least));
    return;
  }
  fields.report(
      fmt::format("{}/{}", needs.section, kAxisNames[axis]),
      fmt::format("{} is not allowed on {} rank{}{}: the process grid {} leaves a rank {} {}{} "
                  "along this axis ({} {}{} over {} rank{}{}), fewer than the {} ghost layers "
                  "its halo exchange fills; expected at least {}{}",
                  needs.values[axis], limits.ranks, limits.ranks == 1 ? "" : "s",
                  needs.depth_reason.empty() ? "" : " with " + needs.depth_reason, shape, fewest,
                  unit, fewest == 1 ? "" : "s", needs.cells[axis], unit,
                  needs.cells[axis] == 1 ? "" : "s", grid[axis], grid[axis] == 1 ? "" : "s",
                  grid[axis] == 1 && needs.periodic[axis] ? ", periodic: its own neighbour" : "",
                  needs.halo_depth, least,
                  needs.depth_advice.empty() ? "" : ", or " + needs.depth_advice));
}

}  // namespace

std::string gib(double bytes) {
  const double value = bytes / kGiB;
  return value >= 10 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value);
}

double check_grid_fits(JsonFields& fields, const GridNeeds& needs, const MachineLimits& limits) {
  const auto axes = static_cast<std::size_t>(needs.dimensions);
  Coord3 grid{1, 1, 1};
  try {
    grid = needs.rows_only ? Coord3{1, limits.ranks, 1}
                           : balanced_process_grid(limits.ranks, needs.dimensions, {});
  } catch (const Error& error) {
    fields.report("/", fmt::format("{} ranks cannot be arranged: {}", limits.ranks, error.what()));
    return 0;
  }
  const std::string shape = axes == 2 ? fmt::format("{} x {}", grid[0], grid[1])
                                      : fmt::format("{} x {} x {}", grid[0], grid[1], grid[2]);
  const bool two_per_rank = needs.cells_per_rank > 1;
  for (std::size_t axis = 0; axis < axes; ++axis) {
    if (grid[axis] * needs.cells_per_rank <= needs.cells[axis]) {
      check_halo_depth(fields, needs, limits, grid, shape, axis);
      continue;
    }
    const bool copy_rows = needs.copy_rows_in_y && axis == 1;
    fields.report(
        fmt::format("{}/{}", needs.section, kAxisNames[axis]),
        fmt::format("{} is not allowed on {} ranks: the process grid {} puts {} ranks along this "
                    "axis, more than its {} {}cells{}; expected at least {}",
                    needs.values[axis], limits.ranks, shape, grid[axis], needs.cells[axis],
                    copy_rows ? "computed " : "",
                    two_per_rank ? fmt::format(" allow at {} cells per rank (two ghost layers)",
                                               needs.cells_per_rank)
                                 : std::string(),
                    copy_rows ? grid[axis] + 2 : needs.cells_per_rank * grid[axis]));
  }
  double per_field = needs.precision == "float" ? 4.0 : 8.0;
  for (std::size_t axis = 0; axis < axes; ++axis) {
    per_field *= static_cast<double>(ceil_div(needs.cells[axis], grid[axis]) + needs.ghost_cells);
  }
  const double bytes = needs.fields * per_field;
  const double budget = limits.memory_gib * kGiB;
  if (bytes > budget) {
    const std::string size =
        axes == 2 ? fmt::format("{} x {}", needs.values[0], needs.values[1])
                  : fmt::format("{} x {} x {}", needs.values[0], needs.values[1], needs.values[2]);
    // Close numbers with more digits, so that the need never shows as the budget.
    const bool close = gib(bytes) == gib(budget);
    const std::string need_text = close ? fmt::format("{:.4g}", bytes / kGiB) : gib(bytes);
    const std::string budget_text = close ? fmt::format("{:.4g}", budget / kGiB) : gib(budget);
    fields.report(needs.section,
                  fmt::format("needs about {} GiB per rank ({} {} fields of {}, on {} rank{}); "
                              "the memory budget is {} GiB per rank ({}); expected a smaller grid "
                              "or more ranks (on more nodes or GPUs)",
                              need_text, needs.fields, needs.precision, size, limits.ranks,
                              limits.ranks == 1 ? "" : "s", budget_text, kMemoryBudgetSource));
  }
  return bytes;
}

}  // namespace haloflow::models
