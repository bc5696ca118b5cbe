#pragma once
// What `haloflow replay` prints first: the overlap figures across the ranks (min, avg, max of
// each rank's medians), the nodes that took the most time, and what recording cost, measured so
// that noise is never reported as a cost (or as a negative one).

#include <string>
#include <vector>

#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"
#include "rank_traces.hpp"

namespace haloflow::cases {

//! What recording cost one rank, from its untraced and traced frame times.
struct RecordingCost {
  double untraced_us = 0;  //!< median frame, recorder off (the frames before and after)
  double traced_us = 0;    //!< median frame, recorder on
  //! How far two medians of the same frames land apart on this machine: the larger of the gap
  //! between the untraced frames run before and after the traced ones, and the 95 % notches of
  //! the two medians (1.57 IQR / sqrt(n) each, as a box plot draws them).
  double noise_us = 0;
  double before_us = 0;  //!< median of the untraced frames before the traced ones (0: none)
  double after_us = 0;   //!< median of those after them (0: none)
  //! traced - untraced, when it exceeds the noise; else the cost is within noise (and no
  //! number is a cost: a traced frame faster than an untraced one is noise, never a saving).
  [[nodiscard]] bool measured() const { return traced_us - untraced_us > noise_us; }
  [[nodiscard]] double us() const { return traced_us - untraced_us; }
  [[nodiscard]] double fraction() const { return untraced_us > 0 ? us() / untraced_us : 0; }
};

//! The cost from the frame times of the three blocks: untraced before, traced, untraced after.
[[nodiscard]] RecordingCost recording_cost(const std::vector<double>& untraced_before_us,
                                           const std::vector<double>& traced_us,
                                           const std::vector<double>& untraced_after_us);

//! A RankRecording's cost, from the medians and noise it carries.
[[nodiscard]] RecordingCost recording_cost(const RankRecording& recording);

//! "294.7 us per frame (+72.7 %)" or "within noise (traced 130.0 us, untraced 125.0 us per frame;
//! noise 35.2 us)": never a negative number.
[[nodiscard]] std::string cost_text(const RecordingCost& cost);

//! Min, average and max over the ranks of one figure.
struct Spread {
  double min = 0;
  double avg = 0;
  double max = 0;
};
[[nodiscard]] Spread spread_of(const std::vector<double>& values);

//! The summary across the ranks: per figure (frame, interior, communication, concurrent,
//! hidden, critical path, GPU idle on the graph executor, untraced and traced frame) the min,
//! avg and max of the ranks' medians; the recording cost; the `top` nodes with the largest
//! median time (min, avg, max over the ranks of each node's median; nodes that never ran, or
//! ran in no time, left out).
[[nodiscard]] std::string format_summary(const std::vector<RankRecording>& ranks,
                                         const std::vector<OverlapReport>& reports,
                                         std::size_t top = 8);

}  // namespace haloflow::cases
