#pragma once
//! \file
//! \brief euler2d: the compressible Euler equations in 2D, finite volume on a uniform grid: MUSCL
//! reconstruction of the primitive variables with a limiter, HLLC (or Rusanov) fluxes, SSP
//! Runge-Kutta in time (2 or 3 stages, Shu-Osher form), the time step from the CFL condition.
//!
//! One frame per step: the clock (the step's dt from the last frame's wave speed, on the device),
//! then one exchange / interior / boundary round per stage: the stage's input (4 fields, one
//! message per neighbour) is exchanged with two ghost layers (MUSCL reads two cells each side),
//! physical boundaries get zero-gradient ghosts from a small kernel, the interior stage runs in the
//! bulk lane meanwhile, the boundary slabs after the unpack. With exchange_every = step, one
//! exchange of U a step instead, ghosts 2 * stages deep, and each stage also computes the part of
//! the neighbours' cells the later stages read (haloflow/steps.hpp's StepFrame, the stages as its
//! sub-steps): the same bits, fewer exchanges, some redundant cells. The frame ends with the
//! monitor: a device reduction of the largest wave speed of the new state (the next step's dt) that
//! also finds the first cell with a negative density or pressure or a NaN, reduced over the ranks
//! in a host node on multi-rank runs. No step waits for the host: it checks the clock every few
//! steps.

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "run_options.hpp"

namespace haloflow::models {

//! `uniform`: a uniform state in motion on the periodic unit square, which the scheme must keep
//! exactly (a check of the stage form; no case file names it).
enum class EulerCase { vortex, sod_x, sod_y, kelvin_helmholtz, uniform };

//! How often U's halos travel: before every Runge-Kutta stage (its input, 2 cells deep), or once
//! a step (U, 2 * stages cells deep, the stages computing ahead into the neighbours' cells);
//! `automatic`: whichever is faster here, measured before the run (choose_euler_exchange).
enum class ExchangeEvery { stage, step, automatic };

//! What exchange_every "auto" measured and chose.
struct EulerExchangeChoice {
  ExchangeEvery chosen = ExchangeEvery::stage;  //!< never automatic
  //! The median time of a step exchanging every stage, then every step, the slowest rank's;
  //! empty when nothing was measured (`why_not` says why).
  std::vector<double> seconds_per_step;
  int steps_timed = 0;
  double seconds = 0;   //!< what measuring took on this rank, wall clock
  std::string why_not;  //!< "a rank's share is too thin for ghosts 6 deep", ...
};

struct EulerConfig {
  EulerCase problem = EulerCase::vortex;
  std::int64_t nx = 64;
  std::int64_t ny = 64;
  double cfl = 0.4;  //!< dt = cfl / max over cells of ((|u|+c)/dx + (|v|+c)/dy)
  double t_end = 0;  //!< stop at this time (the last dt shortened to reach it); 0: never
  int stages = 3;    //!< SSP-RK2 (2) or SSP-RK3 (3)
  int limiter = 1;   //!< kernels::EulerLimiter: 0 minmod, 1 van Leer
  int flux = 0;      //!< kernels::EulerFlux: 0 HLLC, 1 Rusanov
  double gamma = 1.4;
  ExchangeEvery exchange_every = ExchangeEvery::stage;
  RunOptions run;  //!< run.steps: the most steps (fewer when t_end is reached)
};

//! bytes_per_step: each stage's reads and writes of the 4 conserved fields, and the CFL monitor's.
struct EulerResult : StepMeasures {
  int steps_taken = 0;
  double final_time = 0;
  double dx = 0;
  double dy = 0;
  //! Density against the exact solution (vortex: the advected initial vortex at the cell centres;
  //! Sod: the exact Riemann solution's cell averages along the tube; uniform: the initial state):
  //! cell-weighted L1 (sum |e| dx dy / area), L2, Linf.
  double error_l1 = 0;
  double error_l2 = 0;
  double error_linf = 0;
  //! Sod: error_l1 split by the wave each cell is nearest to (left wave, contact, right wave:
  //! rarefaction, contact, shock), summing to error_l1; zero for the other cases.
  std::array<double, 3> error_l1_waves{};
  bool has_exact = false;
  //! Sums over the owned cells of each conserved field, times dx dy, at start and end (Kahan).
  std::array<double, 4> totals_initial{};
  std::array<double, 4> totals_final{};
  std::array<double, 4> totals_scale{};  //!< sum of |field| dx dy at the start
  std::vector<double> field;  //!< rank 0, with run.gather: rho, rho u, rho v, E, each nx*ny
  //! exchange_every = step: the cells the stages of one step compute outside their owners' boxes,
  //! over all ranks (StepFrame::redundant_cells), and their share of a step's owned work (the
  //! stages times the cells). 0 with exchange_every = stage.
  std::int64_t redundant_cells_per_step = 0;
  double redundant_fraction = 0;
  std::optional<EulerExchangeChoice> exchange_auto;  //!< what "auto" measured, when asked for
};

//! \brief "stage", "step" or "auto", as the case names them.
[[nodiscard]] std::string to_string(ExchangeEvery every);

//! \brief The ghost layers U's exchange fills: 2 (MUSCL's reach) a stage, 2 * stages a step.
[[nodiscard]] int euler_ghost_depth(const EulerConfig& config);

//! \brief Parses "vortex", "sod-x", "sod-y", "kh" (and "uniform"). \throws Error otherwise.
[[nodiscard]] EulerCase euler_case_from_string(const std::string& text);
[[nodiscard]] std::string to_string(EulerCase problem);

//! \brief The cell size (dx, dy) of `config`'s grid on its problem's domain.
[[nodiscard]] std::array<double, 2> euler_cell_size(const EulerConfig& config);

//! \brief exchange_every "auto": a step exchanging every stage and one exchanging once a step,
//! each built and timed for a few steps on `config`'s executor (a state of its own, dropped
//! afterwards), the slowest rank's median compared, and `stage` taken unless `step` is faster by
//! more than haloflow::kStepsPerFrameTolerance; `stage` without measuring where the ghosts of one
//! exchange a step do not fit the process grid, or the run ends within the measurement.
//! Collective over `communicator`, the same choice on every rank. \throws Error as run_euler2d.
[[nodiscard]] EulerExchangeChoice choose_euler_exchange(const EulerConfig& config,
                                                        MPI_Comm communicator);

//! \brief Runs `config` on every rank of `communicator` (collective; a 2D process grid from
//! MPI_Dims_create); exchange_every "auto" is chosen first (choose_euler_exchange). \throws Error
//! for a bad configuration, a decomposition that does not fit, a failed frame, or a bad state:
//! "euler2d: step S, rank R, cell (i, j): ..." on every rank.
[[nodiscard]] EulerResult run_euler2d(const EulerConfig& config, MPI_Comm communicator);

}  // namespace haloflow::models
