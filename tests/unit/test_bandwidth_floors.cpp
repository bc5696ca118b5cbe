// The honest figures (docs/benchmarks.md): bytes a step physically moves, floors per mode, no
// percentage above a measured rate, and the comparable rule, with the H200's numbers of
// issue 31 (jacobi2d 16384^2 float, two steps a pass, 367 us a step; copy kernel 3.87 TB/s).

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "bandwidth_floors.hpp"
#include "step_report.hpp"

using namespace haloflow;
using models::CopyRates;
using models::StepTraffic;

namespace {

constexpr double kJacobiPassBytes = 2.0 * 16384 * 16384 * 4;  // read a + write a_new, float
constexpr double kL2Bytes = 60.0 * 1024 * 1024;               // an H200's: 62.9 MB
const CopyRates kH200{.dram_Bps = 3.87e12, .l2_Bps = 10e12, .l2_bytes = kL2Bytes};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// jacobi2d 16384^2 float, two steps a pass, on the graph executor, a step in `median_s`.
models::StepSummary jacobi_two_step_run(double median_s) {
  models::StepSummary run;
  run.model = "jacobi2d";
  run.precision = "float";
  run.executor = ExecutorKind::graph;
  run.steps = 1000;
  run.what_moves = "read a + write a_new";
  run.steps_per_pass = 2;
  run.bytes_per_step = kJacobiPassBytes / 2;
  run.times.steps = 1000;
  run.times.median_step_s = median_s;
  return run;
}

}  // namespace

TEST_CASE("a two-step pass counts half its bytes a step: 75.6 %, not 151 %, of the copy kernel") {
  const StepTraffic step{.bytes_per_step = kJacobiPassBytes / 2, .steps_per_pass = 2};
  const double achieved = step.bytes_per_step / 367e-6;
  CHECK(achieved == doctest::Approx(2.9257e12).epsilon(1e-4));
  REQUIRE(models::dram_fraction(achieved, kH200).has_value());
  CHECK(*models::dram_fraction(achieved, kH200) == doctest::Approx(0.7560).epsilon(1e-3));
  CHECK(models::bandwidth_words(achieved, step, kH200) ==
        " = 75.6 % of the measured DRAM copy rate 3.87 TB/s");
  // Counted as one pass a step, the same run would claim 5.85 TB/s: above the rate, no percentage.
  CHECK_FALSE(models::dram_fraction(2 * achieved, kH200).has_value());
}

TEST_CASE("floors per mode: one-step DRAM, k-step DRAM, and the run's own") {
  const StepTraffic two_steps{.bytes_per_step = kJacobiPassBytes / 2, .steps_per_pass = 2};
  const models::StepFloors floors = models::step_floors(two_steps, kH200);
  CHECK(floors.one_step_dram_s == doctest::Approx(554.9e-6).epsilon(1e-4));
  CHECK(floors.k_step_dram_s == doctest::Approx(277.45e-6).epsilon(1e-4));
  CHECK(floors.l2_s == 0);  // 2.1 GB a rank does not fit in 62.9 MB
  CHECK(floors.own() == floors.k_step_dram_s);
  CHECK(floors.own_mode() == "2-step DRAM");
  CHECK(models::floors_line(floors, 367e-6) ==
        "floors a step (one rank's bytes at the copy kernel's measured rates): one-step DRAM "
        "554.9 us, 2-step DRAM 277.5 us; median 1.32x the 2-step DRAM floor\n");

  const StepTraffic one_step{.bytes_per_step = kJacobiPassBytes, .steps_per_pass = 1};
  const models::StepFloors single = models::step_floors(one_step, kH200);
  CHECK(single.k_step_dram_s == 0);
  CHECK(single.own_mode() == "one-step DRAM");
  CHECK(single.own() == doctest::Approx(554.9e-6).epsilon(1e-4));

  // Two ranks, one GPU each: a rank's half at the rate.
  const StepTraffic two_ranks{.bytes_per_step = kJacobiPassBytes, .ranks = 2};
  CHECK(models::step_floors(two_ranks, kH200).one_step_dram_s ==
        doctest::Approx(277.45e-6).epsilon(1e-4));
  // No rate measured: no floors, no line.
  CHECK(models::step_floors(one_step, CopyRates{}).own() == 0);
  CHECK(models::floors_line(models::step_floors(one_step, CopyRates{}), 1e-3).empty());
}

TEST_CASE("a grid in the L2 is above the DRAM copy rate, and says so instead of a percentage") {
  // jacobi2d 1024^2 float, two steps a pass: 8.39 MB of arrays, 4.19 MB a step, 0.9 us a step.
  const StepTraffic step{.bytes_per_step = 2.0 * 1024 * 1024 * 4 / 2, .steps_per_pass = 2};
  CHECK(models::rank_working_set(step) == 2.0 * 1024 * 1024 * 4);
  CHECK(models::fits_in_l2(step, kH200));
  const double achieved = step.bytes_per_step / 0.9e-6;  // 4.66 TB/s
  CHECK_FALSE(models::dram_fraction(achieved, kH200).has_value());
  CHECK(models::bandwidth_words(achieved, step, kH200) ==
        ": above the measured DRAM copy rate 3.87 TB/s, as the working set (8.39 MB a rank) fits "
        "in the 62.9 MB L2; 46.6 % of the measured L2 copy rate 10.00 TB/s");
  const models::StepFloors floors = models::step_floors(step, kH200);
  CHECK(floors.l2_s == doctest::Approx(0.4194e-6).epsilon(1e-3));
  CHECK(floors.own_mode() == "L2-resident");
  CHECK(has(models::floors_line(floors, 0.9e-6),
            ", L2-resident 0.4 us; median 2.15x the "
            "L2-resident floor"));

  // Above the L2 rate too: no percentage of either.
  CHECK(has(models::bandwidth_words(11e12, step, kH200),
            "above the measured L2 copy rate 10.00 TB/s too (no percentage)"));
  // The L2 not measured: the size alone says why, no L2 floor.
  const CopyRates size_only{.dram_Bps = 3.87e12, .l2_bytes = kL2Bytes};
  CHECK(has(models::bandwidth_words(achieved, step, size_only), "(no L2 copy rate measured"));
  CHECK(models::step_floors(step, size_only).l2_s == 0);
}

TEST_CASE("above the DRAM copy rate with a working set larger than the L2: no percentage, why") {
  // euler2d 1024^2 RK3 as it counts: 9 passes of 4 double fields (302 MB), taken as its working
  // set, which is larger than the L2.
  const StepTraffic euler{.bytes_per_step = 9.0 * 4 * 1024 * 1024 * 8};
  CHECK_FALSE(models::fits_in_l2(euler, kH200));
  CHECK(models::bandwidth_words(4e12, euler, kH200) ==
        ": above the measured DRAM copy rate 3.87 TB/s (no percentage): the working set (302 MB a "
        "rank) is larger than the 62.9 MB L2, so some of the bytes counted came from a cache, "
        "not DRAM");
  // A model that says its working set (U and the stage buffers) is measured by that instead.
  const StepTraffic small{.bytes_per_step = 9.0 * 4 * 512 * 512 * 8,
                          .working_set = 3.0 * 4 * 512 * 512 * 8};
  CHECK(models::rank_working_set(small) == 3.0 * 4 * 512 * 512 * 8);
  CHECK(models::fits_in_l2(small, kH200));
  // The L2's size unknown: nothing is taken to be resident.
  const CopyRates dram_only{.dram_Bps = 3.87e12};
  CHECK_FALSE(models::fits_in_l2(small, dram_only));
  CHECK(has(models::bandwidth_words(4e12, small, dram_only), "the L2's size is unknown"));
  CHECK(models::bandwidth_words(4e12, small, CopyRates{}).empty());
}

TEST_CASE("a run is comparable only where the copy kernel reached 3.8 TB/s") {
  CHECK(models::comparable({.dram_Bps = 3.86e12}));
  CHECK(models::comparable({.dram_Bps = 3.8e12}));
  CHECK_FALSE(models::comparable({.dram_Bps = 3.79e12}));
  CHECK_FALSE(models::comparable(CopyRates{}));
  CHECK(models::copy_rates_line(kH200) ==
        "copy kernel: DRAM 3.870 TB/s, L2 10.000 TB/s (L2 62.9 MB); comparable (at least "
        "3.8 TB/s)");
  CHECK(models::copy_rates_line({.dram_Bps = 3.512e12}) ==
        "copy kernel: DRAM 3.512 TB/s, L2 not measured; NOT COMPARABLE with the published "
        "figures: the copy kernel reached 3.512 TB/s, below 3.8 TB/s");
  CHECK(has(models::copy_rates_line(CopyRates{}), "not measured (no GPU): NOT COMPARABLE"));
  CHECK(models::copy_rates_figures(kH200).line() ==
        "result: copy_dram_Bps=3.870000e+12 copy_l2_Bps=1.000000e+13 l2_bytes=62914560 "
        "comparable=yes");
  CHECK(has(models::copy_rates_figures({.dram_Bps = 3.7e12}).line(), "comparable=no"));
}

TEST_CASE("the L2 copy runs over a quarter of the L2 a buffer, moving what the DRAM copy moves") {
  CHECK(models::l2_copy_buffer_bytes(kL2Bytes) == 15728640);
  CHECK(models::l2_copy_buffer_bytes(50.0 * 1024 * 1024 + 7) == 13107200);
  CHECK(models::l2_copy_buffer_bytes(63) == 0);
  CHECK(models::l2_copy_buffer_bytes(0) == 0);
  CHECK(models::copies_moving(8.0 * 256 * 1024 * 1024, 15728640) == 137);
  CHECK(models::copies_moving(100, 1000) == 1);
  CHECK(models::copies_moving(100, 0) == 1);
}

TEST_CASE("a model's report: bytes a pass over k, the fraction, the floors, results.json") {
  const models::StepSummary run = jacobi_two_step_run(367e-6);
  const models::ReportOptions options{
      .copy_bandwidth = 3.87e12, .l2_copy_bandwidth = 10e12, .l2_bytes = kL2Bytes};
  const std::string text = models::times_lines(run, options);
  CHECK(has(text,
            "bytes per step: 1.074 GB (read a + write a_new, one pass per 2 steps); "
            "achieved 2.926 TB/s, 2.926 TB/s per rank = 75.6 % of the measured DRAM copy "
            "rate 3.87 TB/s\n"));
  CHECK(has(text,
            "one-step DRAM 554.9 us, 2-step DRAM 277.5 us; median 1.32x the 2-step DRAM "
            "floor\n"));
  CHECK_FALSE(has(text, "141"));

  const nlohmann::json json = models::run_json(run, options);
  CHECK(json["steps_per_pass"] == 2);
  CHECK(json["bytes_per_step"].get<double>() == kJacobiPassBytes / 2);
  CHECK(json["fraction_of_copy_bandwidth"].get<double>() == doctest::Approx(0.756).epsilon(1e-3));
  CHECK(json["above_copy_bandwidth"] == false);
  CHECK(json["floors_s"]["k_step_dram"].get<double>() == doctest::Approx(277.45e-6).epsilon(1e-4));
  CHECK(json["floors_s"]["l2_resident"].is_null());

  const std::string line = models::benchmark_line(run, models::step_figures(run), options);
  CHECK(has(line, " bytes_per_step=1073741824 steps_per_pass=2 "));
  CHECK(has(line,
            " floor_one_step_dram_s=0.000554905 floor_k_step_dram_s=0.000277453 "
            "floor_s=0.000277453 dram_fraction=0.7560"));

  // Twice as fast as the DRAM copy: no fraction anywhere, and why.
  const models::StepSummary fast = jacobi_two_step_run(100e-6);
  const nlohmann::json above = models::run_json(fast, options);
  CHECK(above["fraction_of_copy_bandwidth"].is_null());
  CHECK(above["above_copy_bandwidth"] == true);
  CHECK(above["copy_bandwidth_Bps"].get<double>() == 3.87e12);
  CHECK(has(models::benchmark_line(fast, {}, options), " above_dram_copy=not_l2_resident"));
  CHECK_FALSE(has(models::times_lines(fast, options), "% of the measured DRAM"));
}

TEST_CASE("the host executor is compared with no copy rate") {
  models::StepSummary run = jacobi_two_step_run(367e-6);
  run.executor = ExecutorKind::host;
  const models::ReportOptions options{.copy_bandwidth = 3.87e12};
  CHECK(models::comparable_rates(run, options).dram_Bps == 0);
  CHECK(has(models::times_lines(run, options), "(the host executor: no device copy bandwidth"));
  CHECK_FALSE(has(models::times_lines(run, options), "floors a step"));
  CHECK(models::floor_figures(run, options).line() == "result:");
  const nlohmann::json json = models::run_json(run, options);
  CHECK(json["copy_bandwidth_Bps"].is_null());
  CHECK(json["fraction_of_copy_bandwidth"].is_null());
  CHECK(json["above_copy_bandwidth"] == false);
}

TEST_CASE("the run header's halo line: one neighbour's directions that travel alike together") {
  using haloflow::HaloRoute;
  using haloflow::Transport;
  const std::vector<HaloRoute> routes = {
      {.peer = 1, .direction = "-y", .transport = Transport::peer, .reason = "same GPU (CUDA IPC)"},
      {.peer = 1, .direction = "+y", .transport = Transport::peer, .reason = "same GPU (CUDA IPC)"},
      {.peer = 2,
       .direction = "+x",
       .transport = Transport::mpi,
       .reason = "rank 2 is on another node"}};
  CHECK(haloflow::models::halo_routes_line(routes) ==
        "halos of this rank: peer to rank 1 (-y, +y): same GPU (CUDA IPC); mpi to rank 2 (+x): "
        "rank 2 is on another node\n");
}
