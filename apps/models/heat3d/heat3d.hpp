#pragma once
//! \file
//! \brief heat3d: du/dt = nu (u_xx + u_yy + u_zz) on the periodic box [0,1)^3, explicit Euler in
//! time and the 7-point Laplacian in space, on a 3D process grid; started from the mode
//! sin(2 pi k x) sin(2 pi k y) sin(2 pi k z), which decays as exp(-3 (2 pi k)^2 nu t).
//!
//! Cells sit at x_i = i / nx (i = 0..nx-1; likewise y, z). The mode is an eigenvector of the
//! scheme too: each step multiplies it by g = 1 - sum_axis 4 c_axis sin^2(pi k / n_axis)
//! (c_axis = nu dt n_axis^2), so the error after N steps is |g^N - exp(-3 (2 pi k)^2 nu N dt)|
//! times the mode, up to round-off: O(h^2) with dt ~ h^2.

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "run_options.hpp"

namespace haloflow::models {

struct HeatConfig {
  Index3 cells{256, 256, 256};
  double nu = 1.0;
  int mode = 1;  //!< k of the initial sine mode
  //! The time step; 0 chooses h_min^2 / (8 nu). It must keep the scheme stable:
  //! nu dt sum_axis 1/h_axis^2 <= 1/2. (h^2 / (18 nu) on a cubic grid cancels the leading error
  //! terms of space and time against each other: avoid it when measuring the order.)
  double dt = 0;
  //! Steps one frame takes, 1 to kMostHeatStepsPerFrame, or kAutoHeatStepsPerFrame: with k,
  //! ghosts k deep, one halo exchange a frame, then one pass of k steps (the deep pass, which
  //! also computes the ghost layers its later steps read: haloflow::StepFrame). Every value is the
  //! same bits whatever k. A frame before a step the run must see (an output, a checkpoint, the
  //! end) takes fewer steps.
  int steps_per_frame = 1;
  RunOptions run;
};

//! The most steps a heat3d frame takes (HeatConfig::steps_per_frame).
inline constexpr int kMostHeatStepsPerFrame = 4;

//! HeatConfig::steps_per_frame "auto": k measured on this machine (choose_heat_steps_per_frame).
inline constexpr int kAutoHeatStepsPerFrame = 0;

//! What steps_per_frame "auto" measured and chose.
struct HeatStepsChoice {
  int steps = 1;  //!< the k chosen
  //! [k - 1]: the median time of a step with k steps a frame, the slowest rank's, for every k the
  //! process grid allows; empty when it allows only one (nothing to measure).
  std::vector<double> seconds_per_step;
  int steps_timed = 0;  //!< steps each k was timed over (after its warm-up frames)
  double seconds = 0;   //!< what measuring took on this rank, wall clock, set-up included
};

//! bytes_per_step: read u + write u_new, 2 cells sizeof(T), over the steps a pass takes (k with k
//! steps a frame: the deep pass).
template <class T>
struct HeatResult : StepMeasures {
  double dt = 0;
  double final_time = 0;
  double amplitude_exact = 0;   //!< exp(-3 (2 pi k)^2 nu t) at the end
  double amplitude_scheme = 0;  //!< g^N, the scheme's amplitude of the mode
  double error_max = 0;         //!< max over the cells of |u - exact|
  double error_rms = 0;         //!< root mean square of u - exact
  //! |g^N - exp(...)| times the largest |mode| on the grid: what error_max must be, to round-off.
  double predicted_error_max = 0;
  std::vector<T> field;  //!< rank 0, with `run.gather`: every cell, x fastest
  int steps_per_frame = 1;
  //! Cells computed outside the ranks' owned boxes in one frame of steps_per_frame steps, over
  //! all ranks, and that over the owned cells those steps advance.
  std::int64_t redundant_cells_per_frame = 0;
  double redundant_fraction = 0;
  std::optional<HeatStepsChoice> auto_steps;  //!< what "auto" measured, when it was asked for
};

//! \brief The time step a run of `config` takes: config.dt, or h_min^2 / (8 nu) when that is 0.
[[nodiscard]] double heat_time_step(const HeatConfig& config);

//! \brief steps_per_frame "auto": every k from 1 to the most the process grid allows, each frame
//! built and timed for a few steps on `config`'s executor (frames of that k alone, a state of
//! their own, dropped afterwards), the slowest rank's median step compared, and the fewest steps a
//! frame within haloflow::kStepsPerFrameTolerance of the fastest taken. Collective over
//! `communicator` (every rank gets the same choice). `config.steps_per_frame` is ignored.
//! \throws Error as run_heat3d does.
template <class T>
[[nodiscard]] HeatStepsChoice choose_heat_steps_per_frame(const HeatConfig& config,
                                                          MPI_Comm communicator);

//! \brief Runs `config` on every rank of `communicator` (collective; the process grid comes from
//! MPI_Dims_create); steps_per_frame "auto" is chosen first (choose_heat_steps_per_frame).
//! \throws Error for a bad configuration (naming the field, value and what is allowed), a
//! decomposition that does not fit, or a failed frame.
template <class T>
[[nodiscard]] HeatResult<T> run_heat3d(const HeatConfig& config, MPI_Comm communicator);

}  // namespace haloflow::models
