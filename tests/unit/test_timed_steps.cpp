// The step loop every model shares, with a model of its own that takes two steps a frame where it
// may: frames end where the loop must see the state (outputs, checkpoints, the end), the times
// count steps, not frames, and replay's frame limit ends the run after that many frames.

#include <doctest/doctest.h>
#include <mpi.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "frame_loops.hpp"
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

TEST_CASE("several frames a launch: the progress reports end launches too, and the report says") {
  PairedModel model;
  model.per = 100;  // a model that would take every step it is allowed
  models::RunOptions run = host_run(10);
  struct Listener final : models::RunListener {
    std::vector<int> progress_seen;
    [[nodiscard]] Wants wants() const override { return {.progress = true}; }
    void progress(int done, int /*steps*/) override { progress_seen.push_back(done); }
  } listener;
  run.listener = &listener;
  run.progress_every = 4;
  run.frames_per_launch = 8;
  const models::StepTimes times = models::run_timed_steps(run, world(), model);
  CHECK(model.launches == std::vector<Launch>{{0, 4}, {4, 4}, {8, 2}});
  CHECK(times.launches ==
        "frames per launch: 1 of the 8 asked (run.frames_per_launch): this model launches its "
        "frames one by one");
  // A frame a launch: the progress reports do not bound the frames, as before.
  model.launches.clear();
  run.frames_per_launch = 1;
  CHECK(models::run_timed_steps(run, world(), model).launches.empty());
  CHECK(model.launches == std::vector<Launch>{{0, 10}});
}

TEST_CASE("the frames a launch takes stop at `most` and before a step that needs its own frame") {
  const auto never = [](int) { return false; };
  CHECK(models::frames_that_fit(8, 1, 0, 100, never) == 8);
  CHECK(models::frames_that_fit(8, 2, 0, 5, never) == 2);  // two frames of 2 in 5 steps
  CHECK(models::frames_that_fit(8, 3, 4, 2, never) == 0);
  CHECK(models::frames_that_fit(1, 1, 0, 100, never) == 1);
  // A norm every 5 steps, from step 3: steps 3, 4 in frames of 1; 3..8 in frames of 2 (5 is in
  // the second).
  const auto norm_every_5 = [](int step) { return step % 5 == 0; };
  CHECK(models::frames_that_fit(8, 1, 3, 100, norm_every_5) == 2);
  CHECK(models::frames_that_fit(8, 2, 3, 100, norm_every_5) == 1);
  CHECK(models::frames_that_fit(8, 1, 5, 100, norm_every_5) == 0);
}

TEST_CASE("the header's line says what a launch holds, or why the frames go one by one") {
  CHECK(models::frames_per_launch_line(1, "").empty());
  CHECK(models::frames_per_launch_line(1, "anything").empty());
  CHECK(models::frames_per_launch_line(8, "") ==
        "frames per launch: 8 (run.frames_per_launch): a CUDA graph WHILE node repeats the frames "
        "of both field sets on the GPU; a launch ends early at norms, outputs, checkpoints and "
        "progress reports");
  CHECK(models::frames_per_launch_line(3, "host node 'x' of frame 'y' is host work") ==
        "frames per launch: 1 of the 3 asked (run.frames_per_launch): host node 'x' of frame 'y' "
        "is host work");
}
