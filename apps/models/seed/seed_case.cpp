#include "seed_case.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "printable.hpp"

namespace haloflow::models {

const std::vector<std::string>& seed_run_keys() {
  static const std::vector<std::string> keys{"frames", "host_frames", "warmup_frames", "executors"};
  return keys;
}

void read_seed_section(input::JsonFields& fields, const nlohmann::json& grid, SeedCase& seed) {
  fields.only_keys(
      grid, "/seed",
      {"cells", "halo_cells", "intensity", "block_size", "copy_blocks", "host_work_us"});
  constexpr std::int64_t kMaxCells = std::int64_t{1} << 34;  // 128 GiB of doubles
  seed.cells = static_cast<std::size_t>(
      fields.integer(grid, "/seed/cells", static_cast<std::int64_t>(seed.cells), 2, kMaxCells));
  seed.halo_cells = static_cast<std::size_t>(fields.integer(
      grid, "/seed/halo_cells", static_cast<std::int64_t>(seed.halo_cells), 1, kMaxCells));
  if (seed.halo_cells >= seed.cells) {
    fields.report("/seed/halo_cells",
                  fmt::format("{} is not allowed; expected fewer than /seed/cells ({})",
                              seed.halo_cells, seed.cells));
  }
  seed.intensity = static_cast<int>(fields.integer(grid, "/seed/intensity", 1, 0, 100000));
  seed.block_size = static_cast<unsigned>(fields.integer(grid, "/seed/block_size", 512, 32, 1024));
  if (seed.block_size % 32 != 0) {
    fields.report("/seed/block_size",
                  fmt::format("{} is not allowed; expected a multiple of 32", seed.block_size));
  }
  seed.copy_blocks =
      static_cast<unsigned>(fields.integer(grid, "/seed/copy_blocks", 320, 1, 65535));
  seed.host_work_us = fields.number(grid, "/seed/host_work_us", 100, 0, 1e7);
}

void read_seed_run(input::JsonFields& fields, const nlohmann::json& run, SeedCase& seed) {
  seed.frames = static_cast<int>(fields.integer(run, "/run/frames", seed.frames, 1, 1000000));
  seed.host_frames =
      static_cast<int>(fields.integer(run, "/run/host_frames", seed.host_frames, 1, 1000000));
  seed.warmup_frames =
      static_cast<int>(fields.integer(run, "/run/warmup_frames", seed.warmup_frames, 0, 1000));
  if (run.contains("executors")) {
    const auto& list = run["executors"];
    if (!list.is_array() || list.empty()) {
      fields.report("/run/executors",
                    fmt::format("{} is not allowed; expected a non-empty array of executor names",
                                input::shown(list)));
    } else {
      seed.executors.clear();
      for (std::size_t i = 0; i < list.size(); ++i) {
        const auto name = fields.choice(list[i], fmt::format("/run/executors/{}", i),
                                        {"graph", "streams", "serial", "host"});
        if (const auto kind = executor_from_string(name)) seed.executors.push_back(*kind);
      }
    }
  }
}

}  // namespace haloflow::models
