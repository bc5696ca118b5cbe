#pragma once
// "Did you mean" suggestions for names a user typed: node names, case-file keys.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace haloflow::detail {

//! The candidate closest to `typed` by edit distance, when it is close enough to be a typo.
std::optional<std::string> closest_match(std::string_view typed,
                                         const std::vector<std::string>& candidates);

}  // namespace haloflow::detail
