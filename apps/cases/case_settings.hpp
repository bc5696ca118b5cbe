#pragma once
// The command line's --set PATH=VALUE: a field of the case document set before the one case
// reader reads it, so that an override is checked as a value written in the file is (its JSON
// pointer, the value, what is allowed). One value for `run`, `validate`, `replay` and
// `haloflow_model`; a list V1,V2,... for the series of `converge` and `sweep`, whose settings
// vary together point by point.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace haloflow::cases {

//! One --set: the field at a JSON pointer of the case document and the values it takes in turn
//! (one value: the same at every point).
struct SeriesSetting {
  std::string path;     //!< as given: "euler2d.nx"
  std::string pointer;  //!< "/euler2d/nx"
  std::vector<nlohmann::json> values;
};

//! A value of --set: a JSON number, true, false or a quoted JSON string; any other text a string.
[[nodiscard]] nlohmann::json parse_setting_value(const std::string& text);

//! A value as a label shows it: a string without its quotes, anything else as JSON.
[[nodiscard]] std::string shown_value(const nlohmann::json& value);

//! Reads "a.b=v1,v2,..." (each value as parse_setting_value reads it). \throws Error naming the
//! flag for a missing '=', an empty path or key, an empty value.
[[nodiscard]] SeriesSetting parse_series_setting(const std::string& text);

//! Reads "a.b=VALUE": the whole text after '=' is the one value (a ',' is part of it).
//! \throws Error naming the flag for a missing '=', an empty path or key.
[[nodiscard]] SeriesSetting parse_override(const std::string& text);

//! Each of `texts` read by parse_override. \throws Error for a malformed one or a path given
//! twice (which of the two would win is not for the reader to guess).
[[nodiscard]] std::vector<SeriesSetting> parse_overrides(const std::vector<std::string>& texts);

//! The number of points the settings give: the length of those with more than one value (a
//! setting of one value is the same at every point). `study` names what needs them in the
//! message for too few ("a convergence study"). \throws Error for no setting, a path given
//! twice, lists of different lengths (naming them), fewer than 2 points.
[[nodiscard]] std::size_t series_length(const std::vector<SeriesSetting>& settings,
                                        std::string_view study = "a convergence study");

//! Lays point `index`'s values on the case document, making the objects a pointer goes through
//! (the case reader then names a key that is not in the schema). \throws Error when the pointer
//! goes through a value that is not an object.
void apply_point(nlohmann::json& document, const std::vector<SeriesSetting>& settings,
                 std::size_t index);

//! Lays single-valued overrides on the case document (apply_point of point 0).
void apply_overrides(nlohmann::json& document, const std::vector<SeriesSetting>& overrides);

//! What a point's varied settings say, for the tables: "euler2d.nx=100 euler2d.ny=100".
[[nodiscard]] std::string point_label(const std::vector<SeriesSetting>& settings,
                                      std::size_t index);

//! The overrides as a run directory records them (results.json "overrides"): each path, pointer
//! and value, whether or not it changed the case.
[[nodiscard]] nlohmann::json overrides_record(const std::vector<SeriesSetting>& overrides);

//! How a case read with overrides is named in the reader's messages: "case.json with --set a=1".
[[nodiscard]] std::string source_with(const std::string& source,
                                      const std::vector<std::string>& texts);

}  // namespace haloflow::cases
