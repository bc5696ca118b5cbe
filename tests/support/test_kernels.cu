#include "haloflow/per_cell.cuh"
#include "test_kernels.hpp"

namespace haloflow::testing {
namespace {

struct WriteIndex {
  static HALOFLOW_HD void apply(std::size_t i, int* data) { data[i] = static_cast<int>(i); }
};
struct AddTen {
  static HALOFLOW_HD void apply(std::size_t i, int* data) { data[i] += 10; }
};
struct LongAdd {
  static HALOFLOW_HD void apply(std::size_t i, const float* in, float* out) {
    float value = in[i];
    for (int k = 0; k < 2000; ++k) value += 1.0F;
    out[i] = value;
  }
};
struct Fill {
  static HALOFLOW_HD void apply(std::size_t i, double* data, double value) { data[i] = value; }
};

struct RecordValue {
  static HALOFLOW_HD void apply(std::size_t /*cell*/, const std::uint64_t* value,
                                std::uint64_t* log) {
    log[1 + log[0]] = *static_cast<const volatile std::uint64_t*>(value);
    ++log[0];
  }
};

__global__ void spin_for(std::uint64_t nanoseconds) {
  std::uint64_t start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (std::uint64_t now = start; now - start < nanoseconds;) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

}  // namespace

bool occupy_legacy_stream(double seconds) {
  spin_for<<<1, 1>>>(static_cast<std::uint64_t>(seconds * 1e9));
  return cudaGetLastError() == cudaSuccess;
}

KernelRef<std::size_t, const std::uint64_t*, std::uint64_t*> record_value() {
  return per_cell_kernel<RecordValue, const std::uint64_t*, std::uint64_t*>("record_value");
}

KernelRef<std::size_t, int*> write_index() {
  return per_cell_kernel<WriteIndex, int*>("write_index");
}
KernelRef<std::size_t, int*> add_ten() {
  return per_cell_kernel<AddTen, int*>("add_ten");
}
KernelRef<std::size_t, const float*, float*> long_add() {
  return per_cell_kernel<LongAdd, const float*, float*>("long_add");
}
KernelRef<std::size_t, double*, double> fill() {
  return per_cell_kernel<Fill, double*, double>("fill");
}
KernelRef<std::size_t, double*, double> fill_device_only() {
  return {&one_thread_per_cell<Fill, double*, double>, nullptr, "fill_device_only"};
}

}  // namespace haloflow::testing
