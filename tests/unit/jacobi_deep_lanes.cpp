// jacobi2d's deep sweep, the GPU kernel's own source, run on the CPU: one std::thread a lane of a
// warp, its shuffles and votes through a barrier, the launch's blocks and warps one after another
// (the kernel's warps share nothing). CI has no GPU, and the sweep's indexing (strips, bands, the
// ring's slots, the predicated rows past a band) is where it can go wrong without the host twin
// noticing: this checks that code against the twin, bit for bit, and that it writes its box and
// nothing else; built with the address sanitizer's checks where the build has them, a read past
// the ghosts shows too. Exit 0 when every case matches.
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

namespace lanes {
struct Index {
  unsigned x = 0, y = 0, z = 0;
};
}  // namespace lanes

// What the kernel's source needs of CUDA, on the CPU.
thread_local lanes::Index threadIdx;
lanes::Index blockIdx;
lanes::Index blockDim;
lanes::Index gridDim;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static thread_local
inline void __syncthreads() {}
inline void __threadfence() {}
template <class T>
T __ldcg(const T* p) {
  return *p;
}
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  const unsigned old = *p;
  *p += v;
  return old;
}

namespace lanes {
std::barrier<>* warp_barrier = nullptr;
double slots[32];
thread_local int lane = 0;

// Lane `from`'s `value` (its own where `from` lies outside the warp, as __shfl_*_sync).
template <class T>
T exchange(T value, int from) {
  warp_barrier->arrive_and_wait();
  slots[lane] = static_cast<double>(value);
  warp_barrier->arrive_and_wait();
  const T got = from >= 0 && from < 32 ? static_cast<T>(slots[from]) : value;
  warp_barrier->arrive_and_wait();
  return got;
}
}  // namespace lanes

template <class T>
T __shfl_up_sync(unsigned /*mask*/, T value, int delta) {
  return lanes::exchange(value, lanes::lane - delta);
}
template <class T>
T __shfl_down_sync(unsigned /*mask*/, T value, int delta) {
  return lanes::exchange(value, lanes::lane + delta);
}
inline bool __any_sync(unsigned /*mask*/, bool value) {
  bool any = false;
  for (int from = 0; from < 32; ++from) any = any || lanes::exchange(value ? 1.0 : 0.0, from) != 0;
  return any;
}

#include "jacobi_deep_field.hpp"
#include "jacobi_deep_kernels.cuh"

using namespace haloflow;

namespace {

template <class T, int kDepth, bool kLoadAhead, bool kTwoWalks>
void run_lanes(const LaunchShape& shape, const kernels::CellBox& box, const T* a, T* a_new,
               kernels::FixedColumns fixed) {
  gridDim = {shape.grid.x, shape.grid.y, 1};
  blockDim = {shape.block.x, 1, 1};
  for (unsigned by = 0; by < gridDim.y; ++by) {
    for (unsigned bx = 0; bx < gridDim.x; ++bx) {
      for (unsigned warp = 0; warp < blockDim.x / 32; ++warp) {
        blockIdx = {bx, by, 0};
        std::barrier<> barrier(32);
        lanes::warp_barrier = &barrier;
        std::vector<std::thread> threads;
        for (int lane = 0; lane < 32; ++lane) {
          threads.emplace_back([&, lane] {
            threadIdx = {warp * 32 + static_cast<unsigned>(lane), 0, 0};
            lanes::lane = lane;
            kernels::jacobi_deep_rows<T, kDepth, 1, kLoadAhead, kTwoWalks>(box, a, a_new, fixed);
          });
        }
        for (std::thread& thread : threads) thread.join();
      }
    }
  }
}

template <class T, int kDepth, bool kLoadAhead = false, bool kTwoWalks = true>
int check(std::int64_t nx, std::int64_t ny, bool fixed, unsigned band) {
  const auto f = tests::deep_field<T>(nx, ny, kDepth, fixed, 3U + static_cast<unsigned>(nx));
  const LaunchShape shape = kernels::deep_launch(f.box, kDepth, band);
  std::vector<T> want = f.start;
  kernels::jacobi_deep_rows_on_host<T, kDepth>(shape, f.box, f.start.data(), want.data(), f.fixed);
  std::vector<T> got = f.start;
  for (std::int64_t y = f.box.y0; y < f.box.y0 + f.box.ny; ++y) {
    for (std::int64_t x = f.box.x0; x < f.box.x0 + f.box.nx; ++x) {
      got[static_cast<std::size_t>(y * f.box.stride_y + x)] = std::numeric_limits<T>::quiet_NaN();
    }
  }
  run_lanes<T, kDepth, kLoadAhead, kTwoWalks>(shape, f.box, f.start.data(), got.data(), f.fixed);
  const std::size_t in_box = tests::differing(tests::box_cells(f, got), tests::box_cells(f, want));
  // Outside the box `got` still holds the start, as `want` does.
  const std::size_t outside = tests::differing(got, want) - in_box;
  std::printf(
      "%s depth %d%s%s, %lld x %lld, fixed columns %s, %u x %u blocks: %zu cells differ, "
      "%zu written outside the box\n",
      sizeof(T) == 4 ? "float" : "double", kDepth, kLoadAhead ? ", load ahead" : "",
      kTwoWalks ? "" : ", one walk", static_cast<long long>(nx), static_cast<long long>(ny),
      fixed ? "yes" : "no", shape.grid.x, shape.grid.y, in_box, outside);
  return in_box + outside == 0 ? 0 : 1;
}

}  // namespace

int main() {
  int failures = 0;
  // Strips with and without the fixed columns and a ragged end, the model's bands and short ones
  // (most bands start and end inside the box), a box narrower than a warp's strip.
  failures += check<float, 8>(300, 41, true, 0);
  failures += check<float, 8>(300, 41, false, 10);
  failures += check<float, 8>(500, 60, true, 16);
  failures += check<float, 4>(250, 37, true, 7);
  failures += check<double, 4>(5, 3, true, 0);
  failures += check<float, 2>(130, 20, true, 3);
  failures += check<double, 8>(113, 17, false, 5);
  failures += check<float, 8, true>(300, 41, true, 0);
  failures += check<float, 4, true>(250, 37, true, 7);
  failures += check<float, 8, false, false>(500, 60, true, 16);
  return failures == 0 ? 0 : 1;
}
