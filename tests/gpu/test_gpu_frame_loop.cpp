// Frame loops on the GPU: the graph executor's WHILE loop runs its cycle exactly the repetitions
// each launch asks for, in order with the frames launched alone on the same stream, and lowers
// again after a frame's update; the streams executor's loop (frame by frame) gives the same;
// proxied host nodes run once a repetition, in order (the host-node handoff falls back).

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <mutex>
#include <string>
#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/frame_loop.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

namespace {

constexpr std::size_t kCells = 4096;

std::vector<float> values_of(const Buffer& buffer) {
  std::vector<float> values(kCells);
  buffer.download(values.data(), kCells * sizeof(float));
  return values;
}

bool all_equal(const std::vector<float>& values, float expected) {
  for (const float value : values) {
    if (value != expected) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("a frame loop runs its cycle the repetitions asked, in stream order") {
  for (const auto kind : {ExecutorKind::graph, ExecutorKind::streams}) {
    CAPTURE(to_string(kind));
    const std::string missing = device_loop_missing(kind);
    if (kind == ExecutorKind::graph && !missing.empty()) {
      MESSAGE("the graph loop is not checked: " << missing);
      continue;
    }
    Buffer a(Memory::device, kCells * sizeof(float), "a", Backend::cuda);
    Buffer b(Memory::device, kCells * sizeof(float), "b", Backend::cuda);
    Buffer c(Memory::device, kCells * sizeof(float), "c", Backend::cuda);
    const std::vector<float> zeros(kCells, 0.0F);
    for (Buffer* buffer : {&a, &b, &c}) buffer->upload(zeros.data(), kCells * sizeof(float));
    // Each frame adds 2000 to what the other wrote: the values count the frames that ran.
    FramePlan even_plan("even");
    const auto add =
        even_plan.add_kernel({.name = "add"}, testing::long_add(), LaunchShape::cover(kCells, 128),
                             kCells, a.as<float>(), b.as<float>());
    FramePlan odd_plan("odd");
    odd_plan.add_kernel({.name = "add"}, testing::long_add(), LaunchShape::cover(kCells, 128),
                        kCells, b.as<float>(), a.as<float>());
    Frame even(even_plan, kind);
    Frame odd(odd_plan, kind);
    FrameLoop loop({&even, &odd});
    CHECK(loop.on_device() == (kind == ExecutorKind::graph));
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    loop.launch(3, stream);
    even.launch(stream);
    odd.launch(stream);
    loop.launch(1, stream);
    loop.launch(5, stream);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    loop.wait();
    CHECK(all_equal(values_of(a), 2000.0F * 2 * 10));
    CHECK(all_equal(values_of(b), 2000.0F * (2 * 10 - 1)));

    // After an update the loop runs the new parameters: the even frame now writes c.
    even.update(add, kCells, a.as<float>(), c.as<float>());
    loop.launch(1, stream);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    loop.wait();
    CHECK(all_equal(values_of(c), 2000.0F * 21));
    CHECK(all_equal(values_of(a), 2000.0F * 20));  // b, unchanged, plus 2000
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
  }
}

TEST_CASE("a frame loop runs its frames' proxied host nodes once a repetition, in order") {
  const std::string missing = device_loop_missing(ExecutorKind::graph);
  if (!missing.empty()) {
    MESSAGE("the graph loop is not checked: " << missing);
    return;
  }
  Buffer a(Memory::device, kCells * sizeof(float), "a", Backend::cuda);
  Buffer b(Memory::device, kCells * sizeof(float), "b", Backend::cuda);
  const std::vector<float> zeros(kCells, 0.0F);
  a.upload(zeros.data(), kCells * sizeof(float));
  b.upload(zeros.data(), kCells * sizeof(float));
  // The host nodes note which frame ran them: the progress thread must serve them in the order
  // the loop's repetitions reach them.
  std::mutex mutex;
  std::vector<int> ran;
  const auto plan = [&](const char* name, Buffer& from, Buffer& to, int frame) {
    FramePlan p(name);
    p.add_kernel({.name = "add"}, testing::long_add(), LaunchShape::cover(kCells, 128), kCells,
                 from.as<float>(), to.as<float>());
    p.add_host({.name = "note", .after = {"add"}}, [&mutex, &ran, frame] {
      const std::lock_guard lock(mutex);
      ran.push_back(frame);
    });
    return p;
  };
  for (const Handoff handoff : {Handoff::proxy, Handoff::host_node}) {
    CAPTURE(to_string(handoff));
    ran.clear();
    const FrameOptions options{.handoff = handoff};
    Frame even(plan("even", a, b, 0), ExecutorKind::graph, options);
    Frame odd(plan("odd", b, a, 1), ExecutorKind::graph, options);
    FrameLoop loop({&even, &odd});
    CHECK(loop.on_device() == (handoff == Handoff::proxy));
    if (handoff == Handoff::host_node) {
      CHECK(loop.fallback().find("exchange.handoff host-node") != std::string::npos);
    }
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    loop.launch(4, stream);
    even.launch(stream);
    odd.launch(stream);
    loop.launch(3, stream);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    loop.wait();
    const std::lock_guard lock(mutex);
    REQUIRE(ran.size() == 16);
    for (std::size_t i = 0; i < ran.size(); ++i) CHECK(ran[i] == static_cast<int>(i % 2));
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
  }
  CHECK(all_equal(values_of(a), 2000.0F * 32));  // 16 frames under each handoff
  CHECK(all_equal(values_of(b), 2000.0F * 31));
}
