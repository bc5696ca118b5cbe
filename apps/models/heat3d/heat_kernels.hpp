#pragma once
//! \file
//! \brief One explicit (forward Euler) step of the heat equation with the 7-point Laplacian:
//! u_new = u + cx (u[x-1] + u[x+1] - 2u) + cy (...) + cz (...), c_axis = nu dt / h_axis^2.
//!
//! Launch geometry: x over grid.x * block.x (one thread per column of the box), rows over
//! grid.y * block.y and planes over grid.z, striding when the grid is shorter than the box.

#include "cell_box.hpp"
#include "haloflow/kernel.hpp"

namespace haloflow::kernels {

//! nu dt / h^2 per axis (equal on a cubic grid).
template <class T>
struct HeatCoefficients {
  T x = 0;
  T y = 0;
  T z = 0;
};

//! (box, coefficients, u, u_new): one step over `box`.
template <class T>
using HeatKernel = KernelRef<CellBox, HeatCoefficients<T>, const T*, T*>;

template <class T>
HeatKernel<T> heat_kernel();

}  // namespace haloflow::kernels
