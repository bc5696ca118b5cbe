#pragma once
// `haloflow converge`: a case run at a series of settings (each --set PATH=V1,V2,... laid on the
// case document before the one case reader reads it), each point's errors against the model's
// exact solution (in space) or against a run with a much smaller time step (--time), the observed
// orders, and the study written into a run directory as a table (CSV, Markdown) and a log-log
// SVG (haloflow/convergence.hpp).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "haloflow/mpi_session.hpp"

namespace haloflow::cases {

//! One --set: the field at a JSON pointer of the case document and the values it takes in turn.
struct SeriesSetting {
  std::string path;     //!< as given: "euler2d.nx"
  std::string pointer;  //!< "/euler2d/nx"
  std::vector<nlohmann::json> values;
};

//! Reads "a.b=v1,v2,..." (each value a JSON number, true or false, a quoted JSON string, or
//! otherwise taken as a string). \throws Error naming the flag for a missing '=', an empty path
//! or key, an empty value.
[[nodiscard]] SeriesSetting parse_series_setting(const std::string& text);

//! The number of points the settings give: the length of those with more than one value (a
//! setting of one value is the same at every point). \throws Error for no setting, a path given
//! twice, lists of different lengths (naming them), fewer than 2 points.
[[nodiscard]] std::size_t series_length(const std::vector<SeriesSetting>& settings);

//! Lays point `index`'s values on the case document, making the objects a pointer goes through
//! (the case reader then names a key that is not in the schema). \throws Error when the pointer
//! goes through a value that is not an object.
void apply_point(nlohmann::json& document, const std::vector<SeriesSetting>& settings,
                 std::size_t index);

//! What a point's varied settings say, for the tables: "euler2d.nx=100 euler2d.ny=100".
[[nodiscard]] std::string point_label(const std::vector<SeriesSetting>& settings,
                                      std::size_t index);

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
