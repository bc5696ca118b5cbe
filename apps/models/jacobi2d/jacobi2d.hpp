#pragma once
//! \file
//! \brief jacobi2d: Jacobi iterations for the Laplace equation, the problem of NVIDIA's
//! multi-gpu-programming-models `jacobi`, so that results compare number for number.
//!
//! The reference's conventions, kept: an nx x ny array whose columns 0 and nx-1 are fixed at
//! sin(2 pi y / (ny-1)) (y the global row) and whose rows 0 and ny-1 are periodic copies of rows
//! ny-2 and 1; so ny-2 rows are computed, periodic in y, each over columns 1..nx-2. Here those
//! ny-2 rows are the decomposed y axis (the copy rows are the halo), and all nx columns are owned
//! (x has no periodic halo).

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "run_options.hpp"

namespace haloflow::models {

//! JacobiConfig::steps_per_frame "auto".
inline constexpr int kAutoStepsPerFrame = 0;

struct JacobiConfig {
  std::int64_t nx = 16384;  //!< columns, the two fixed ones included
  std::int64_t ny = 16384;  //!< rows as the reference counts them: ny - 2 are computed
  //! 1: rows split over the ranks; 2: a 2D process grid (MPI_Dims_create).
  int split = 1;
  //! The L2 norm of the update every `norm_every` steps (steps 0, K, 2K, ...) and at the last
  //! step; 0: never. Other steps run a frame without the norm's nodes.
  int norm_every = 100;
  //! Consecutive rows each GPU thread walks (a tuning knob: longer runs load fewer halo rows
  //! and start fewer threads; shorter runs fill the GPU in more waves). At least 1. On an H200,
  //! 4 and 8 are fastest, within 2 % of each other (tools/bench-models sweeps 2 to 16).
  int rows_per_thread = 8;
  //! Steps one frame takes where it can: 1; 2 (temporal blocking: one sweep over memory takes
  //! two steps, the first kept in registers; ghosts two cells deep, exchanged every other step);
  //! 4 or 8 (the deep sweep: one pass takes that many steps, ghosts that deep); or
  //! kAutoStepsPerFrame: the most of 8, 4 and 2 that fit every rank's share (jacobi_frame_steps),
  //! else 1. With k > 1, a step that reports the norm, and the steps before one or before a step
  //! the run must see (an output, a checkpoint, the end) that are fewer than k, take a frame of
  //! one step each. Every step's values are the same bits either way.
  int steps_per_frame = 0;
  RunOptions run;
};

struct NormSample {
  int step = 0;
  double value = 0;  //!< sqrt of the global sum of (a_new - a)^2 over the computed cells
};

//! bytes_per_step: what one step moves, read a + write a_new: 2 nx ny sizeof(T) (the whole
//! arrays, as the reference counts them) a pass, over steps_per_pass (k with k-step frames).
template <class T>
struct JacobiResult : StepMeasures {
  std::vector<NormSample> norms;
  //! Rank 0, with `run.gather`: the computed rows' owned cells, nx x (ny-2), x fastest (reference
  //! rows 1 to ny-2).
  std::vector<T> field;
};

//! The steps a frame of `config` takes where it can on `process_grid`; when those steps (with auto,
//! two) do not fit (a rank owns fewer cells than the ghost depth along an axis with a neighbour),
//! the thinnest share in words: "1 computed row along y (1 over 1 rank)"; and with auto, why it
//! took more than two: "every rank computes at least 1000 cells along each axis".
struct JacobiFrameSteps {
  int steps = 1;
  std::string thin;  //!< empty: the steps fit
  std::string why;   //!< auto's reason for 4 or 8 steps a frame; empty otherwise
};

//! Auto's deep frames: 8 steps where every rank computes at least kDeepShare[0] cells along each
//! axis, 4 where at least kDeepShare[1]. Below them a warp's strip (128 columns, 2 k of them
//! computed for its neighbours) and a band's 2 k extra rows waste too much of the deep sweep, and
//! the frames are short enough that the exchange's latency, not the pass, sets their time.
//! 1000, not 1024: a 1024^2 grid computes 1022 rows (its first and last are fixed), and there 8
//! steps a frame take 3.40 us a step against 4.14 at 4 (one H200, tools/bench-frames, 2026-12-02).
inline constexpr std::int64_t kDeepShare[2] = {1000, 256};

[[nodiscard]] JacobiFrameSteps jacobi_frame_steps(const JacobiConfig& config,
                                                  const Coord3& process_grid);

//! \brief Runs `config` on every rank of `communicator` (collective).
//! \throws Error for a bad configuration (naming the field, value and what is allowed), a
//! decomposition that does not fit, or a failed frame.
template <class T>
[[nodiscard]] JacobiResult<T> run_jacobi2d(const JacobiConfig& config, MPI_Comm communicator);

}  // namespace haloflow::models
