// Kernel arguments that do not match the kernel, one per HALOFLOW_MISUSE_* macro: each must fail
// to compile, under nvcc and under g++, with a message naming the parameter's position, its type
// and the argument's (CMakeLists.txt checks the text). Without a macro the file compiles: the
// correct calls, so a failure above is the misuse and nothing else.
#include <haloflow/frame.hpp>
#include <haloflow/kernel.hpp>

#include <cstddef>

namespace {

void axpy_on_host(const haloflow::LaunchShape&, std::size_t n, double a, const double* x,
                  double* y) {
  for (std::size_t i = 0; i < n; ++i) y[i] += a * x[i];
}

#if defined(__CUDACC__)
__global__ void axpy(std::size_t n, double a, const double* x, double* y) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
const haloflow::KernelRef<std::size_t, double, const double*, double*> kAxpy{&axpy, &axpy_on_host,
                                                                             "axpy"};
#else
const haloflow::KernelRef<std::size_t, double, const double*, double*> kAxpy{nullptr, &axpy_on_host,
                                                                             "axpy"};
#endif

}  // namespace

void build(haloflow::FramePlan& plan, haloflow::Frame& frame, int count, const double* x,
           double* y) {
  const std::size_t n = 16;
  const auto shape = haloflow::LaunchShape::cover(n, 128);
  const auto node = plan.add_kernel({.name = "axpy"}, kAxpy, shape, n, 2.0, x, y);
  frame.update(node, n, 3.0, x, y);
#if defined(HALOFLOW_MISUSE_ADD_KERNEL_NARROWING)
  plan.add_kernel({.name = "a"}, kAxpy, shape, count, 2.0, x, y);  // int where size_t is wanted
#elif defined(HALOFLOW_MISUSE_ADD_KERNEL_CONST)
  plan.add_kernel({.name = "a"}, kAxpy, shape, n, 2.0, x, x);  // const double* into double*
#elif defined(HALOFLOW_MISUSE_ADD_KERNEL_COUNT)
  plan.add_kernel({.name = "a"}, kAxpy, shape, n, x, y);  // the coefficient left out
#elif defined(HALOFLOW_MISUSE_ADD_KERNEL_FUNCTION)
  plan.add_kernel({.name = "a"}, &axpy_on_host, shape, n, 2.0, x, y);  // not a KernelRef
#elif defined(HALOFLOW_MISUSE_UPDATE_NARROWING)
  frame.update(node, n, count, x, y);  // int where double is wanted
#elif defined(HALOFLOW_MISUSE_UPDATE_COUNT)
  frame.update(node, n, 3.0, x, y, y);  // one argument too many
#endif
  (void)count;
}
