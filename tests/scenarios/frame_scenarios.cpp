// Whole frames, one body per scenario for every executor under test (the host tests: host; the
// GPU tests: graph, streams, serial): the seed question without a race, the seed frame against
// the host reference, and a failing host node reported by name.

#include <doctest/doctest.h>

#include <stdexcept>

#include "executors_under_test.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "seed/seed_case.hpp"
#include "seed/seed_measure.hpp"
#include "seed_question.hpp"

using namespace haloflow;

TEST_CASE("the seed question's example ends at 32778 on every executor") {
  for (const auto kind : testing::executors_under_test()) {
    CAPTURE(to_string(kind));
    auto question = testing::build_seed_question(backend_of(kind));
    Frame frame(std::move(question.plan), kind);
    for (int repeat = 0; repeat < 3; ++repeat) {
      frame.run();
      const auto values = question.result();
      CHECK(values.back() == 32778);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < values.size(); ++i)
        wrong += values[i] != static_cast<int>(i) + 11;
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("the seed frame matches the host reference on every executor") {
  for (const auto kind : testing::executors_under_test()) {
    CAPTURE(to_string(kind));
    const bool host = kind == ExecutorKind::host;
    models::SeedCase seed;
    seed.cells = host ? 50000 : 1 << 22;
    seed.halo_cells = host ? 1000 : 1 << 16;
    seed.intensity = host ? 2 : 3;
    seed.host_work_us = host ? 5 : 20;
    seed.frames = 4;
    seed.host_frames = 2;
    seed.warmup_frames = 1;
    const auto report = models::measure_seed(seed, kind);
    CHECK(report.frames == (host ? 2 : 4));
    // The host executor runs the same std::sin as the reference: exact; the GPU's sin is not.
    CHECK(report.max_error <= (host ? 1e-15 : 1e-12));
    CHECK(report.frame_us > 0);
    CHECK(report.hidden >= 0);
    CHECK(report.hidden <= 1);
  }
}

TEST_CASE("a host node that throws is reported by wait(), once, with its name") {
  for (const auto kind : testing::executors_under_test()) {
    CAPTURE(to_string(kind));
    int calls = 0;
    FramePlan plan("failing");
    plan.add_host({.name = "exchange", .lane = Lane::communication}, [&calls] {
      if (++calls == 1) throw std::runtime_error("peer 1 did not answer within 2 s");
    });
    Frame frame(std::move(plan), kind);
    CHECK_THROWS_WITH_AS(frame.run(),
                         "host node 'exchange' failed: peer 1 did not answer within 2 s", Error);
    CHECK_NOTHROW(frame.run());  // a failure is reported once; the next frame starts clean
    CHECK(calls == 2);
  }
}
