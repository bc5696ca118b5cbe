// jacobi2d's plans: the sweeps' launches (the two-step and deep sweeps' too), the run's buffers,
// and a frame's plan for either field set: one step with or without the norm's nodes, or k steps.

#include "jacobi2d_frames.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "haloflow/error.hpp"
#include "jacobi_kernels.hpp"

namespace haloflow::models::jacobi {
namespace {

// Blocks 128 threads wide and 2 tall (JacobiConfig::rows_per_thread rows per thread): the fastest
// of the shapes measured on an H200 (tools/jacobi-kernel-lab.cu, docs/benchmarks.md), 95 % of a
// copy kernel's bandwidth against 88 % for 32 x 8 blocks.
constexpr unsigned kBlockWidth = 128;

}  // namespace

Sweeps plan_sweeps(const CellSplit& cells, const FieldLayout& layout, const JacobiConfig& config,
                   int steps, kernels::FixedColumns fixed) {
  Sweeps s;
  s.steps = steps;
  s.fixed = fixed;
  const auto add = [&](const Box& box, std::string name) {
    const kernels::CellBox cell = cell_box(box, layout);
    s.names.push_back(std::move(name));
    s.boxes.push_back(cell);
    s.cells.push_back(box);
    const auto rows = static_cast<unsigned>(config.rows_per_thread);
    s.shapes.push_back(steps == 1   ? box_launch(cell, rows, kBlockWidth)
                       : steps == 2 ? kernels::two_step_launch(cell, rows)
                                    : kernels::deep_launch(cell, steps));
    s.first_partial.push_back(s.partials);
    s.partials += static_cast<std::int64_t>(s.shapes.back().grid.volume());
  };
  if (!cells.interior.empty()) add(cells.interior, "interior");
  for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
    if (!cells.boundary[i].empty()) add(cells.boundary[i], fmt::format("boundary.{}", i));
  }
  return s;
}

Buffers::Buffers(std::size_t field_bytes, const Sweeps& sweeps, Backend backend)
    : a(Memory::device, field_bytes, "jacobi2d a", backend),
      b(Memory::device, field_bytes, "jacobi2d a_new", backend),
      partials(
          Memory::device,
          static_cast<std::size_t>(std::max<std::int64_t>(sweeps.partials, 1)) * sizeof(double),
          "jacobi2d norm partials", backend),
      finish(Memory::device, (kernels::jacobi_norm_finish_scratch() + 1) * sizeof(double),
             "jacobi2d norm finish scratch", backend),
      log(Memory::host, (1 + kNormLogCapacity) * sizeof(double), "jacobi2d norm log (pinned)",
          backend) {
  *samples() = 0;
  const std::vector<double> zeros(kernels::jacobi_norm_finish_scratch() + 1, 0.0);
  finish.upload(zeros.data(), zeros.size() * sizeof(double));
}

unsigned* Buffers::ticket() const {
  return reinterpret_cast<unsigned*>(finish.as<double>() + kernels::jacobi_norm_finish_scratch());
}

template <class T>
FramePlan frame_plan(FrameKind kind, std::size_t set, HaloExchange<T>& exchange,
                     const Sweeps& sweeps, const Buffers& buffers) {
  const int steps = sweeps.steps;
  if ((kind == FrameKind::k_steps) != (steps > 1)) {
    throw Error(fmt::format("jacobi2d frame_plan: a frame of {} given sweeps of {} step(s)",
                            kind == FrameKind::k_steps ? "k steps" : "one step", steps));
  }
  const bool with_norm = kind == FrameKind::step_with_norm;
  FramePlan plan(
      fmt::format("jacobi2d{} {}",
                  kind == FrameKind::k_steps
                      ? (steps == 2 ? std::string(" two steps") : fmt::format(" {} steps", steps))
                  : with_norm ? std::string(" with norm")
                              : std::string(),
                  set == 0 ? "even" : "odd"),
      EdgeRule::strict);
  const ExchangeNodes halo = exchange.add_to(plan, {}, set);
  const T* from = (set == 0 ? buffers.a : buffers.b).template as<const T>();
  T* to = (set == 0 ? buffers.b : buffers.a).template as<T>();
  plan.name_field(from, set == 0 ? "a" : "a_new");
  plan.name_field(to, set == 0 ? "a_new" : "a");
  plan.name_field(buffers.partials.as<const double>(), "norm partials");
  // Each sweep reads `from` as far as its steps reach (ghosts k deep for k steps) and
  // writes its box of `to`; the plan checks these against the edges written here (strict).
  const Coord3 reach = {steps, steps, 0};
  std::vector<std::string> sweep_names;
  for (std::size_t i = 0; i < sweeps.boxes.size(); ++i) {
    NodeOptions options{
        .name = sweeps.names[i],
        .access = {reads(from, grown(sweeps.cells[i], reach)), writes(to, sweeps.cells[i])}};
    if (options.name != "interior") {
      options.lane = Lane::communication;
      options.after = {halo.unpack};
    }
    if (with_norm) {
      const std::int64_t first = sweeps.first_partial[i];
      const auto blocks = static_cast<std::int64_t>(sweeps.shapes[i].grid.volume());
      options.access.push_back(
          writes(buffers.partials.as<const double>(), Box{{first, 0, 0}, {first + blocks, 1, 1}}));
    }
    sweep_names.push_back(options.name);
    if (kind == FrameKind::k_steps && steps == 2) {
      plan.add_kernel(std::move(options), kernels::jacobi_two_step_kernel<T>(), sweeps.shapes[i],
                      sweeps.boxes[i], from, to, sweeps.fixed);
    } else if (kind == FrameKind::k_steps) {
      plan.add_kernel(std::move(options), kernels::jacobi_deep_kernel<T>(steps), sweeps.shapes[i],
                      sweeps.boxes[i], from, to, sweeps.fixed);
    } else if (with_norm) {
      plan.add_kernel(std::move(options), kernels::jacobi_norm_kernel<T>(), sweeps.shapes[i],
                      sweeps.boxes[i], from, to,
                      buffers.partials.as<double>() + sweeps.first_partial[i]);
    } else {
      plan.add_kernel(std::move(options), kernels::jacobi_kernel<T>(), sweeps.shapes[i],
                      sweeps.boxes[i], from, to, static_cast<double*>(nullptr));
    }
  }
  if (with_norm) {
    plan.add_kernel(
        {.name = "norm.log",
         .lane = Lane::communication,
         .after = sweep_names,
         .access = {reads(buffers.partials.as<const double>(), buffer_cells(sweeps.partials))}},
        kernels::jacobi_norm_finish_kernel(), kernels::jacobi_norm_finish_launch(),
        buffers.partials.as<const double>(), sweeps.partials, buffers.finish.as<double>(),
        buffers.ticket(), buffers.values(), buffers.samples());
  }
  return plan;
}

template FramePlan frame_plan<float>(FrameKind, std::size_t, HaloExchange<float>&, const Sweeps&,
                                     const Buffers&);
template FramePlan frame_plan<double>(FrameKind, std::size_t, HaloExchange<double>&, const Sweeps&,
                                      const Buffers&);

}  // namespace haloflow::models::jacobi
