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

// A model without state whose frames take `per` steps, or fewer where `most` says so.
struct PairedModel final : models::SteppingState {
  int per = 2;
  std::vector<Launch> launches;
  std::vector<int> outputs;
  std::vector<int> checkpoints;
  int step(int step, int /*steps*/, int most, CUstream_st* /*stream*/) override {
    launches.push_back({step, most});
    return std::min(per, most);
  }
  void settle() override {}
  void reset() override {}
  std::vector<Frame*> frames() override { return {}; }
  [[nodiscard]] bool has_field() const override { return true; }
  void output(int done) override { outputs.push_back(done); }
  [[nodiscard]] bool saves_state() const override { return true; }
  std::vector<unsigned char> save() override { return std::vector<unsigned char>(1, 0); }
};

// A frame that says it took more steps than allowed.
struct OverreachingModel final : models::SteppingState {
  int step(int, int, int most, CUstream_st*) override { return most + 1; }
  void settle() override {}
  void reset() override {}
  std::vector<Frame*> frames() override { return {}; }
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
  // Asks for the fields (the model notes its outputs) and notes the checkpoints.
  struct Listener final : models::RunListener {
    std::vector<int>& checkpoints;
    explicit Listener(std::vector<int>& noted) : checkpoints(noted) {}
    [[nodiscard]] Wants wants() const override { return {.fields = true, .checkpoints = true}; }
    void checkpoint(int done, const std::vector<unsigned char>&) override {
      checkpoints.push_back(done);
    }
  } listener(model.checkpoints);
  run.listener = &listener;
  run.output_every = 4;
  run.checkpoint_every = 3;
  const models::StepTimes times = models::run_timed_steps(run, world(), model);
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
  CHECK(models::run_timed_steps(run, world(), model).steps == 9);
  CHECK(model.launches ==
        std::vector<Launch>{{0, 9}, {2, 7}, {4, 5}, {6, 3}, {8, 1}});  // the last alone
  model.launches.clear();
  run.frames_limit = 3;
  CHECK(models::run_timed_steps(run, world(), model).steps == 6);
  CHECK(model.launches.size() == 3);
}

TEST_CASE("a frame that says it took more steps than allowed ends the run") {
  OverreachingModel model;
  CHECK_THROWS_WITH_AS((void)models::run_timed_steps(host_run(4), world(), model),
                       "a model's frame took 5 steps where 1 to 4 were allowed", Error);
}
