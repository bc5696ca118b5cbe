#pragma once
//! \file
//! \brief "Did you mean" suggestions for names a user typed (node names, case-file keys), so an
//! application's messages suggest what the engine's do.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace haloflow {

//! \brief The candidate closest to `typed` by edit distance, when it is close enough to be a
//! typo; nullopt otherwise.
[[nodiscard]] std::optional<std::string> closest_match(std::string_view typed,
                                                       const std::vector<std::string>& candidates);

}  // namespace haloflow
