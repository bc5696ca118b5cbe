// The step loop every model shares, with a model of its own that takes two steps a frame where it
// may: frames end where the loop must see the state (outputs, checkpoints, the end), the times
// count steps, not frames, and replay's frame limit ends the run after that many frames.

#include <doctest/doctest.h>
#include <mpi.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "haloflow/error.hpp"
#include "test_mpi.hpp"
#include "timed_steps.hpp"

using namespace haloflow;

namespace {

struct Launch {
  int step = 0;
  int most = 0;
  friend bool operator==(const Launch&, const Launch&) = default;
};

// Hooks of a model without state whose frames take `per` steps, or fewer where `most` says so.
struct PairedModel {
  int per = 2;
  std::vector<Launch> launches;
  std::vector<int> outputs;
  std::vector<int> checkpoints;
  models::StepHooks hooks() {
    models::StepHooks h;
    h.step = [this](int step, int /*steps*/, int most, CUstream_st* /*stream*/) {
      launches.push_back({step, most});
      return std::min(per, most);
    };
    h.settle = [] {};
    h.reset = [] {};
    h.output = [this](int done) { outputs.push_back(done); };
    h.save = [] { return std::vector<unsigned char>(1, 0); };
    return h;
  }
};

// The world of the test's MPI session (started on first use).
MPI_Comm world() {
  (void)testing::test_mpi();
  return MPI_COMM_WORLD;
}

models::RunOptions host_run(int steps) {
  models::RunOptions run;
  run.executor = ExecutorKind::host;
  run.steps = steps;
  return run;
}

}  // namespace

TEST_CASE("frames of several steps end where the loop must see the state") {
  PairedModel model;
  models::RunOptions run = host_run(10);
  run.output = [](const models::OwnedField&) {};
  run.output_every = 4;
  run.checkpoint = [&](int done, const std::vector<unsigned char>&) {
    model.checkpoints.push_back(done);
  };
  run.checkpoint_every = 3;
  const models::StepTimes times = models::run_timed_steps(run, world(), model.hooks());
  // Outputs after 4 and 8 (and the last), checkpoints after 3, 6 and 9: a frame of two steps only
  // where neither falls inside it.
  CHECK(model.launches ==
        std::vector<Launch>{{0, 3}, {2, 1}, {3, 1}, {4, 2}, {6, 2}, {8, 1}, {9, 1}});
  CHECK(model.outputs == std::vector<int>{0, 4, 8, 10});
  CHECK(model.checkpoints == std::vector<int>{3, 6, 9});
  CHECK(times.steps == 10);
}

TEST_CASE("a run of two-step frames counts its steps, and replay's frame limit stops it") {
  PairedModel model;
  models::RunOptions run = host_run(9);
  CHECK(models::run_timed_steps(run, world(), model.hooks()).steps == 9);
  CHECK(model.launches ==
        std::vector<Launch>{{0, 9}, {2, 7}, {4, 5}, {6, 3}, {8, 1}});  // the last alone
  model.launches.clear();
  run.frames_limit = 3;
  CHECK(models::run_timed_steps(run, world(), model.hooks()).steps == 6);
  CHECK(model.launches.size() == 3);
}

TEST_CASE("a frame that says it took more steps than allowed ends the run") {
  PairedModel model;
  models::StepHooks hooks = model.hooks();
  hooks.step = [](int, int, int most, CUstream_st*) { return most + 1; };
  CHECK_THROWS_WITH_AS((void)models::run_timed_steps(host_run(4), world(), hooks),
                       "a model's frame took 5 steps where 1 to 4 were allowed", Error);
}
