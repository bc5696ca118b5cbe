// A convergence study of one's own scheme with haloflow::convergence (host code, no GPU, no
// MPI): first-order upwind for u_t + u_x = 0 on the periodic [0, 1), the sine wave carried a
// quarter of the way round at CFL 0.4 on 32 to 256 cells, its errors against the exact wave,
// the observed orders printed and written as CSV, Markdown and a log-log SVG.
// docs/embedding.md quotes the marked part.
//
//   upwind_convergence     (exit 0: every observed order within 0.15 of 1; 1 otherwise)

#include <haloflow/convergence.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

namespace {

// The scheme: n cells, first-order upwind to time t; returns L1, L2 and Linf of the error at the
// cell centres.
std::vector<double> upwind_errors(int n, double t) {
  const double h = 1.0 / n;
  const int steps = static_cast<int>(std::ceil(t / (0.4 * h)));
  const double nu = t / steps / h;  // the CFL number of the steps taken
  const auto wave = [](double x) { return std::sin(2 * std::numbers::pi * x); };
  std::vector<double> u(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) u[static_cast<std::size_t>(i)] = wave((i + 0.5) * h);
  std::vector<double> next(u.size());
  for (int s = 0; s < steps; ++s) {
    for (std::size_t i = 0; i < u.size(); ++i) {
      const double left = u[i == 0 ? u.size() - 1 : i - 1];
      next[i] = u[i] - nu * (u[i] - left);
    }
    u.swap(next);
  }
  double l1 = 0, l2 = 0, linf = 0;
  for (int i = 0; i < n; ++i) {
    const double e = std::abs(u[static_cast<std::size_t>(i)] - wave((i + 0.5) * h - t));
    l1 += e / n;
    l2 += e * e / n;
    linf = std::max(linf, e);
  }
  return {l1, std::sqrt(l2), linf};
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

int main() {
  // snippet-begin: convergence
  haloflow::convergence::Study study;
  study.title = "upwind advection: u against the exact wave";
  study.design_order = 1;
  study.design_note = "first-order upwind";
  for (const int n : {32, 64, 128, 256}) {
    study.points.push_back(
        {.h = 1.0 / n, .errors = upwind_errors(n, 0.25), .label = "n=" + std::to_string(n)});
  }
  std::fputs(haloflow::convergence::table_text(study).c_str(), stdout);
  write("upwind_convergence.csv", haloflow::convergence::table_csv(study));
  write("upwind_convergence.md", haloflow::convergence::table_markdown(study));
  write("upwind_convergence.svg", haloflow::convergence::svg_plot(study));
  for (const auto& orders : haloflow::convergence::observed_orders(study)) {
    for (const double order : orders) {
      if (!(std::abs(order - study.design_order) <= 0.15)) return 1;  // NaN fails too
    }
  }
  // snippet-end: convergence
  std::puts("observed orders within 0.15 of 1");
  return 0;
}
