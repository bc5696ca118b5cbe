#include "haloflow/launch.hpp"

#include <fmt/format.h>

#include <limits>

#include "haloflow/error.hpp"

namespace haloflow {

LaunchShape LaunchShape::cover(std::size_t items, unsigned block_size) {
  if (block_size == 0) throw Error("a launch needs a block size of at least one thread");
  const std::size_t blocks = (items + block_size - 1) / block_size;
  // CUDA's grid x-extent limit.
  if (blocks > std::numeric_limits<int>::max()) {
    throw Error(fmt::format("{} items in blocks of {} need {} blocks, over CUDA's limit of {}",
                            items, block_size, blocks, std::numeric_limits<int>::max()));
  }
  return LaunchShape{.grid = {static_cast<unsigned>(blocks), 1, 1}, .block = {block_size, 1, 1}};
}

LaunchShape LaunchShape::fixed(unsigned blocks, unsigned block_size) {
  return LaunchShape{.grid = {blocks, 1, 1}, .block = {block_size, 1, 1}};
}

}  // namespace haloflow
