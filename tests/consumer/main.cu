// A user's own kernel in a haloflow frame, run by the host executor and, with a GPU, the graph.

#include <haloflow/buffer.hpp>
#include <haloflow/device.hpp>
#include <haloflow/error.hpp>
#include <haloflow/frame.hpp>
#include <haloflow/per_cell.cuh>

#include <cstdio>
#include <vector>

namespace {

struct Axpy {
  static HALOFLOW_HD void apply(std::size_t i, double a, const double* x, double* y) {
    y[i] += a * x[i];
  }
};

bool run_with(haloflow::ExecutorKind kind) {
  constexpr std::size_t n = 1000;
  const auto backend = haloflow::backend_of(kind);
  haloflow::Buffer x(haloflow::Memory::device, n * sizeof(double), "x", backend);
  haloflow::Buffer y(haloflow::Memory::device, n * sizeof(double), "y", backend);
  std::vector<double> ones(n, 1.0);
  x.upload(ones.data(), n * sizeof(double));
  y.upload(ones.data(), n * sizeof(double));
  haloflow::FramePlan plan("consumer");
  const auto axpy = plan.add_kernel(
      {.name = "axpy"}, haloflow::per_cell_kernel<Axpy, double, const double*, double*>("axpy"),
      haloflow::LaunchShape::cover(n, 128), n, 2.0, x.as<const double>(), y.as<double>());
  haloflow::Frame frame(std::move(plan), kind);
  frame.run();                                                       // y = 1 + 2
  frame.update(axpy, n, 3.0, x.as<const double>(), y.as<double>());  // a per-step patch
  frame.run();                                                       // y = 3 + 3
  std::vector<double> result(n);
  y.download(result.data(), n * sizeof(double));
  return result.front() == 6.0 && result.back() == 6.0;
}

}  // namespace

int main() {
  try {
    if (!run_with(haloflow::ExecutorKind::host)) return 1;
    std::puts("consumer: host executor ok");
    if (haloflow::gpu_available()) {
      if (!run_with(haloflow::ExecutorKind::graph)) return 1;
      std::puts("consumer: graph executor ok");
    }
  } catch (const haloflow::Error& error) {
    std::fprintf(stderr, "consumer: %s\n", error.what());
    return 1;
  }
  return 0;
}
