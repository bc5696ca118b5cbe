// The Jacobi sweep for the engine: jacobi_rows (with and without the norm), the two-step and deep
// sweeps and the norm's finishing reduction from jacobi_kernels.cuh and jacobi_deep_kernels.cuh
// (shared with the labs), each with its CPU twin, so that the host executor computes exactly what
// the GPU computes.

#include <string>

#include "haloflow/error.hpp"
#include "jacobi_deep_kernels.cuh"

namespace haloflow::kernels {

template <class T>
JacobiKernel<T> jacobi_kernel() {
  return {&jacobi_rows<T>, &jacobi_rows_on_host<T, false>, "jacobi"};
}

template <class T>
JacobiNormKernel<T> jacobi_norm_kernel() {
  return {&jacobi_norm_rows<T>, &jacobi_rows_on_host<T, true>, "jacobi_norm"};
}

template <class T>
JacobiTwoStepKernel<T> jacobi_two_step_kernel() {
  return {&jacobi_two_rows<T>, &jacobi_two_rows_on_host<T>, "jacobi_two_steps"};
}

template <class T>
JacobiDeepKernel<T> jacobi_deep_kernel(int depth) {
  switch (depth) {
    case 2:
      return {&jacobi_deep_rows<T, 2>, &jacobi_deep_rows_on_host<T, 2>, "jacobi_deep_2_steps"};
    case 4:
      return {&jacobi_deep_rows<T, 4>, &jacobi_deep_rows_on_host<T, 4>, "jacobi_deep_4_steps"};
    case 8:
      return {&jacobi_deep_rows<T, 8>, &jacobi_deep_rows_on_host<T, 8>, "jacobi_deep_8_steps"};
    default:
      // fmt is not compiled by nvcc here: its constexpr formatting fails under CUDA's front end
      throw Error("jacobi_deep_kernel: depth " + std::to_string(depth) +
                  " is not allowed; expected 2, 4 or 8");
  }
}

JacobiNormFinishKernel jacobi_norm_finish_kernel() {
  return {&jacobi_norm_finish, &jacobi_norm_finish_on_host, "jacobi_norm_finish"};
}

LaunchShape jacobi_norm_finish_launch() {
  return LaunchShape::fixed(kNormFinishBlocks, kNormFinishThreads);
}

std::size_t jacobi_norm_finish_scratch() {
  return kNormFinishBlocks;
}

template JacobiKernel<float> jacobi_kernel<float>();
template JacobiKernel<double> jacobi_kernel<double>();
template JacobiTwoStepKernel<float> jacobi_two_step_kernel<float>();
template JacobiTwoStepKernel<double> jacobi_two_step_kernel<double>();
template JacobiDeepKernel<float> jacobi_deep_kernel<float>(int);
template JacobiDeepKernel<double> jacobi_deep_kernel<double>(int);
template JacobiNormKernel<float> jacobi_norm_kernel<float>();
template JacobiNormKernel<double> jacobi_norm_kernel<double>();

}  // namespace haloflow::kernels
