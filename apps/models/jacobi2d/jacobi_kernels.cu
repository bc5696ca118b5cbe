// The Jacobi sweep for the engine: jacobi_rows (with and without the norm), the two-step sweep and
// the norm's finishing reduction from jacobi_kernels.cuh (shared with tools/jacobi-norm-lab.cu),
// each with its CPU twin, so that the host executor computes exactly what the GPU computes.

#include "jacobi_kernels.cuh"

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
template JacobiNormKernel<float> jacobi_norm_kernel<float>();
template JacobiNormKernel<double> jacobi_norm_kernel<double>();

}  // namespace haloflow::kernels
