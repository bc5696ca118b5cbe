#pragma once
// euler2d's frames as plans: the buffers a run steps in, the physical walls, and the two plans
// (the step: clock, then per Runge-Kutta stage exchange, walls, interior and boundary, then the
// CFL monitor, or with exchange_every = step one exchange of U and the stages over the regions a
// StepFrame gives; and the CFL frame that measures the initial state). Nodes, lanes and
// dependencies are plain data here; euler2d.cpp makes Frames of them and steps them.

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "euler2d.hpp"
#include "euler_kernels.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/decomposition.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/plan.hpp"
#include "haloflow/steps.hpp"

namespace haloflow::models::euler {

inline constexpr int kGhosts = 2;  // MUSCL reads two cells on each side of a face pair
inline constexpr Stencil kStencil{StencilShape::star, 2};
//! The setting that chooses one exchange a stage or a step, as refusals name it.
inline constexpr const char* kExchangeEveryField = "/euler2d/exchange_every";
//! What a refusal of one exchange a step offers instead.
inline constexpr const char* kStageAdvice = "stage (ghosts 2 deep)";

//! The device and pinned buffers of a run: U, the state; S1, S2, the stages' results (SSP-RK2 uses
//! S1 only); the monitor's reduction of the current frame, on multi-rank runs its pinned copy and
//! the reduction over the ranks (the host node's input and output); the clock, the step's dt for
//! the stages, and the clock's pinned mirror the host reads.
struct StateBuffers {
  StateBuffers(std::size_t state_bytes, Backend backend);
  Buffer u, s1, s2;
  Buffer monitor, monitor_host, reduced_host;
  Buffer clock, step, mirror;
  [[nodiscard]] kernels::EulerMonitor* device_monitor() const {
    return monitor.as<kernels::EulerMonitor>();
  }
  [[nodiscard]] kernels::EulerMonitor* pinned_monitor() const {
    return monitor_host.as<kernels::EulerMonitor>();
  }
  [[nodiscard]] kernels::EulerMonitor* pinned_reduced() const {
    return reduced_host.as<kernels::EulerMonitor>();
  }
  //! Stage k reads inputs()[k] (and U) and writes outputs(stages)[k].
  [[nodiscard]] std::array<const Buffer*, 3> inputs() const { return {&u, &s1, &s2}; }
  [[nodiscard]] std::array<const Buffer*, 3> outputs(int stages) const {
    return {&s1, stages == 3 ? &s2 : &u, &u};
  }
};

//! The four conserved fields' starts in `b` (field_stride values apart), as an exchange takes them.
[[nodiscard]] std::vector<double*> fields_of(const Buffer& b, std::int64_t field_stride);

//! A duplicate of the model's communicator for the host node's reduction, freed on scope exit.
class OwnComm {
 public:
  //! Collective over `parent`, bounded by `timeout` as every collective of a run.
  OwnComm(MPI_Comm parent, std::chrono::duration<double> timeout);
  ~OwnComm();
  OwnComm(const OwnComm&) = delete;
  OwnComm& operator=(const OwnComm&) = delete;
  OwnComm(OwnComm&&) = delete;
  OwnComm& operator=(OwnComm&&) = delete;
  [[nodiscard]] MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

//! What the plans are built from; everything must outlive the Frames made of them.
struct PlanInputs {
  const EulerConfig& config;
  const CartesianDecomposition& grid;
  const FieldLayout& layout;
  const StateBuffers& buffers;
  //! One per stage, of that stage's input; with `step_frame`, one, of U (ghosts
  //! step_frame->ghost_depth() deep).
  std::vector<HaloExchange<double>>& exchanges;
  MPI_Comm cfl_comm;  //!< the host node's reduction's communicator (multi-rank runs)
  bool alone;         //!< one rank: the clock reads the device monitor, no host node
  //! exchange_every = step: the stages as the sub-steps of one frame; null: one exchange a stage.
  const StepFrame* step_frame = nullptr;
};

//! The step's plan: `cfl.clock`, then per stage k its exchange (`stageK.halo.*`), walls
//! (`stageK.wall.SIDE`), `stageK.interior` and `stageK.boundary.N`, then the monitor
//! (`cfl.reduce`, and on multi-rank runs `cfl.download` and the host node `cfl.allreduce`).
//! With `in.step_frame`: one exchange of U (`halo.*`), then stage 0 as `stage0.interior` (after
//! the self copy) and `stage0.boundary.N` (after the unpack and the walls), and each later stage
//! k as `stageK` after its walls and the whole stage before, over StepFrame::computed(k + 1).
[[nodiscard]] FramePlan step_plan(const PlanInputs& in);

//! One step of euler2d's stage on this rank of `grid`: the MUSCL star, 2 cells each way.
[[nodiscard]] OneStep stage_step(const CartesianDecomposition& grid);

//! Why one exchange a step of `stages` Runge-Kutta stages cannot run on `grid`, naming
//! /euler2d/exchange_every, the value, the thinnest share and what is allowed; nothing when it can.
//! The same words on every rank (the shares are the decomposition's, not this rank's).
[[nodiscard]] std::optional<std::string> one_exchange_refusal(const CartesianDecomposition& grid,
                                                              int stages);

//! The initial state's monitor: `cfl.reset`, then the monitor's nodes as in the step.
[[nodiscard]] FramePlan cfl_plan(const PlanInputs& in);

}  // namespace haloflow::models::euler
