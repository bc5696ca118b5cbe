#pragma once
//! \file
//! \brief The Jacobi sweep of the Laplace problem (NVIDIA's multi-gpu-programming-models jacobi):
//! a_new = the mean of a's four face neighbours, summed in the reference program's order, so that
//! results compare number for number; and the L2 norm of the update, summed in the sweep.
//!
//! Launch geometry: x over grid.x * block.x (one thread per column of the box), rows over
//! grid.y * block.y: each thread walks a run of ceil(ny / (grid.y * block.y)) consecutive rows, so
//! a shorter grid gives longer runs; grid.z = 1; blocks have a multiple of 32 threads (the norm
//! variant reduces by warps).

#include <cstdint>

#include "cell_box.hpp"
#include "haloflow/kernel.hpp"
#include "haloflow/launch.hpp"

namespace haloflow::kernels {

//! (box, a, a_new, partials): one sweep over the rows of `box` (its z0 plane).
template <class T>
using JacobiKernel = KernelRef<CellBox, const T*, T*, double*>;

//! The sweep alone: `partials` is not touched (it may be null). Same parameters as the norm
//! variant, so both frames patch their nodes the same way.
template <class T>
JacobiKernel<T> jacobi_kernel();

//! The columns of a rank's field that hold the problem's fixed values (local x indices, ghosts
//! included; -1: this rank holds no such column), which a two-step sweep keeps as they are when
//! it computes the first step around its box.
struct FixedColumns {
  std::int64_t left = -1;   //!< global column 0
  std::int64_t right = -1;  //!< global column nx-1
};

//! (box, a, a_new, fixed): two Jacobi steps in one pass over memory (temporal blocking): a_new =
//! the sweep applied twice to `a` over `box`, the first step computed in registers over the box
//! and one ring of cells around it (so `a` must be valid two cells around the box: ghosts two
//! deep), its values never stored. Each value is the one two jacobi_kernel sweeps give, bit for
//! bit (the same sums in the same order). Launch: two_step_launch.
template <class T>
using JacobiTwoStepKernel = KernelRef<CellBox, const T*, T*, FixedColumns>;
template <class T>
JacobiTwoStepKernel<T> jacobi_two_step_kernel();

//! Columns of `box` one warp of the two-step sweep writes: its 32 lanes compute the first step
//! over 32 columns and the second over the 30 inside them.
inline constexpr int kTwoStepColumnsPerWarp = 30;

//! The two-step sweep's launch over `box`: blocks of 128 x 2 threads (120 columns each), each
//! thread walking a run of about `rows_per_thread` rows. \throws Error for an empty box.
[[nodiscard]] LaunchShape two_step_launch(const CellBox& box, unsigned rows_per_thread);

//! (box, a, a_new, fixed): `depth` Jacobi steps in one pass over memory, 4 or 8 (2 too, for the
//! labs to compare; the model's two steps take jacobi_two_step_kernel): a_new = the sweep applied
//! `depth` times to `a` over `box`, step s computed over the box grown by depth - s and never
//! stored (so `a` must be valid `depth` cells around the box: ghosts that deep), fixed columns
//! kept at every step. Bit for bit the values `depth` jacobi_kernel sweeps give. Launch:
//! deep_launch. \throws Error for another depth.
template <class T>
using JacobiDeepKernel = KernelRef<CellBox, const T*, T*, FixedColumns>;
template <class T>
JacobiDeepKernel<T> jacobi_deep_kernel(int depth);

//! The deep sweep's lanes each hold this many consecutive columns, so that a level costs a lane two
//! shuffles a row for four cells (the horizontal neighbours of its outer columns) and a warp's
//! strip is 128 columns wide, of which it writes deep_columns_per_warp.
inline constexpr int kDeepColumnsPerLane = 4;
[[nodiscard]] constexpr std::int64_t deep_columns_per_warp(int depth) {
  return 32 * kDeepColumnsPerLane - 2 * std::int64_t{depth};
}

//! The deep sweep's blocks: 4 independent warps side by side (they share nothing; a block only
//! groups them for the launch), and the blocks an SM must hold (__launch_bounds__, so the registers
//! a thread may use): the most at which ptxas (CUDA 13, sm_90) spills nothing. A level keeps 3
//! rows of kDeepColumnsPerLane columns in registers (12 floats), and a thread needs about 32 more:
//! float at depth 8 uses 128 registers (4 blocks, 16 warps an SM), at depth 4 80 (6 blocks); double
//! at depth 8 233 (2 blocks). tools/labs/jacobi-deep-lab.cu times other bounds.
inline constexpr unsigned kDeepBlockThreads = 128;
template <class T, int kDepth>
inline constexpr int kDeepBlocksPerSm = sizeof(T) <= 4 ? (kDepth >= 8 ? 4 : 6)
                                                       : (kDepth >= 8   ? 2
                                                          : kDepth >= 4 ? 3
                                                                        : 4);

//! The deep sweep's launch over `box` for `depth` steps: kDeepBlockThreads-thread blocks along x,
//! one band of `band_rows` rows a block along y (0: 32 depth rows, so that the 2 depth rows a band
//! reads and computes beyond its own cost 1/16, halved down to 4 depth while the launch has fewer
//! than kDeepWarpsWanted warps). \throws Error for an empty box.
inline constexpr std::int64_t kDeepWarpsWanted = 8192;
[[nodiscard]] LaunchShape deep_launch(const CellBox& box, int depth, unsigned band_rows = 0);

//! The longest run of rows whose squared updates a GPU thread of the norm sweep sums in T (float:
//! a relative error of at most this many float roundings, 2^-24 each, so the GPU's norm agrees
//! with a sum in double to that and n double roundings for n cells); longer runs are summed in
//! double. The model's runs are 8 rows.
inline constexpr int kJacobiNormRowsPerSum = 16;

//! (box, a, a_new, partials): the sweep with the same launch as jacobi_kernel, also writing the
//! sum over each block's cells of (a_new - a)^2 to `partials[block]` (grid.x * grid.y of them, x
//! fastest; the CPU twin sums in double, puts its whole sum in the first and zeros in the rest):
//! the norm costs no extra pass over memory and no atomics. On the GPU each thread squares and
//! sums its run in T (in double if the run is longer than kJacobiNormRowsPerSum), the block in
//! double.
template <class T>
using JacobiNormKernel = JacobiKernel<T>;
template <class T>
JacobiNormKernel<T> jacobi_norm_kernel();

//! (partials, count, block_sums, ticket, values, samples): values[*samples] = the sum of
//! partials[0, count) in a fixed order, then ++*samples. jacobi_norm_finish_launch's blocks, which
//! need jacobi_norm_finish_scratch() doubles at `block_sums` and an unsigned `ticket` that is 0
//! before the first launch (each launch leaves it 0). `values` and `samples` may be pinned host
//! memory, which the host reads back only when it wants the norms.
using JacobiNormFinishKernel =
    KernelRef<const double*, std::int64_t, double*, unsigned*, double*, unsigned long long*>;
[[nodiscard]] JacobiNormFinishKernel jacobi_norm_finish_kernel();
[[nodiscard]] LaunchShape jacobi_norm_finish_launch();
[[nodiscard]] std::size_t jacobi_norm_finish_scratch();

}  // namespace haloflow::kernels
