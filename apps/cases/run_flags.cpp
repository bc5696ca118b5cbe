// haloflow run's command-line overrides laid on the case document.

#include "run_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "case_file.hpp"
#include "case_settings.hpp"
#include "haloflow/error.hpp"
#include "model.hpp"
#include "printable.hpp"

namespace haloflow::cases {
namespace {

using input::listed;

// The flags given that only models stepping in time take (none of them means anything to the
// seed, which measures frames and writes no fields).
std::vector<std::string> stepping_flags(const RunFlags& flags) {
  std::vector<std::string> given;
  if (flags.vtk) given.emplace_back("--vtk");
  if (flags.png) given.emplace_back("--png");
  if (flags.checkpoint_every >= 0) given.emplace_back("--checkpoint-every");
  if (flags.output_every >= 0) given.emplace_back("--output-every");
  if (!flags.restart.empty()) given.emplace_back("--restart");
  if (flags.restart_step >= 0) given.emplace_back("--step");
  if (!flags.dump.empty()) given.emplace_back("--dump");
  if (flags.timeout_s > 0) given.emplace_back("--timeout");
  return given;
}

// The command line's flags, laid on the case document before it is read, so that the one reader
// checks them as it checks the case. A flag that does not apply to the case's model is an error,
// not silently ignored. `written` gets the pointer of each field a flag set.
void lay_flags(const RunFlags& flags, nlohmann::json& root, std::vector<std::string>& written) {
  if (!root.is_object() || !root.contains("model") || !root["model"].is_string()) return;
  const auto model = models::make_model(root["model"].get<std::string>());
  if (!model) return;
  const models::RunShape shape = model->run_shape();
  if (const auto given = stepping_flags(flags); !shape.steps_in_time && !given.empty()) {
    std::vector<std::string> steppers;
    for (const std::string& name : models::model_names()) {
      if (models::make_model(name)->run_shape().steps_in_time) steppers.push_back(name);
    }
    throw Error(fmt::format(
        "{}: {} to the models that step in time ({}); the {} model measures frames and writes "
        "no fields (its measurement is in RUN_DIR/results.json; --json and --dot apply to it)",
        listed(given), given.size() == 1 ? "applies only" : "apply only", listed(steppers),
        model->name()));
  }
  if (root.contains("run") && !root["run"].is_object()) return;
  nlohmann::json& run = root["run"];
  if (run.is_null()) run = nlohmann::json::object();
  const int length = flags.steps > 0 ? flags.steps : flags.frames;
  const auto set = [&](const std::string& key, const nlohmann::json& value) {
    run[key] = value;
    written.push_back("/run/" + key);
  };
  if (length > 0) {
    for (const auto& key : shape.length_keys) set(key, length);
  }
  if (!flags.executor.empty()) set("executor", flags.executor);
  if (!flags.out.empty()) set("output", flags.out);
  if (shape.steps_in_time) {
    if (flags.vtk) set("vtk", true);
    if (flags.png) set("png", true);
    if (flags.checkpoint_every >= 0) set("checkpoint_every", flags.checkpoint_every);
    if (flags.output_every >= 0) set("output_every", flags.output_every);
    if (flags.timeout_s > 0) set("timeout_s", flags.timeout_s);
  }
  if (!flags.handoff.empty()) written.emplace_back("/exchange/handoff");
  if (!flags.transport.empty()) written.emplace_back("/exchange/transport");
  override_exchange(root, flags.handoff, flags.transport);
}

}  // namespace

void apply_flags(const RunFlags& flags, nlohmann::json& root) {
  std::vector<std::string> written;
  lay_flags(flags, root, written);
  const std::vector<SeriesSetting> overrides = parse_overrides(flags.sets);
  for (const SeriesSetting& s : overrides) {
    if (std::find(written.begin(), written.end(), s.pointer) != written.end()) {
      throw Error(
          fmt::format("--set {} sets {}, which a flag of the command line also sets; give "
                      "one of them",
                      input::printable(s.path), s.pointer));
    }
  }
  apply_overrides(root, overrides);
}

}  // namespace haloflow::cases
