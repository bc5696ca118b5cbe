#pragma once
// What the kernel labs share (tools/labs/*-lab.cu): a CUDA
// call checked (the lab stops, naming the call and line), and a launch timed as the median of 30
// after 3 to warm up, between two events.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    cudaError_t status_ = (call);                                                               \
    if (status_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s (line %d)\n", #call, cudaGetErrorString(status_), __LINE__); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

// The median time of `launch` in microseconds, over `launches` after `warm_up` (each lab keeps the
// counts it was measured with).
inline double median_us(const std::function<void()>& launch, cudaEvent_t start, cudaEvent_t stop,
                        int launches = 30, int warm_up = 3) {
  for (int i = 0; i < warm_up; ++i) launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(static_cast<std::size_t>(launches));
  for (float& m : ms) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&m, start, stop));
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return 1e3 * ms[ms.size() / 2];
}
