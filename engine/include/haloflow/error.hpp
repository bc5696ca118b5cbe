#pragma once
//! \file
//! \brief The one exception type haloflow throws.

#include <stdexcept>
#include <string>

namespace haloflow {

//! \brief Every failure haloflow reports: a bad plan, a failed CUDA or MPI call, bad input.
//! The message says what was being done (the call, the node or object name) and why it failed.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace haloflow
