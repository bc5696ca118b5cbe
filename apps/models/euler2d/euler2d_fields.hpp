#pragma once
// What euler2d computes from its state on the host, apart from stepping it: the initial
// conserved fields, the conserved totals, the primitive variables ParaView gets, and the density
// error against the exact solution. The state is four fields (rho, rho u, rho v, E), each laid out
// as the halo plan's FieldLayout, `field_stride` values apart.

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "euler2d.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/decomposition.hpp"
#include "haloflow/halo.hpp"
#include "run_options.hpp"

namespace haloflow::models::euler {

//! Calls each(storage offset, global i, global j) for every owned cell.
template <class Each>
void for_owned_cells(const CartesianDecomposition& grid, const FieldLayout& layout, Each&& each) {
  const Box owned = layout.owned_box();
  const Index3 offset = grid.global_offset();
  for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j) {
    for (std::int64_t i = owned.lo[0]; i < owned.hi[0]; ++i) {
      each(layout.offset(i, j, 0), offset[0] + i - owned.lo[0], offset[1] + j - owned.lo[1]);
    }
  }
}

//! The conserved fields of `config`'s initial state at the owned cells' centres; ghosts hold a
//! valid gas (density and energy 1, at rest).
[[nodiscard]] std::vector<double> initial_state(const EulerConfig& config,
                                                const CartesianDecomposition& grid,
                                                const FieldLayout& layout);

//! The sums of the four conserved fields over the owned cells, times the cell area, reduced over
//! the ranks; and the sums of their absolute values. Each sum is exact before it is rounded once
//! (ExactSum), so the totals are the same bits on any number of ranks. Collective.
[[nodiscard]] std::array<double, 8> conserved_totals(const std::vector<double>& state,
                                                     const CartesianDecomposition& grid,
                                                     const FieldLayout& layout, double area,
                                                     const BoundedCollectives& collectives);

//! The owned cells' density, velocity (3 components, w = 0), pressure and Mach number, in that
//! order, x fastest: what VTK and PNG outputs show.
[[nodiscard]] std::vector<FieldArray> primitive_arrays(const std::vector<double>& state,
                                                       const CartesianDecomposition& grid,
                                                       const FieldLayout& layout, double gamma);

//! The density's error against the exact solution at `time` (result.error_*), reduced over the
//! ranks; for Sod, L1 by the wave each cell is nearest to. Collective.
void density_errors(const EulerConfig& config, const std::vector<double>& state, double time,
                    const CartesianDecomposition& grid, const FieldLayout& layout,
                    const BoundedCollectives& collectives, EulerResult& result);

//! Names the first bad cell over the ranks and throws Error with it: `first_bad` is this rank's
//! monitor's (the storage offset of its first cell with a negative density or pressure or a NaN,
//! ~0 for none), `bad_step` the step whose result was bad (-1: the initial state), `state` gives
//! U (called on the rank that names the cell only). Collective.
[[noreturn]] void report_bad_state(const EulerConfig& config, const CartesianDecomposition& grid,
                                   const FieldLayout& layout, int rank, std::uint64_t first_bad,
                                   long long bad_step, const BoundedCollectives& collectives,
                                   const std::function<std::vector<double>()>& state);

}  // namespace haloflow::models::euler
