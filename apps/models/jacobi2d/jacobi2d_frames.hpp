#pragma once
// jacobi2d's frames as plans: the buffers a run sweeps, the sweeps' boxes and launches, and the
// plan of a frame (the halo exchange of the field read, the interior sweep in the bulk lane, the
// boundary sweeps after the unpack; with the norm, the sweeps' block sums and the node that logs
// their total; or the same with sweeps that take k steps at once). Plain data here; jacobi2d.cpp
// makes Frames of them and steps them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/cell_box.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/launch.hpp"
#include "haloflow/plan.hpp"
#include "jacobi2d.hpp"
#include "jacobi_kernels.hpp"

namespace haloflow::models::jacobi {

//! Norms the frames have logged and the host has not read: the log holds this many.
inline constexpr std::size_t kNormLogCapacity = 4096;

//! The sweeps' boxes and launches, the same in every frame of a kind.
struct Sweeps {
  std::vector<std::string> names;  //!< "interior", "boundary.N" (N the slab of the split)
  std::vector<kernels::CellBox> boxes;
  std::vector<Box> cells;                   //!< the same boxes, for the nodes' accesses
  std::vector<LaunchShape> shapes;          //!< one run of rows per thread, with or without norm
  std::vector<std::int64_t> first_partial;  //!< each norm sweep's first slot in the partials
  std::int64_t partials = 0;                //!< slots in all
  int steps = 1;                            //!< steps each sweep takes: 1, 2, 4 or 8
  kernels::FixedColumns fixed;              //!< what the k-step sweeps keep as it is
};

//! The interior's and each boundary slab's sweep, `config.rows_per_thread` rows per thread, each
//! taking `steps` steps (1, 2, 4 or 8: two_step_launch for 2, deep_launch for 4 and 8) of a rank
//! whose fixed columns are `fixed`.
[[nodiscard]] Sweeps plan_sweeps(const CellSplit& cells, const FieldLayout& layout,
                                 const JacobiConfig& config, int steps,
                                 kernels::FixedColumns fixed);

//! The run's buffers: the two fields, the norm sweeps' per-block sums, the finishing node's
//! scratch (its blocks' sums, then its ticket, 0 between launches) and the norm log (pinned: the
//! count of logged sums, then the sums, written by the finishing node and read by the host only
//! when it wants the norms).
struct Buffers {
  Buffers(std::size_t field_bytes, const Sweeps& sweeps, Backend backend);
  Buffer a;
  Buffer b;
  Buffer partials;
  Buffer finish;
  Buffer log;
  [[nodiscard]] unsigned long long* samples() const { return log.as<unsigned long long>(); }
  [[nodiscard]] double* values() const { return log.as<double>() + 1; }
  [[nodiscard]] unsigned* ticket() const;
};

//! What a frame does: one step, one step and its norm, or k steps (the sweeps of a
//! plan_sweeps(..., k, ...), k > 1; no norm).
enum class FrameKind { step, step_with_norm, k_steps };

//! The plan of a frame of `kind` for field set `set` (0: read a, write b; 1: the other way round).
//! \throws Error when `sweeps` take one step for k_steps, or more for the others.
template <class T>
[[nodiscard]] FramePlan frame_plan(FrameKind kind, std::size_t set, HaloExchange<T>& exchange,
                                   const Sweeps& sweeps, const Buffers& buffers);

}  // namespace haloflow::models::jacobi
