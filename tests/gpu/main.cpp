// GPU tests: without a usable CUDA device, say so and exit 77, which ctest reports as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "haloflow/device.hpp"

int main(int argc, char** argv) {
  if (!haloflow::gpu_available()) {
    std::puts("no CUDA device: GPU tests skipped");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
