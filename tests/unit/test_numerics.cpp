// The models' numerics, checked on the host executor (the end-to-end side:
// tests/cli/numerics.cmake).

#include <doctest/doctest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "euler2d/euler2d.hpp"
#include "euler2d/euler_kernels.hpp"
#include "exact_sum.hpp"
#include "haloflow/error.hpp"
#include "jacobi2d/jacobi2d.hpp"
#include "jacobi2d/jacobi2d_report.hpp"
#include "json_fields.hpp"
#include "model.hpp"
#include "test_mpi.hpp"
#include "timed_steps.hpp"

using namespace haloflow;
using namespace haloflow::models;

namespace {

MPI_Comm world() {
  (void)testing::test_mpi();
  return MPI_COMM_WORLD;
}

RunOptions host_run(int steps) {
  RunOptions run;
  run.executor = ExecutorKind::host;
  run.steps = steps;
  run.warmup = 0;
  return run;
}

EulerResult euler(EulerCase problem, std::int64_t nx, std::int64_t ny, int steps, int limiter,
                  double t_end = 0, bool gather = true) {
  EulerConfig config;
  config.problem = problem;
  config.nx = nx;
  config.ny = ny;
  config.limiter = limiter;
  config.t_end = t_end;
  config.run = host_run(steps);
  config.run.gather = gather;
  return run_euler2d(config, world());
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("ExactSum: the same terms in any order, split and merged, give the same double") {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> terms;
  for (int i = 0; i < 20000; ++i) {
    terms.push_back(std::ldexp(unit(random), static_cast<int>(random() % 80) - 40));
  }
  ExactSum forward;
  for (const double t : terms) forward.add(t);
  std::shuffle(terms.begin(), terms.end(), random);
  ExactSum left;
  ExactSum right;
  for (std::size_t i = 0; i < terms.size(); ++i) (i % 3 == 0 ? left : right).add(terms[i]);
  ExactSum::Digits merged = left.digits();
  for (std::size_t k = 0; k < merged.size(); ++k) merged[k] += right.digits()[k];
  CHECK(same_bits(ExactSum::from(merged, 0).value(), forward.value()));
  // Exact where a double sum is not.
  ExactSum cancel;
  for (const double t : {1e16, 1.0, -1e16, 1e-300, -1e-300, 3.0}) cancel.add(t);
  CHECK(cancel.value() == 4.0);
  ExactSum large;
  for (const double t : {1e308, 1e308, -1e308}) large.add(t);
  CHECK(large.value() == 1e308);
  ExactSum tiny;
  tiny.add(4.9406564584124654e-324);
  tiny.add(4.9406564584124654e-324);
  CHECK(tiny.value() == 2 * 4.9406564584124654e-324);
  ExactSum negative;
  for (const double t : {-0.1, -0.2, 0.05}) negative.add(t);
  CHECK(std::abs(negative.value() - (-0.25)) <= 1e-16);
}

TEST_CASE("euler2d: sod-y is bitwise sod-x transposed, step after step") {
  // 100 cells: dx = dy = 1/100, not a power of two, so that the wave-speed terms' products round
  // (at 1/64 they are exact, and an asymmetric sum agrees by luck).
  constexpr std::int64_t kLong = 100;
  constexpr std::int64_t kShort = 6;
  for (const int steps : {6, 40, 150}) {
    CAPTURE(steps);
    const EulerResult x = euler(EulerCase::sod_x, kLong, kShort, steps, kernels::kVanLeer);
    const EulerResult y = euler(EulerCase::sod_y, kShort, kLong, steps, kernels::kVanLeer);
    CHECK(same_bits(x.final_time, y.final_time));
    const std::size_t cells = kLong * kShort;
    REQUIRE(x.field.size() == 4 * cells);
    REQUIRE(y.field.size() == 4 * cells);
    // Fields rho, rho u, rho v, E: along y the momenta swap.
    const int swap[4] = {0, 2, 1, 3};
    std::size_t differ = 0;
    for (int f = 0; f < 4; ++f) {
      for (std::int64_t j = 0; j < kShort; ++j) {
        for (std::int64_t i = 0; i < kLong; ++i) {
          const double a = x.field[f * cells + static_cast<std::size_t>(j * kLong + i)];
          const double b = y.field[swap[f] * cells + static_cast<std::size_t>(i * kShort + j)];
          if (!same_bits(a, b)) ++differ;
        }
      }
    }
    CHECK(differ == 0);
  }
}

TEST_CASE("euler2d limiter none: read, named, and a different scheme from the limited one") {
  auto model = make_model("euler2d");
  input::JsonFields fields("test");
  model->read_section(fields, nlohmann::json{{"limiter", "none"}}, "euler2d");
  CHECK(fields.count() == 0);
  CHECK(model->resolved_section()["limiter"] == "none");
  input::JsonFields bad("test");
  model->read_section(bad, nlohmann::json{{"limiter", "nope"}}, "euler2d");
  REQUIRE(bad.count() == 1);
  CHECK(bad.problems()[0].find("/euler2d/limiter: \"nope\" is not allowed; expected one of "
                               "minmod, vanleer, none") == 0);

  const EulerResult limited = euler(EulerCase::vortex, 16, 16, 10, kernels::kVanLeer);
  const EulerResult unlimited = euler(EulerCase::vortex, 16, 16, 10, kernels::kNoLimiter);
  REQUIRE(limited.field.size() == unlimited.field.size());
  double largest = 0;
  for (std::size_t i = 0; i < limited.field.size(); ++i) {
    largest = std::max(largest, std::abs(limited.field[i] - unlimited.field[i]));
  }
  CHECK(largest > 1e-6);
}

TEST_CASE("euler2d limiter none: second order on the vortex (16, 32, 64 cells to t = 1)") {
  std::vector<double> errors;
  for (const std::int64_t n : {16, 32, 64}) {
    const EulerResult r = euler(EulerCase::vortex, n, n, 100000, kernels::kNoLimiter, 1.0, false);
    CHECK(r.final_time == 1.0);
    errors.push_back(r.error_l1);
  }
  const double first = std::log2(errors[0] / errors[1]);
  const double second = std::log2(errors[1] / errors[2]);
  CAPTURE(errors[0]);
  CAPTURE(errors[1]);
  CAPTURE(errors[2]);
  CAPTURE(first);
  CAPTURE(second);
  CHECK(second >= 1.8);
  CHECK(second <= 2.4);
  CHECK(first >= 1.6);
}

TEST_CASE("step-time percentiles count only the steps that advanced the state") {
  // A model whose first 4 of 20 steps take 2 ms and the rest (after its end) nothing.
  struct EndsEarly final : models::SteppingState {
    int step(int step, int, int, CUstream_st*) override {
      if (step < 4) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return 1;
    }
    void settle() override {}
    void reset() override {}
    std::vector<Frame*> frames() override { return {}; }
    [[nodiscard]] std::optional<int> steps_advanced() const override { return 4; }
  } model;
  const models::StepTimes times = run_timed_steps(host_run(20), world(), model);
  CHECK(times.steps == 4);
  CHECK(times.min_step_s >= 1.5e-3);
  CHECK(times.p10_step_s >= 1.5e-3);
  CHECK(times.median_step_s >= 1.5e-3);
}

TEST_CASE("euler2d with t_end: the step times are of the steps taken, not the no-ops after") {
  const EulerResult r = euler(EulerCase::vortex, 32, 32, 200, kernels::kVanLeer, 0.2, false);
  REQUIRE(r.steps_taken > 0);
  REQUIRE(r.steps_taken < 100);
  CHECK(r.times.steps == r.steps_taken);
  CAPTURE(r.times.min_step_s);
  CAPTURE(r.times.p10_step_s);
  CAPTURE(r.times.median_step_s);
  CHECK(r.times.p10_step_s > 0.2 * r.times.median_step_s);
  CHECK(r.times.min_step_s > 0.05 * r.times.median_step_s);
}

TEST_CASE("jacobi2d steps_per_frame auto: two where they fit, else one, and said so") {
  JacobiConfig config;
  config.nx = 3;
  config.ny = 3;
  CHECK(config.steps_per_frame == kAutoStepsPerFrame);
  const JacobiFrameSteps thin = jacobi_frame_steps(config, {1, 1, 1});
  CHECK(thin.steps == 1);
  CHECK(thin.thin == "1 computed row along y (1 over 1 rank)");
  config.ny = 4;
  CHECK(jacobi_frame_steps(config, {1, 1, 1}).steps == 2);
  config.nx = 16;
  config.ny = 10;
  CHECK(jacobi_frame_steps(config, {1, 8, 1}).steps == 1);  // 8 rows over 8 ranks
  CHECK(jacobi_frame_steps(config, {8, 1, 1}).steps == 2);  // 16 columns over 8
  CHECK(jacobi_frame_steps(config, {16, 1, 1}).thin == "1 column along x (16 over 16 ranks)");

  // The header says which, once.
  JacobiSettings settings;
  settings.config.nx = 3;
  settings.config.ny = 3;
  StepSummary summary;
  const std::string header = jacobi_header(settings, summary);
  CHECK(header.find("one step a frame (steps_per_frame auto: two do not fit a rank of 1 computed "
                    "row along y (1 over 1 rank))") != std::string::npos);
  settings.config.ny = 6;
  CHECK(jacobi_header(settings, summary).find("two steps a frame (steps_per_frame auto)") !=
        std::string::npos);

  // 1 rank with ny = 3 runs under auto, bitwise as one step a frame; an explicit 2 is refused.
  JacobiConfig run;
  run.nx = 6;
  run.ny = 3;
  run.norm_every = 0;
  run.run = host_run(9);
  run.run.gather = true;
  const JacobiResult<double> automatic = run_jacobi2d<double>(run, world());
  run.steps_per_frame = 1;
  const JacobiResult<double> one = run_jacobi2d<double>(run, world());
  CHECK(automatic.field == one.field);
  run.steps_per_frame = 2;
  std::string refusal;
  try {
    (void)run_jacobi2d<double>(run, world());
  } catch (const Error& error) {
    refusal = error.what();
  }
  CHECK(refusal.find("jacobi2d steps_per_frame: 2 is not allowed on this process grid") == 0);
  CHECK(refusal.find("expected fewer steps, 1 or auto") != std::string::npos);
}

TEST_CASE("jacobi2d steps_per_frame auto: 8 or 4 where every rank's share is thick enough") {
  JacobiConfig config;
  config.nx = 2048;
  config.ny = 2050;  // 2048 computed rows
  JacobiFrameSteps frame = jacobi_frame_steps(config, {1, 1, 1});
  CHECK(frame.steps == 8);
  CHECK(frame.why == "every rank computes at least 1000 cells along each axis");
  CHECK(jacobi_frame_steps(config, {1, 2, 1}).steps == 8);  // 1024 rows each
  CHECK(jacobi_frame_steps(config, {1, 4, 1}).steps == 4);  // 512
  CHECK(jacobi_frame_steps(config, {2, 4, 1}).steps == 4);
  CHECK(jacobi_frame_steps(config, {1, 16, 1}).steps == 2);  // 128
  JacobiConfig square;  // 1024^2: 1022 computed rows, where 8 was measured fastest
  square.nx = 1024;
  square.ny = 1024;
  CHECK(jacobi_frame_steps(square, {1, 1, 1}).steps == 8);
  CHECK(jacobi_frame_steps(square, {2, 1, 1}).steps == 4);  // 512 columns a rank
  frame = jacobi_frame_steps(config, {1, 16, 1});
  CHECK(frame.why.empty());
  CHECK(frame.thin.empty());
  // An explicit depth is what the case asks for, thin when its ghosts do not fit.
  config.steps_per_frame = 8;
  CHECK(jacobi_frame_steps(config, {1, 512, 1}).thin ==
        "4 computed rows along y (2048 over 512 "
        "ranks)");
  CHECK(jacobi_frame_steps(config, {1, 256, 1}).thin.empty());
  config.steps_per_frame = 4;
  CHECK(jacobi_frame_steps(config, {1, 512, 1}).thin.empty());

  JacobiSettings settings;
  settings.config.nx = 300;
  settings.config.ny = 302;
  StepSummary summary;
  CHECK(jacobi_header(settings, summary)
            .find("4 steps a frame (steps_per_frame auto: every rank computes at least 256 cells "
                  "along each axis)") != std::string::npos);
  settings.config.steps_per_frame = 8;
  CHECK(jacobi_header(settings, summary).find("8 steps a frame\n") != std::string::npos);

  // 10 computed rows on one rank: 8 steps a frame fit, a 2D grid of 4 ranks is refused them.
  JacobiConfig run;
  run.nx = 40;
  run.ny = 12;
  run.norm_every = 0;
  run.steps_per_frame = 8;
  run.run = host_run(19);
  run.run.gather = true;
  const JacobiResult<float> deep = run_jacobi2d<float>(run, world());
  run.steps_per_frame = 1;
  const JacobiResult<float> one = run_jacobi2d<float>(run, world());
  CHECK(std::memcmp(deep.field.data(), one.field.data(), one.field.size() * sizeof(float)) == 0);
  run.ny = 9;
  run.steps_per_frame = 8;
  std::string refusal;
  try {
    (void)run_jacobi2d<float>(run, world());
  } catch (const Error& error) {
    refusal = error.what();
  }
  CHECK(refusal.find("jacobi2d steps_per_frame: 8 is not allowed on this process grid: 8 steps a "
                     "frame fill 8 ghost layers, and it leaves a rank 7 computed rows along y") ==
        0);
}

TEST_CASE("jacobi2d: a checkpoint of one steps_per_frame restarts under another, bitwise") {
  // Plain names, not a structured binding: CAPTURE's lambda cannot capture a binding under the
  // sanitizer build's clang.
  for (const auto& pair :
       {std::pair{1, 2}, std::pair{2, 1}, std::pair{8, 1}, std::pair{2, 4}, std::pair{4, 8}}) {
    const int first = pair.first;
    const int second = pair.second;
    CAPTURE(first);
    CAPTURE(second);
    JacobiConfig config;
    config.nx = 20;
    config.ny = 14;
    config.norm_every = 7;
    config.steps_per_frame = first;
    config.run = host_run(21);
    config.run.gather = true;
    const JacobiResult<float> straight = run_jacobi2d<float>(config, world());
    std::vector<unsigned char> saved;
    config.run.steps = 11;
    config.run.checkpoint_every = 11;
    struct Keeper final : models::RunListener {
      std::vector<unsigned char>& kept;
      explicit Keeper(std::vector<unsigned char>& into) : kept(into) {}
      [[nodiscard]] Wants wants() const override { return {.checkpoints = true}; }
      void checkpoint(int done, const std::vector<unsigned char>& state) override {
        if (done == 11) kept = state;
      }
    } keeper(saved);
    config.run.listener = &keeper;
    (void)run_jacobi2d<float>(config, world());
    REQUIRE(!saved.empty());
    config.steps_per_frame = second;
    config.run = host_run(21);
    config.run.gather = true;
    config.run.restart_step = 11;
    config.run.restart_state = saved;
    const JacobiResult<float> restarted = run_jacobi2d<float>(config, world());
    REQUIRE(restarted.field.size() == straight.field.size());
    CHECK(std::memcmp(restarted.field.data(), straight.field.data(),
                      straight.field.size() * sizeof(float)) == 0);
  }
}
