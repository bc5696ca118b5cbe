// The host executor's orders (HostOrder): each runs every node once and after its dependencies,
// host nodes keep their insertion order, and a plan that lacks an edge gives another result than
// the insertion order, as it would race on a GPU.

#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

using namespace haloflow;

namespace {

// What the nodes of a frame did, in order; locked, since the `threads` order runs them at once.
struct Log {
  std::mutex mutex;
  std::vector<int> ran;
  void add(int node) {
    const std::lock_guard lock(mutex);
    ran.push_back(node);
  }
};

void record(const LaunchShape& /*shape*/, Log* log, int node) {
  log->add(node);
}
constexpr KernelRef<Log*, int> kRecord{nullptr, &record, "record"};

void store(const LaunchShape& /*shape*/, int* target, int value) {
  *target = value;
}
constexpr KernelRef<int*, int> kStore{nullptr, &store, "store"};

void copy_value(const LaunchShape& /*shape*/, const int* from, int* to) {
  *to = *from;
}
constexpr KernelRef<const int*, int*> kCopy{nullptr, &copy_value, "copy"};

void fail(const LaunchShape& /*shape*/, int /*unused*/) {
  throw Error("planted failure");
}
constexpr KernelRef<int> kFail{nullptr, &fail, "fail"};

const LaunchShape kOne = LaunchShape::fixed(1, 1);

std::string node_name(int node) {
  std::string name = "n";
  name += std::to_string(node);
  return name;
}

std::vector<HostOrdering> every_reordering() {
  return {{HostOrder::reverse, 0}, {HostOrder::shuffled, 7}, {HostOrder::threads, 0}};
}

// A layered DAG of kernel nodes (each after one or two of the layer before) with host nodes
// between, all independent of each other unless an edge says so.
struct RandomPlan {
  FramePlan plan{"random"};
  std::vector<std::vector<int>> after;  // each node's dependencies, by number
  std::vector<int> host_nodes;          // in insertion order
};

RandomPlan random_plan(Log& log, unsigned seed) {
  RandomPlan made;
  std::mt19937 random(seed);
  int count = 0;
  std::vector<int> previous_layer;
  for (int layer = 0; layer < 5; ++layer) {
    std::vector<int> this_layer;
    for (int i = 0; i < 6; ++i) {
      const int node = count++;
      std::vector<int> deps;
      if (!previous_layer.empty()) {
        deps.push_back(previous_layer[random() % previous_layer.size()]);
        if (random() % 2 == 0) deps.push_back(previous_layer[random() % previous_layer.size()]);
      }
      NodeOptions options{.name = node_name(node)};
      for (const int d : deps) options.after.push_back(node_name(d));
      if (i == 5) {
        made.plan.add_host(options, [&log, node] { log.add(node); });
        made.host_nodes.push_back(node);
      } else {
        made.plan.add_kernel(options, kRecord, kOne, &log, node);
      }
      made.after.push_back(deps);
      this_layer.push_back(node);
    }
    previous_layer = this_layer;
  }
  return made;
}

}  // namespace

TEST_CASE("every host order runs each node once, after its dependencies") {
  std::vector<HostOrdering> orders = every_reordering();
  orders.push_back({HostOrder::insertion, 0});
  for (const HostOrdering& ordering : orders) {
    CAPTURE(to_string(ordering));
    for (unsigned seed = 1; seed <= 5; ++seed) {
      Log log;
      RandomPlan made = random_plan(log, seed);
      const auto after = made.after;
      const auto host_nodes = made.host_nodes;
      Frame frame(std::move(made.plan), ExecutorKind::host, {.host_order = ordering});
      for (int launch = 0; launch < 4; ++launch) {
        log.ran.clear();
        frame.launch();
        frame.wait();
        REQUIRE(log.ran.size() == after.size());
        std::vector<std::size_t> position(after.size());
        for (std::size_t i = 0; i < log.ran.size(); ++i) {
          position[static_cast<std::size_t>(log.ran[i])] = i;
        }
        std::vector<int> sorted = log.ran;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < sorted.size(); ++i) CHECK(sorted[i] == static_cast<int>(i));
        for (std::size_t node = 0; node < after.size(); ++node) {
          for (const int d : after[node]) {
            CHECK_MESSAGE(position[static_cast<std::size_t>(d)] < position[node], "n", node,
                          " ran before its dependency n", d);
          }
        }
        for (std::size_t i = 1; i < host_nodes.size(); ++i) {
          CHECK(position[static_cast<std::size_t>(host_nodes[i - 1])] <
                position[static_cast<std::size_t>(host_nodes[i])]);
        }
      }
    }
  }
}

TEST_CASE("a missing dependency shows up in another host order") {
  // "boundary" reads what "unpack" writes, but the plan forgot `.after = {"unpack"}`: added in
  // that order, the insertion order runs them right anyway.
  const auto run = [](const HostOrdering& ordering) {
    int ghost = 0;
    int boundary = -1;
    FramePlan plan("forgotten edge");
    plan.add_kernel({.name = "unpack"}, kStore, kOne, &ghost, 42);
    plan.add_kernel({.name = "boundary"}, kCopy, kOne, &ghost, &boundary);
    Frame frame(std::move(plan), ExecutorKind::host, {.host_order = ordering});
    frame.launch();
    frame.wait();
    return boundary;
  };
  CHECK(run({HostOrder::insertion, 0}) == 42);
  CHECK(run({HostOrder::reverse, 0}) == 0);
  // Shuffled: some seed among a few runs the boundary first (each seed always does the same).
  bool caught = false;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) caught |= run({HostOrder::shuffled, seed}) == 0;
  CHECK(caught);
  CHECK(run({HostOrder::shuffled, 3}) == run({HostOrder::shuffled, 3}));
}

TEST_CASE("shuffled orders repeat with their seed and differ between seeds") {
  const auto orders = [](std::uint64_t seed) {
    Log log;
    FramePlan plan("wide");
    for (int i = 0; i < 16; ++i) {
      plan.add_kernel({.name = node_name(i)}, kRecord, kOne, &log, i);
    }
    Frame frame(std::move(plan), ExecutorKind::host,
                {.host_order = HostOrdering{HostOrder::shuffled, seed}});
    std::vector<std::vector<int>> launches;
    for (int launch = 0; launch < 3; ++launch) {
      log.ran.clear();
      frame.launch();
      launches.push_back(log.ran);
    }
    return launches;
  };
  const auto first = orders(11);
  CHECK(first == orders(11));
  CHECK(first != orders(12));
  CHECK(first[0] != first[1]);  // a new order at every launch
}

TEST_CASE(
    "a failing node under the threads order fails the launch, naming it, and the frame runs "
    "again") {
  int value = 0;
  bool failing = true;
  FramePlan plan("failing");
  plan.add_kernel({.name = "before"}, kStore, kOne, &value, 1);
  plan.add_host({.name = "maybe fail", .after = {"before"}}, [&failing] {
    if (failing) throw Error("planted failure");
  });
  plan.add_kernel({.name = "after", .after = {"maybe fail"}}, kStore, kOne, &value, 2);
  Frame frame(std::move(plan), ExecutorKind::host,
              {.host_order = HostOrdering{HostOrder::threads, 0}});
  try {
    frame.launch();
    frame.wait();
    FAIL("the planted failure was not reported");
  } catch (const Error& error) {
    const std::string message = error.what();
    CHECK(message.find("maybe fail") != std::string::npos);
    CHECK(message.find("planted failure") != std::string::npos);
  }
  CHECK(value == 1);  // "after" never started
  failing = false;
  frame.launch();
  frame.wait();
  CHECK(value == 2);
}

TEST_CASE("a kernel's failure under the threads order names the node") {
  FramePlan plan("kernel fails");
  plan.add_kernel({.name = "boom"}, kFail, kOne, 0);
  Frame frame(std::move(plan), ExecutorKind::host,
              {.host_order = HostOrdering{HostOrder::threads, 0}});
  CHECK_THROWS_WITH_AS(frame.launch(), doctest::Contains("kernel node 'boom' failed"), Error);
}

TEST_CASE("HostOrdering reads its text and HALOFLOW_HOST_ORDER") {
  CHECK(HostOrdering::parse("insertion") == HostOrdering{HostOrder::insertion, 0});
  CHECK(HostOrdering::parse("reverse") == HostOrdering{HostOrder::reverse, 0});
  CHECK(HostOrdering::parse("threads") == HostOrdering{HostOrder::threads, 0});
  CHECK(HostOrdering::parse("shuffled:123") == HostOrdering{HostOrder::shuffled, 123});
  CHECK(HostOrdering::parse("shuffled").order == HostOrder::shuffled);
  CHECK(to_string(HostOrdering{HostOrder::shuffled, 5}) == "shuffled:5");
  CHECK_THROWS_WITH_AS((void)HostOrdering::parse("shuffled:x1"),
                       doctest::Contains("the seed 'x1' is not an unsigned 64-bit integer"), Error);
  CHECK_THROWS_WITH_AS((void)HostOrdering::parse("random"),
                       doctest::Contains("'random' is not one of insertion, reverse, shuffled, "
                                         "shuffled:SEED or threads"),
                       Error);

  const char* saved = getenv("HALOFLOW_HOST_ORDER");
  const std::string kept = saved != nullptr ? saved : "";
  unsetenv("HALOFLOW_HOST_ORDER");
  CHECK(HostOrdering::from_environment() == HostOrdering{});
  setenv("HALOFLOW_HOST_ORDER", "reverse", 1);
  CHECK(HostOrdering::from_environment() == HostOrdering{HostOrder::reverse, 0});
  setenv("HALOFLOW_HOST_ORDER", "backwards", 1);
  CHECK_THROWS_WITH_AS((void)HostOrdering::from_environment(),
                       doctest::Contains("HALOFLOW_HOST_ORDER=backwards: host order 'backwards' "
                                         "is not one of"),
                       Error);
  // A frame built without an explicit order reads the variable.
  FramePlan plan("from the environment");
  int value = 0;
  plan.add_kernel({.name = "store"}, kStore, kOne, &value, 1);
  CHECK_THROWS_WITH_AS(Frame(std::move(plan), ExecutorKind::host),
                       doctest::Contains("HALOFLOW_HOST_ORDER=backwards"), Error);
  if (saved != nullptr) {
    setenv("HALOFLOW_HOST_ORDER", kept.c_str(), 1);
  } else {
    unsetenv("HALOFLOW_HOST_ORDER");
  }
}
