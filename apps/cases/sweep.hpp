#pragma once
// `haloflow sweep`: a case run at a series of settings (each --set PATH=V1,V2,... laid on the case
// document before the one case reader reads it, as `converge` lays them), each point a whole
// `haloflow run` into its own run directory inside the sweep's, and the figures of the points'
// results (time per step, bandwidth, errors: whatever results.json holds) written as a table
// (CSV, Markdown) and an SVG plot per figure against the varied setting.

#include <string>
#include <vector>

#include "haloflow/mpi_session.hpp"

namespace haloflow::cases {

struct SweepFlags {
  std::string case_path;
  std::vector<std::string> sets;     //!< each --set as given
  std::string out;                   //!< the sweep's directory; default runs/sweep_<case name>
  std::vector<std::string> figures;  //!< the figures to plot; empty: time per step, bandwidth
  bool force = false;                //!< replace an existing sweep directory that haloflow made
};

//! The name of point `index`'s run directory: its number and its label, with every character a
//! file name should not hold as '_' ("00_jacobi2d.nx=1024").
[[nodiscard]] std::string point_directory_name(std::size_t index, const std::string& label);

//! Runs the sweep on every rank; rank 0 prints and writes. \returns the exit status (0, or 128 +
//! the signal that stopped a point). \throws CollectiveError for bad input (every rank alike),
//! Error for a failed run.
int sweep_case(const SweepFlags& flags, MpiSession& mpi);

}  // namespace haloflow::cases
