#pragma once
//! \file
//! \brief The numbers that say whether communication was hidden.

#include <vector>

namespace haloflow {

//! \brief Median of `samples` (the mean of the middle two for an even count); 0 when empty.
[[nodiscard]] double median(std::vector<double> samples);

//! \brief The `fraction` quantile of `samples` (nearest rank; 0.5 is close to the median);
//! 0 when empty.
[[nodiscard]] double percentile(std::vector<double> samples, double fraction);

//! \brief Fraction of the shorter branch that ran concurrently with the longer one, from the
//! frame time and the two branches timed alone: (interior + communication - frame) / shorter,
//! clamped to [0, 1]. 1 means the frame took only as long as its longer branch.
[[nodiscard]] double hidden_fraction(double frame, double interior, double communication);

}  // namespace haloflow
