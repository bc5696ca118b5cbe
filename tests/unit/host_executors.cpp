// The shared scenarios (tests/scenarios) run on the host executor here.

#include "executors_under_test.hpp"

namespace haloflow::testing {

std::vector<ExecutorKind> executors_under_test() {
  return {ExecutorKind::host};
}

}  // namespace haloflow::testing
