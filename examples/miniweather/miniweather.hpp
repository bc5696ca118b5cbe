// The interface between the driver (miniweather.cpp: the command line, MPI, the checks) and the
// solver (miniweather.cu: the kernels and the frames). Plain C++, so that the driver needs no nvcc.
#pragma once

#include <mpi.h>
#include <haloflow/haloflow.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miniweather {

//! The initial and boundary data, miniWeather's `data_spec`.
enum class Case { collision, thermal, gravity_waves, density_current, injection };

[[nodiscard]] std::optional<Case> case_from_string(std::string_view text);
[[nodiscard]] std::string_view to_string(Case c);

//! One run: the grid, how long, which case.
struct Setup {
  long nx = 100;          //!< cells along x (periodic), split over the ranks
  long nz = 50;           //!< cells along z (solid walls), never split
  double sim_time = 400;  //!< model seconds to simulate
  double out_freq = 400;  //!< model seconds between progress lines; negative: none
  Case data_spec = Case::thermal;
  bool quiet = false;  //!< no progress lines
};

//! What a run gives back. The global fields are on rank 0 only.
struct Result {
  double mass0 = 0, te0 = 0;  //!< domain totals at t = 0
  double mass = 0, te = 0;    //!< and at the end
  long steps = 0;
  double seconds = 0;  //!< wall time of the step loop (rank 0)
  //! Rank 0: the four perturbation fields (density, x and z momentum, density times potential
  //! temperature), each nx * nz values, x fastest, in global order. Empty elsewhere.
  std::vector<double> state;
};

//! Runs the case on `executor` over the ranks of `comm` (x split over them).
[[nodiscard]] Result simulate(MPI_Comm comm, const Setup& setup, haloflow::ExecutorKind executor);

}  // namespace miniweather
