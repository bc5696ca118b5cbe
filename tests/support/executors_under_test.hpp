#pragma once
// The executors a test executable runs the shared scenarios (tests/scenarios) on: the host tests
// define them as the host executor, the GPU tests as graph, streams and serial. One test body per
// scenario, instantiated per executor, as Kokkos runs one body per enabled backend.

#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/frame.hpp"

namespace haloflow::testing {

//! The executors this test executable covers.
[[nodiscard]] std::vector<ExecutorKind> executors_under_test();

//! Where their buffers live.
[[nodiscard]] inline Backend backend_under_test() {
  return backend_of(executors_under_test().front());
}

}  // namespace haloflow::testing
