#pragma once
//! \file
//! \brief The honest figures of a stepping run (docs/benchmarks.md, "Honest figures"): the floors
//! a step is judged against, one per mode (one step a pass from DRAM, k steps a pass from DRAM,
//! L2-resident), each at a rate the copy kernel measured on this machine; a fraction of the
//! DRAM copy rate only where the achieved bandwidth is below it; and whether a benchmark run is
//! comparable with the published ones at all. Host arithmetic only, so that it is unit-tested.

#include <cstddef>
#include <optional>
#include <string>

#include "figures.hpp"

namespace haloflow::models {

//! The copy kernel's rates on this machine (copy_bandwidth.hpp): bytes read + written a second.
struct CopyRates {
  double dram_Bps = 0;  //!< over two buffers far larger than the L2; 0: not measured
  double l2_Bps = 0;    //!< the same kernel over two buffers that fit in the L2 together; 0: none
  double l2_bytes = 0;  //!< the L2's size; 0: unknown
};

//! What one step of a run moves, as the model counts it.
struct StepTraffic {
  //! Bytes a step physically moves, all ranks together: a pass over memory's bytes over the steps
  //! the pass takes (a k-step frame reads and writes each array once for its k steps).
  double bytes_per_step = 0;
  int steps_per_pass = 1;  //!< k: the steps one pass over memory takes
  double working_set = 0;  //!< bytes of the arrays a step touches, all ranks; 0: one pass's
  int ranks = 1;           //!< one GPU each
};

//! The copy kernel's rate below which a benchmark run is not comparable with the published
//! figures: an H200 measured 3.86-3.88 TB/s at 16384^2 (2026-12-01), so a machine or a moment
//! below 3.8 TB/s is slower than the one they were measured on.
inline constexpr double kComparableCopyBps = 3.8e12;

//! True when a run measured with `rates` compares with the published figures (docs/benchmarks.md).
[[nodiscard]] bool comparable(const CopyRates& rates);

//! The line a benchmark script prints (and marks its tables with) after measuring the copy
//! kernel: "copy kernel: DRAM 3.871 TB/s, L2 9.120 TB/s (L2 62.9 MB): comparable (at least
//! 3.8 TB/s)", or "... NOT COMPARABLE: the copy kernel reached 3.512 TB/s, below 3.8 TB/s".
[[nodiscard]] std::string copy_rates_line(const CopyRates& rates);

//! The benchmark line of a copy measurement: copy_dram_Bps, copy_l2_Bps, l2_bytes and comparable
//! (yes or no), what the benchmark scripts read.
[[nodiscard]] Figures copy_rates_figures(const CopyRates& rates);

//! The bytes one rank's step touches: working_set (or, when 0, one pass's bytes: every array
//! read and written once) over the ranks.
[[nodiscard]] double rank_working_set(const StepTraffic& step);

//! True when one rank's working set is known to fit in the L2 (its size measured).
[[nodiscard]] bool fits_in_l2(const StepTraffic& step, const CopyRates& rates);

//! A step's floors in seconds, each one rank's bytes over a measured rate (0: not applicable).
struct StepFloors {
  double one_step_dram_s = 0;  //!< a pass per step from DRAM (what a k = 1 frame must move)
  double k_step_dram_s = 0;    //!< k > 1: one pass per k steps from DRAM
  double l2_s = 0;             //!< the step's bytes at the L2 copy rate, when the grid fits
  int steps_per_pass = 1;
  //! The floor of the run's own mode: L2 where it fits and was measured, else k-step DRAM where
  //! k > 1, else one-step DRAM.
  [[nodiscard]] double own() const;
  //! "L2-resident", "2-step DRAM" or "one-step DRAM": the mode own() is the floor of.
  [[nodiscard]] std::string own_mode() const;
};

[[nodiscard]] StepFloors step_floors(const StepTraffic& step, const CopyRates& rates);

//! "floors a step (copy kernel's rates): one-step DRAM 138.7 us, 2-step DRAM 69.4 us; median 1.25x
//! the 2-step DRAM floor\n"; empty when no DRAM rate was measured.
[[nodiscard]] std::string floors_line(const StepFloors& floors, double median_step_s);

//! The achieved bandwidth a rank as a fraction of the DRAM copy rate, only where it is at most
//! that rate: no percentage above what was measured. nullopt: no rate, or above it.
[[nodiscard]] std::optional<double> dram_fraction(double achieved_per_rank_Bps,
                                                  const CopyRates& rates);

//! What the achieved bandwidth a rank is against the measured rates, in words that follow
//! "achieved X TB/s per rank": " = 77.8 % of the measured DRAM copy rate 3.87 TB/s"; above it,
//! why: the working set fits in the L2 (with the fraction of the L2 copy rate where it is at most
//! that), or it does not, and the bytes counted are more than reached DRAM. Empty without a DRAM
//! rate.
[[nodiscard]] std::string bandwidth_words(double achieved_per_rank_Bps, const StepTraffic& step,
                                          const CopyRates& rates);

//! The copy buffers' size for the L2 rate: a quarter of the L2 each, so that both fit with room
//! for what else the GPU keeps there; a multiple of 16 bytes (the copy kernel's word).
[[nodiscard]] std::size_t l2_copy_buffer_bytes(double l2_bytes);

//! Copies of `buffer_bytes` that move at least `total_bytes` (at least 1): the L2 frame moves as
//! much as the DRAM one, so that the frame's launch is as small a share of it (each copy's own
//! kernel launch stays in the figure, as it does in a model's step).
[[nodiscard]] int copies_moving(double total_bytes, std::size_t buffer_bytes);

}  // namespace haloflow::models
