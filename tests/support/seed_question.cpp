#include "seed_question.hpp"

#include "test_kernels.hpp"

namespace haloflow::testing {

std::vector<int> SeedQuestion::result() const {
  std::vector<int> values(small);
  device_ints.download(values.data(), small * sizeof(int));
  return values;
}

SeedQuestion build_seed_question(Backend backend) {
  SeedQuestion q{
      .long_in = Buffer(Memory::device, SeedQuestion::large * sizeof(float), "long in", backend),
      .long_out = Buffer(Memory::device, SeedQuestion::large * sizeof(float), "long out", backend),
      .device_ints = Buffer(Memory::device, SeedQuestion::small * sizeof(int), "small", backend),
      .host_ints = Buffer(Memory::host, SeedQuestion::small * sizeof(int), "small host", backend),
      .plan = FramePlan("seed question")};
  const std::vector<float> ones(SeedQuestion::large, 1.0F);
  q.long_in.upload(ones.data(), ones.size() * sizeof(float));
  // Poison the integers so an element nobody wrote cannot pass.
  const std::vector<int> poison(SeedQuestion::small, -777);
  q.device_ints.upload(poison.data(), poison.size() * sizeof(int));

  constexpr Lane comm = Lane::communication;
  const std::size_t bytes = SeedQuestion::small * sizeof(int);
  auto* ints = q.device_ints.as<int>();
  auto* staged = q.host_ints.as<int>();
  q.plan.add_kernel({.name = "long"}, long_add(), LaunchShape::cover(SeedQuestion::large, 32),
                    SeedQuestion::large, q.long_in.as<const float>(), q.long_out.as<float>());
  q.plan.add_kernel({.name = "write_index", .lane = comm}, write_index(),
                    LaunchShape::cover(SeedQuestion::small, 32), SeedQuestion::small, ints);
  q.plan.add_copy({.name = "download", .lane = comm, .after = {"write_index"}}, q.host_ints.view(),
                  q.device_ints.view(), bytes);
  q.plan.add_host({.name = "modify", .lane = comm, .after = {"download"}}, [staged] {
    for (std::size_t i = 0; i < SeedQuestion::small; ++i) staged[i] += 1;
  });
  q.plan.add_copy({.name = "upload", .lane = comm, .after = {"modify"}}, q.device_ints.view(),
                  q.host_ints.view(), bytes);
  q.plan.add_kernel({.name = "add_ten", .lane = comm, .after = {"upload"}}, add_ten(),
                    LaunchShape::cover(SeedQuestion::small, 32), SeedQuestion::small, ints);
  return q;
}

}  // namespace haloflow::testing
