#pragma once
// The seed question's minimal example as a frame: a long low-priority kernel runs while
// write_index -> download -> host +1 -> upload -> add_ten runs at high priority. Without a race
// every element ends as i + 11; the last is the documented 32778.

#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/plan.hpp"

namespace haloflow::testing {

struct SeedQuestion {
  static constexpr std::size_t small = 32 * 1024;
  static constexpr std::size_t large = 2 * 1024 * 1024;
  Buffer long_in;
  Buffer long_out;
  Buffer device_ints;
  Buffer host_ints;
  FramePlan plan;

  //! The device integers after a frame.
  [[nodiscard]] std::vector<int> result() const;
};

SeedQuestion build_seed_question(Backend backend);

}  // namespace haloflow::testing
