// The shared scenarios (tests/scenarios) run on every GPU executor here.

#include "executors_under_test.hpp"

namespace haloflow::testing {

std::vector<ExecutorKind> executors_under_test() {
  return {ExecutorKind::graph, ExecutorKind::streams, ExecutorKind::serial};
}

}  // namespace haloflow::testing
