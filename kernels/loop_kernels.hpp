#pragma once
// The device side of a frame loop (graphs/graph_loop.cpp): the kernel before the WHILE node that
// sets the repetitions a launch asks for, and the one at the end of the body that counts them down
// and ends the loop. Internal header, free of CUDA types so host code can include it.

#include <cstdint>

namespace haloflow::detail {

//! The `__global__` entry of `loop_start(unsigned* left, unsigned repetitions)`: sets `*left`.
//! Launch it <<<1, 1>>>.
[[nodiscard]] const void* loop_start_entry();
//! The `__global__` entry of `loop_next(unsigned* left, cudaGraphConditionalHandle handle)`
//! (the handle is an unsigned long long): counts `*left` down and sets the handle's condition to
//! 0 once it reaches 0. Launch it <<<1, 1>>>.
[[nodiscard]] const void* loop_next_entry();

}  // namespace haloflow::detail
