#pragma once
// `haloflow converge`: a case run at a series of settings (each --set PATH=V1,V2,... laid on the
// case document before the one case reader reads it), each point's errors against the model's
// exact solution (in space) or against a run with a much smaller time step (--time), the observed
// orders, and the study written into a run directory as a table (CSV, Markdown) and a log-log
// SVG (haloflow/convergence.hpp).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "case_settings.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::cases {

//! L1 (mean |d|), L2 (root mean square) and Linf (largest |d|) of a - b. \throws Error for
//! sizes that differ or no values.
[[nodiscard]] std::vector<double> difference_norms(const std::vector<double>& a,
                                                   const std::vector<double>& b);

struct ConvergeFlags {
  std::string case_path;
  std::vector<std::string> sets;  //!< each --set as given
  std::string out;                //!< the run directory; default runs/converge_<case name>
  bool time = false;              //!< a study in time (the time step refined) instead of space
  bool force = false;             //!< replace an existing run directory that haloflow made
};

//! Runs the study on every rank; rank 0 prints and writes. \returns the exit status.
//! \throws CollectiveError for bad input (every rank alike), Error for a failed run.
int converge_case(const ConvergeFlags& flags, MpiSession& mpi);

}  // namespace haloflow::cases
