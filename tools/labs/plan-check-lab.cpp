// What checking a plan's accesses costs at plan build: a frame shaped like euler2d's (three
// Runge-Kutta stages, each an exchange of 4 fields, an interior and 4 boundary slabs per field
// set, 3 to 5 accesses a node), timed through problems() and dependencies() under each edge rule.
// The exchanges are real (one rank, its halos through MPI to itself, so the whole chain is in the
// plan); no kernel runs. CPU only:
//   mpiexec -n 1 <build>/labs/plan-check-lab [REPEATS]

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "haloflow/access.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/plan.hpp"

using namespace haloflow;

namespace {

void nothing(const LaunchShape& /*shape*/, int /*unused*/) {}
constexpr KernelRef<int> kNothing{nullptr, &nothing, "stage"};

constexpr int kFields = 4;
constexpr int kStages = 3;

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 200;
  DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {1024, 1024, 1};
  spec.process_grid = {1, 1, 1};
  const HaloPlan halo = make_halo_plan(CartesianDecomposition(spec, 1, 0),
                                       Stencil{StencilShape::star, 3}, 3, kFields);
  const std::size_t elements = static_cast<std::size_t>(halo.layout.field_elements());
  // A field set per stage (the stage's input) and one for the output, as euler2d has.
  std::vector<std::vector<double>> storage(kFields * (kStages + 1), std::vector<double>(elements));
  std::vector<std::vector<double*>> sets(kStages + 1);
  for (int set = 0; set <= kStages; ++set) {
    for (int f = 0; f < kFields; ++f) sets[set].push_back(storage[set * kFields + f].data());
  }
  std::vector<std::unique_ptr<HaloExchange<double>>> exchanges;
  for (int stage = 0; stage < kStages; ++stage) {
    exchanges.push_back(std::make_unique<HaloExchange<double>>(
        halo, MPI_COMM_WORLD, std::vector<std::vector<double*>>{sets[stage]}, Backend::cpu,
        ExchangeOptions{.exchange_id = stage,
                        .self_on_device = false,
                        .name = "stage" + std::to_string(stage)}));
  }
  const CellSplit split = split_owned_cells(halo.layout, Stencil{StencilShape::star, 3});
  FramePlan plan("euler-like");
  std::vector<std::string> previous;
  for (int stage = 0; stage < kStages; ++stage) {
    const ExchangeNodes nodes = exchanges[stage]->add_to(plan, previous);
    const std::vector<std::string> before = previous;  // the stage before, written by hand
    previous.clear();
    std::vector<Box> boxes{split.interior};
    boxes.insert(boxes.end(), split.boundary.begin(), split.boundary.end());
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      NodeOptions options{.name = "stage" + std::to_string(stage) + ".box" + std::to_string(b)};
      options.after = before;
      if (b > 0) options.after.push_back(nodes.unpack);
      for (int f = 0; f < kFields; ++f) {
        options.access.push_back(reads(sets[stage][f], grown(boxes[b], {3, 3, 0})));
        options.access.push_back(writes(sets[stage + 1][f], boxes[b]));
      }
      previous.push_back(options.name);
      plan.add_kernel(std::move(options), kNothing, LaunchShape::fixed(1, 1), 0);
    }
  }
  std::printf("plan-check-lab: %zu nodes, %zu accesses\n", plan.nodes().size(), [&] {
    std::size_t n = 0;
    for (const Node& node : plan.nodes()) n += node.options.access.size();
    return n;
  }());
  for (const EdgeRule rule : {EdgeRule::strict, EdgeRule::derive, EdgeRule::accesses}) {
    plan.set_edges(rule);
    std::vector<double> times;
    std::size_t problems = 0;
    std::size_t edges = 0;
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      problems = plan.problems().size();      // what Frame's validate() runs
      const auto deps = plan.dependencies();  // what an executor asks once
      times.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
      edges = 0;
      for (const auto& list : deps) edges += list.size();
    }
    std::sort(times.begin(), times.end());
    std::printf("  %-8s problems %zu, edges %zu: median %.1f us, p90 %.1f us (%d repeats)\n",
                std::string(to_string(rule)).c_str(), problems, edges, times[times.size() / 2],
                times[times.size() * 9 / 10], repeats);
  }
  MPI_Finalize();
  return 0;
}
