// jacobi2d's plans: the sweeps' launches, the run's buffers, and a step's plan for either field
// set, with or without the norm's nodes.

#include "jacobi2d_frames.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "jacobi_kernels.hpp"

namespace haloflow::models::jacobi {
namespace {

// Blocks 128 threads wide and 2 tall (JacobiConfig::rows_per_thread rows per thread): the fastest
// of the shapes measured on an H200 (tools/jacobi-kernel-lab.cu, docs/benchmarks.md), 95 % of a
// copy kernel's bandwidth against 88 % for 32 x 8 blocks.
constexpr unsigned kBlockWidth = 128;

}  // namespace

Sweeps plan_sweeps(const CellSplit& cells, const FieldLayout& layout, const JacobiConfig& config) {
  Sweeps s;
  const auto add = [&](const Box& box, std::string name) {
    const kernels::CellBox cell = cell_box(box, layout);
    s.names.push_back(std::move(name));
    s.boxes.push_back(cell);
    const auto rows = static_cast<unsigned>(config.rows_per_thread);
    s.shapes.push_back(box_launch(cell, rows, kBlockWidth));
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
FramePlan step_plan(bool with_norm, std::size_t set, HaloExchange<T>& exchange,
                    const Sweeps& sweeps, const Buffers& buffers) {
  FramePlan plan(
      fmt::format("jacobi2d{} {}", with_norm ? " with norm" : "", set == 0 ? "even" : "odd"));
  const ExchangeNodes halo = exchange.add_to(plan);
  const T* from = (set == 0 ? buffers.a : buffers.b).template as<const T>();
  T* to = (set == 0 ? buffers.b : buffers.a).template as<T>();
  std::vector<std::string> sweep_names;
  for (std::size_t i = 0; i < sweeps.boxes.size(); ++i) {
    NodeOptions options{.name = sweeps.names[i]};
    if (options.name != "interior") {
      options.lane = Lane::communication;
      options.after = {halo.unpack};
    }
    sweep_names.push_back(options.name);
    if (with_norm) {
      plan.add_kernel(std::move(options), kernels::jacobi_norm_kernel<T>(), sweeps.shapes[i],
                      sweeps.boxes[i], from, to,
                      buffers.partials.as<double>() + sweeps.first_partial[i]);
    } else {
      plan.add_kernel(std::move(options), kernels::jacobi_kernel<T>(), sweeps.shapes[i],
                      sweeps.boxes[i], from, to, static_cast<double*>(nullptr));
    }
  }
  if (with_norm) {
    plan.add_kernel({.name = "norm.log", .lane = Lane::communication, .after = sweep_names},
                    kernels::jacobi_norm_finish_kernel(), kernels::jacobi_norm_finish_launch(),
                    buffers.partials.as<const double>(), sweeps.partials,
                    buffers.finish.as<double>(), buffers.ticket(), buffers.values(),
                    buffers.samples());
  }
  return plan;
}

template FramePlan step_plan<float>(bool, std::size_t, HaloExchange<float>&, const Sweeps&,
                                    const Buffers&);
template FramePlan step_plan<double>(bool, std::size_t, HaloExchange<double>&, const Sweeps&,
                                     const Buffers&);

}  // namespace haloflow::models::jacobi
