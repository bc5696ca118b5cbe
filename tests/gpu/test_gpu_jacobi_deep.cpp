// jacobi2d's deep sweep on the GPU against that many one-step sweeps on the GPU and against its
// CPU twin, bit for bit, with and without the fixed columns, for every depth, in float and double,
// with the model's launch and with bands of a few rows (so that most bands start and end inside
// the box). The host half: tests/unit/test_jacobi_deep.cpp.

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <utility>
#include <vector>

#include "jacobi_deep_field.hpp"

using namespace haloflow;

namespace {

// A device copy of an array, freed at the end of the scope.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& values) : size_(values.size()) {
    void* raw = nullptr;
    REQUIRE(cudaMalloc(&raw, size_ * sizeof(T)) == cudaSuccess);
    data_ = static_cast<T*>(raw);
    REQUIRE(cudaMemcpy(data_, values.data(), size_ * sizeof(T), cudaMemcpyHostToDevice) ==
            cudaSuccess);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { (void)cudaFree(data_); }
  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::vector<T> values() const {
    std::vector<T> values(size_);
    REQUIRE(cudaMemcpy(values.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    return values;
  }

 private:
  std::size_t size_;
  T* data_ = nullptr;
};

template <class... Params>
void launch(void (*kernel)(Params...), const LaunchShape& shape, Params... params) {
  void* arguments[] = {&params...};
  const dim3 grid(shape.grid.x, shape.grid.y, shape.grid.z);
  const dim3 block(shape.block.x, shape.block.y, shape.block.z);
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, arguments, 0,
                           nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
}

template <class T>
void check_depths() {
  for (const int depth : {2, 4, 8}) {
    for (const bool fixed : {false, true}) {
      // Plain names, not a structured binding: CAPTURE's lambda cannot capture a binding under
      // the sanitizer build's clang.
      for (const auto& size : {std::pair{5, 3}, std::pair{300, 41}, std::pair{1000, 260}}) {
        const int nx = size.first;
        const int ny = size.second;
        for (const unsigned band : {0U, 5U}) {
          CAPTURE(depth);
          CAPTURE(fixed);
          CAPTURE(nx);
          CAPTURE(band);
          const auto f = tests::deep_field<T>(nx, ny, depth, fixed, 11U * depth + nx);
          // `depth` one-step sweeps, ping-pong on the device.
          DeviceArray<T> from(f.start);
          DeviceArray<T> to(f.start);
          T* read = from.data();
          T* write = to.data();
          for (int step = 0; step < depth; ++step) {
            for (const kernels::CellBox& box : f.one) {
              launch(kernels::jacobi_kernel<T>().device, box_launch(box, 8, 128), box,
                     static_cast<const T*>(read), write, static_cast<double*>(nullptr));
            }
            std::swap(read, write);
          }
          const std::vector<T> want =
              tests::box_cells(f, read == from.data() ? from.values() : to.values());
          const DeviceArray<T> input(f.start);
          const DeviceArray<T> deep(f.start);
          launch(kernels::jacobi_deep_kernel<T>(depth).device,
                 kernels::deep_launch(f.box, depth, band), f.box,
                 static_cast<const T*>(input.data()), deep.data(), f.fixed);
          const std::vector<T> got = deep.values();
          CHECK(tests::differing(tests::box_cells(f, got), want) == 0);
          std::vector<T> twin = f.start;
          kernels::jacobi_deep_kernel<T>(depth).host(kernels::deep_launch(f.box, depth, band),
                                                     f.box, f.start.data(), twin.data(), f.fixed);
          CHECK(tests::differing(tests::box_cells(f, twin), want) == 0);
          // The deep sweep writes its box and nothing else.
          CHECK(tests::differing(got, f.start) ==
                tests::differing(tests::box_cells(f, got), tests::box_cells(f, f.start)));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE(
    "jacobi2d's deep sweep on the GPU: the bits of that many one-step sweeps and of its twin") {
  check_depths<float>();
  check_depths<double>();
}
