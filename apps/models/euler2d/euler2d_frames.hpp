#pragma once
// euler2d's frames as plans: the buffers a run steps in, the physical walls, and the two plans
// (the step: clock, then per Runge-Kutta stage exchange, walls, interior and boundary, then the
// CFL monitor; and the CFL frame that measures the initial state). Nodes, lanes and dependencies
// are plain data here; euler2d.cpp makes Frames of them and steps them.

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "euler2d.hpp"
#include "euler_kernels.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/decomposition.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/plan.hpp"

namespace haloflow::models::euler {

inline constexpr int kGhosts = 2;  // MUSCL reads two cells on each side of a face pair
inline constexpr Stencil kStencil{StencilShape::star, 2};

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
  std::vector<HaloExchange<double>>& exchanges;  //!< one per stage, of that stage's input
  MPI_Comm cfl_comm;  //!< the host node's reduction's communicator (multi-rank runs)
  bool alone;         //!< one rank: the clock reads the device monitor, no host node
};

//! The step's plan: `cfl.clock`, then per stage k its exchange (`stageK.halo.*`), walls
//! (`stageK.wall.SIDE`), `stageK.interior` and `stageK.boundary.N`, then the monitor
//! (`cfl.reduce`, and on multi-rank runs `cfl.download` and the host node `cfl.allreduce`).
[[nodiscard]] FramePlan step_plan(const PlanInputs& in);

//! The initial state's monitor: `cfl.reset`, then the monitor's nodes as in the step.
[[nodiscard]] FramePlan cfl_plan(const PlanInputs& in);

}  // namespace haloflow::models::euler
