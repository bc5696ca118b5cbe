#pragma once
// Whether a gridded case fits the machine it is to run on: no axis with more ranks than cells,
// and the memory a rank needs within its budget. Shared by the models that decompose a grid.

#include <array>
#include <cstdint>
#include <string>

#include "haloflow/decomposition.hpp"
#include "model.hpp"

namespace haloflow::models {

//! What a model's grid asks of each rank.
struct GridNeeds {
  std::string section;              //!< the case section, "/jacobi2d"
  int dimensions = 2;               //!< axes decomposed: 2 or 3
  Index3 values{1, 1, 1};           //!< nx, ny, nz as the section gives them (for messages)
  Index3 cells{1, 1, 1};            //!< the cells the process grid cuts, per axis
  bool rows_only = false;           //!< the process grid is 1 x ranks (jacobi2d's 1d split)
  std::int64_t cells_per_rank = 1;  //!< the fewest cells a rank may own along an axis
  int ghost_cells = 2;              //!< ghost cells added to a rank's share per axis
  int fields = 2;                   //!< fields of the grid's size each rank holds
  std::string precision = "double";
  //! jacobi2d: the y axis's cells are its computed rows (ny - 2), the copy rows being halo.
  bool copy_rows_in_y = false;
  //! The ghost layers a frame's halo exchange fills (make_halo_plan's ghost_width): along an axis
  //! with a neighbour (more than one rank, or periodic) every rank must own at least that many.
  int halo_depth = 1;
  std::array<bool, 3> periodic{false, false, false};  //!< per axis: wraps around (a neighbour)
  //! Why the halo is that deep and what would make it shallower, for the message:
  //! "two steps a frame (/jacobi2d/steps_per_frame 2)", "/jacobi2d/steps_per_frame 1".
  std::string depth_reason;
  std::string depth_advice;
  //! Where the halo's depth was asked for, when a setting asked for it
  //! ("/jacobi2d/steps_per_frame", its value "2"): a grid too thin for it is refused there, the
  //! axis's size the other way out.
  std::string depth_pointer;
  std::string depth_value;
};

//! Reports, into `fields`, every axis with more ranks than its cells allow, every axis whose
//! thinnest rank owns fewer cells than the halo is deep (the rule of make_halo_plan, which would
//! refuse the run), and a memory need over `limits.memory_gib`; \returns the bytes one rank needs
//! (0 when the ranks cannot be arranged).
double check_grid_fits(JsonFields& fields, const GridNeeds& needs, const MachineLimits& limits);

//! `bytes` in GiB as messages write them (3 significant digits below 10, whole above).
[[nodiscard]] std::string gib(double bytes);

//! Where MachineLimits::memory_gib comes from, as messages say it.
inline constexpr const char* kMemoryBudgetSource =
    "--memory-gib; by default the GPU's memory or, without a GPU, this machine's physical memory "
    "over the ranks that share it";

//! Bytes in a GiB.
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace haloflow::models
