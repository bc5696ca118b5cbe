#pragma once
// The engine's own spelling of the public suggestion function (haloflow/spelling.hpp).

#include "haloflow/spelling.hpp"

namespace haloflow::detail {
using haloflow::closest_match;
}  // namespace haloflow::detail
