#include "bandwidth_floors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace haloflow::models {
namespace {

double terabytes(double bytes) {
  return 1e-12 * bytes;
}

double megabytes(double bytes) {
  return 1e-6 * bytes;
}

bool l2_measured(const CopyRates& rates) {
  return rates.l2_Bps > 0 && rates.l2_bytes > 0;
}

// Above the DRAM copy rate with the grid in the L2: the L2 rate is the one to compare with.
std::string l2_resident_words(double achieved, const StepTraffic& step, const CopyRates& rates) {
  std::string text = fmt::format(
      ": above the measured DRAM copy rate {:.2f} TB/s, as the working set ({:.3g} MB a rank) "
      "fits in the {:.1f} MB L2",
      terabytes(rates.dram_Bps), megabytes(rank_working_set(step)), megabytes(rates.l2_bytes));
  if (rates.l2_Bps <= 0) return text + " (no L2 copy rate measured to compare with)";
  if (achieved <= rates.l2_Bps) {
    return text + fmt::format("; {:.1f} % of the measured L2 copy rate {:.2f} TB/s",
                              100 * achieved / rates.l2_Bps, terabytes(rates.l2_Bps));
  }
  return text + fmt::format("; above the measured L2 copy rate {:.2f} TB/s too (no percentage)",
                            terabytes(rates.l2_Bps));
}

}  // namespace

bool comparable(const CopyRates& rates) {
  return rates.dram_Bps >= kComparableCopyBps;
}

std::string copy_rates_line(const CopyRates& rates) {
  if (rates.dram_Bps <= 0) {
    return "copy kernel: not measured (no GPU): NOT COMPARABLE with the published figures";
  }
  const std::string l2 = l2_measured(rates)
                             ? fmt::format("L2 {:.3f} TB/s (L2 {:.1f} MB)", terabytes(rates.l2_Bps),
                                           megabytes(rates.l2_bytes))
                             : std::string("L2 not measured");
  const std::string verdict =
      comparable(rates)
          ? fmt::format("comparable (at least {:.1f} TB/s)", terabytes(kComparableCopyBps))
          : fmt::format(
                "NOT COMPARABLE with the published figures: the copy kernel reached "
                "{:.3f} TB/s, below {:.1f} TB/s",
                terabytes(rates.dram_Bps), terabytes(kComparableCopyBps));
  return fmt::format("copy kernel: DRAM {:.3f} TB/s, {}; {}", terabytes(rates.dram_Bps), l2,
                     verdict);
}

Figures copy_rates_figures(const CopyRates& rates) {
  Figures figures;
  figures.add("copy_dram_Bps", rates.dram_Bps, "{:.6e}")
      .add("copy_l2_Bps", rates.l2_Bps, "{:.6e}")
      .add("l2_bytes", rates.l2_bytes, "{:.0f}")
      .add("comparable", std::string(comparable(rates) ? "yes" : "no"));
  return figures;
}

double rank_working_set(const StepTraffic& step) {
  // A pass reads and writes each array once, so its bytes are the arrays' own.
  const double all_ranks = step.working_set > 0
                               ? step.working_set
                               : step.bytes_per_step * std::max(step.steps_per_pass, 1);
  return all_ranks / std::max(step.ranks, 1);
}

bool fits_in_l2(const StepTraffic& step, const CopyRates& rates) {
  return rates.l2_bytes > 0 && rank_working_set(step) <= rates.l2_bytes;
}

double StepFloors::own() const {
  if (l2_s > 0) return l2_s;
  return k_step_dram_s > 0 ? k_step_dram_s : one_step_dram_s;
}

std::string StepFloors::own_mode() const {
  if (l2_s > 0) return "L2-resident";
  return k_step_dram_s > 0 ? fmt::format("{}-step DRAM", steps_per_pass) : "one-step DRAM";
}

StepFloors step_floors(const StepTraffic& step, const CopyRates& rates) {
  StepFloors floors;
  floors.steps_per_pass = std::max(step.steps_per_pass, 1);
  const double rank_bytes = step.bytes_per_step / std::max(step.ranks, 1);
  if (rates.dram_Bps > 0) {
    floors.one_step_dram_s = rank_bytes * floors.steps_per_pass / rates.dram_Bps;
    if (floors.steps_per_pass > 1) floors.k_step_dram_s = rank_bytes / rates.dram_Bps;
  }
  if (rates.l2_Bps > 0 && fits_in_l2(step, rates)) floors.l2_s = rank_bytes / rates.l2_Bps;
  return floors;
}

std::string floors_line(const StepFloors& floors, double median_step_s) {
  if (floors.one_step_dram_s <= 0) return {};
  std::string text = fmt::format(
      "floors a step (one rank's bytes at the copy kernel's measured rates): one-step "
      "DRAM {:.1f} us",
      1e6 * floors.one_step_dram_s);
  if (floors.k_step_dram_s > 0) {
    text +=
        fmt::format(", {}-step DRAM {:.1f} us", floors.steps_per_pass, 1e6 * floors.k_step_dram_s);
  }
  if (floors.l2_s > 0) text += fmt::format(", L2-resident {:.1f} us", 1e6 * floors.l2_s);
  return text + fmt::format("; median {:.2f}x the {} floor\n", median_step_s / floors.own(),
                            floors.own_mode());
}

std::optional<double> dram_fraction(double achieved_per_rank_Bps, const CopyRates& rates) {
  if (rates.dram_Bps <= 0 || achieved_per_rank_Bps > rates.dram_Bps) return std::nullopt;
  return achieved_per_rank_Bps / rates.dram_Bps;
}

std::string bandwidth_words(double achieved_per_rank_Bps, const StepTraffic& step,
                            const CopyRates& rates) {
  if (rates.dram_Bps <= 0) return {};
  if (const auto fraction = dram_fraction(achieved_per_rank_Bps, rates)) {
    return fmt::format(" = {:.1f} % of the measured DRAM copy rate {:.2f} TB/s", 100 * *fraction,
                       terabytes(rates.dram_Bps));
  }
  if (fits_in_l2(step, rates)) return l2_resident_words(achieved_per_rank_Bps, step, rates);
  if (rates.l2_bytes <= 0) {
    return fmt::format(
        ": above the measured DRAM copy rate {:.2f} TB/s (no percentage; the L2's "
        "size is unknown)",
        terabytes(rates.dram_Bps));
  }
  return fmt::format(
      ": above the measured DRAM copy rate {:.2f} TB/s (no percentage): the working set "
      "({:.3g} MB a rank) is larger than the {:.1f} MB L2, so some of the bytes counted came "
      "from a cache, not DRAM",
      terabytes(rates.dram_Bps), megabytes(rank_working_set(step)), megabytes(rates.l2_bytes));
}

std::size_t l2_copy_buffer_bytes(double l2_bytes) {
  const auto quarter = static_cast<std::size_t>(std::max(l2_bytes, 0.0) / 4);
  return quarter / 16 * 16;
}

int copies_moving(double total_bytes, std::size_t buffer_bytes) {
  if (buffer_bytes == 0) return 1;
  return std::max(1, static_cast<int>(std::ceil(total_bytes / static_cast<double>(buffer_bytes))));
}

}  // namespace haloflow::models
