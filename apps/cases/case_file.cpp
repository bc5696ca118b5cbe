#include "case_file.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "haloflow/error.hpp"
#include "json_fields.hpp"
#include "json_input.hpp"
#include "machine_fit.hpp"
#include "printable.hpp"

namespace haloflow::cases {
namespace {

using input::JsonFields;
using input::listed;
using input::shown;

const std::vector<std::string> kCommonRunKeys{"executor", "output", "progress_every"};
const std::vector<std::string> kSteppingRunKeys{
    "steps",         "warmup",           "vtk",
    "vtk_precision", "vtk_compression",  "output_every",
    "png",           "png_slice",        "checkpoint_every",
    "timeout_s",     "frames_per_launch"};

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool valid_name(const std::string& name) {
  return !name.empty() && name.size() <= 100 && name.front() != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
         });
}

// What each registered model reads of the run section: its own keys, or the stepping keys.
struct RunKeyOwners {
  std::vector<std::string> all;  // every key any model reads, common ones first
  std::vector<std::pair<std::string, std::vector<std::string>>> readers;  // key -> models
};

RunKeyOwners run_key_owners() {
  RunKeyOwners owners{.all = kCommonRunKeys, .readers = {}};
  const auto add = [&](const std::string& key, const std::string& model) {
    if (!contains(owners.all, key)) owners.all.push_back(key);
    auto found = std::find_if(owners.readers.begin(), owners.readers.end(),
                              [&](const auto& entry) { return entry.first == key; });
    if (found == owners.readers.end()) {
      owners.readers.push_back({key, {}});
      found = owners.readers.end() - 1;
    }
    found->second.push_back(model);
  };
  std::vector<std::string> stepping_models;
  for (const std::string& name : models::model_names()) {
    const auto model = models::make_model(name);
    if (model->run_shape().steps_in_time) {
      for (const auto& key : kSteppingRunKeys) add(key, name);
    }
  }
  for (const std::string& name : models::model_names()) {
    for (const auto& key : models::make_model(name)->run_shape().own_run_keys) add(key, name);
  }
  return owners;
}

// run.png_slice: "auto" (the default) or a z layer of the model's 3D field.
void read_png_slice(JsonFields& fields, const nlohmann::json& run, const models::Model& model,
                    RunSection& section) {
  if (!run.contains("png_slice")) return;
  const nlohmann::json& value = run["png_slice"];
  if (value.is_string()) {
    (void)fields.choice(value, "/run/png_slice", {"auto"});
    return;
  }
  const Index3 shape = model.run_shape().field_samples;
  if (!value.is_number_integer()) {
    fields.report("/run/png_slice", fmt::format("{} is not allowed; expected \"auto\" or a z layer "
                                                "(an integer)",
                                                shown(value)));
    return;
  }
  if (shape[2] <= 1) {
    fields.report("/run/png_slice",
                  fmt::format("applies to 3D fields (heat3d); the {} model's field is 2D ({} x "
                              "{}): its picture shows the whole field",
                              model.name(), shape[0], shape[1]));
    return;
  }
  const auto layer = value.get<std::int64_t>();
  if (layer < 0 || layer >= shape[2]) {
    fields.report("/run/png_slice",
                  fmt::format("{} is not allowed; expected \"auto\" or a z layer from 0 to {} (the "
                              "{} model's field has {} layers)",
                              shown(value), shape[2] - 1, model.name(), shape[2]));
    return;
  }
  section.png_slice = static_cast<int>(layer);
}

void read_run(JsonFields& fields, const nlohmann::json& root, CaseFile& c) {
  models::Model& model = *c.model;
  const models::RunShape shape = model.run_shape();
  const auto& run = fields.object(root, "/run", false);
  const RunKeyOwners owners = run_key_owners();
  fields.only_keys(run, "/run", owners.all);
  const std::vector<std::string> mine = shape.steps_in_time ? kSteppingRunKeys : shape.own_run_keys;
  for (const auto& [key, readers] : owners.readers) {
    if (!run.contains(key) || contains(mine, key)) continue;
    const std::string length = shape.length_keys.front();
    fields.report("/run/" + key,
                  fmt::format("applies to the {} model{}; {}", listed(readers),
                              readers.size() == 1 ? "" : "s",
                              shape.steps_in_time
                                  ? fmt::format("{} counts steps (/run/steps)", model.name())
                                  : fmt::format("the {} model counts {} (/run/{}) and writes no "
                                                "fields",
                                                model.name(), length, length)));
  }
  c.run.executor = shape.default_executor;
  if (run.contains("executor")) {
    const auto chosen = fields.choice(run["executor"], "/run/executor",
                                      {"all", "auto", "graph", "streams", "serial", "host"});
    if (!chosen.empty()) c.run.executor = chosen;
  }
  c.run.output = fields.text(run, "/run/output", "runs/" + c.name);
  c.run.output_given = run.contains("output");
  if (c.run.output.empty()) {
    fields.report("/run/output", "\"\" is not allowed; expected a directory name");
  }
  c.run.progress_every =
      static_cast<int>(fields.integer(run, "/run/progress_every", 10, 1, 1000000));
  if (!shape.steps_in_time) {
    model.read_run(fields, run);
    return;
  }
  // euler2d with t_end > 0: run.steps is the most steps (fewer when t_end is reached).
  c.run.steps =
      static_cast<int>(fields.integer(run, "/run/steps", shape.default_steps, 1, 100000000));
  c.run.warmup = static_cast<int>(fields.integer(run, "/run/warmup", -1, 0, 1000000));
  c.run.vtk = fields.boolean(run, "/run/vtk", false);
  if (run.contains("vtk_precision")) {
    const auto chosen =
        fields.choice(run["vtk_precision"], "/run/vtk_precision", {"float32", "float64"});
    if (!chosen.empty()) c.run.vtk_precision = chosen;
  }
  if (run.contains("vtk_compression")) {
    const auto chosen =
        fields.choice(run["vtk_compression"], "/run/vtk_compression", {"none", "zlib"});
    if (!chosen.empty()) c.run.vtk_compression = chosen;
  }
  c.run.png = fields.boolean(run, "/run/png", false);
  read_png_slice(fields, run, model, c.run);
  c.run.output_every = static_cast<int>(fields.integer(run, "/run/output_every", 0, 0, 100000000));
  c.run.checkpoint_every =
      static_cast<int>(fields.integer(run, "/run/checkpoint_every", 0, 0, 100000000));
  c.run.timeout_s = fields.number(run, "/run/timeout_s", c.run.timeout_s, kMinTimeout, kMaxTimeout);
  c.run.frames_per_launch =
      static_cast<int>(fields.integer(run, "/run/frames_per_launch", 1, 1, kMostFramesPerLaunch));
}

void read_exchange(JsonFields& fields, const nlohmann::json& root, CaseFile& c) {
  const auto& exchange = fields.object(root, "/exchange", false);
  fields.only_keys(exchange, "/exchange", {"handoff", "transport"});
  if (exchange.contains("handoff")) {
    const auto chosen =
        fields.choice(exchange["handoff"], "/exchange/handoff", {"auto", "host-node", "proxy"});
    if (const auto handoff = handoff_from_string(chosen)) c.exchange.handoff = *handoff;
  }
  if (exchange.contains("transport")) {
    const auto chosen = fields.choice(exchange["transport"], "/exchange/transport",
                                      {"auto", "mpi", "nccl", "peer"});
    if (const auto transport = transport_from_string(chosen)) c.exchange.transport = *transport;
  }
}

// The model the case names, or (without "model") the one whose section is there, so that one
// pass still reports every problem.
std::string model_name(JsonFields& fields, const nlohmann::json& root) {
  const auto& names = models::model_names();
  if (root.contains("model")) return fields.choice(root["model"], "/model", names);
  fields.report("/model", fmt::format("is missing; expected one of {}", fmt::join(names, ", ")));
  std::string guess = names.front();
  for (const auto& name : names) {
    if (root.contains(name)) guess = name;
  }
  return guess;
}

void check_top_keys(JsonFields& fields, const nlohmann::json& root, const std::string& model) {
  const auto& names = models::model_names();
  std::vector<std::string> allowed{"$schema", "name", "description", "model", "run", "exchange"};
  if (!model.empty()) allowed.push_back(model);
  for (const auto& [key, value] : root.items()) {
    if (contains(allowed, key)) continue;
    if (contains(names, key)) {
      fields.report(input::pointer_to("", key),
                    model.empty() ? fmt::format("needs \"model\": \"{}\"", key)
                                  : fmt::format("is the section of model {}; this case's model "
                                                "is {} (its section: /{})",
                                                key, model, model));
      continue;
    }
    std::vector<std::string> known = allowed;
    if (model.empty()) known.insert(known.end(), names.begin(), names.end());
    fields.only_keys(nlohmann::json::object({{key, nullptr}}), "", known);
  }
}

}  // namespace

void override_exchange(nlohmann::json& root, const std::string& handoff,
                       const std::string& transport) {
  if (handoff.empty() && transport.empty()) return;
  if (!root.is_object() || (root.contains("exchange") && !root["exchange"].is_object())) return;
  nlohmann::json& exchange = root["exchange"];
  if (!handoff.empty()) exchange["handoff"] = handoff;
  if (!transport.empty()) exchange["transport"] = transport;
}

std::string read_case_text(const std::filesystem::path& path) {
  return input::read_json_text(path, "a JSON case file", " (an object with \"model\")");
}

CaseFile parse_case(const std::string& text, const std::string& source,
                    const MachineLimits& limits) {
  return parse_case(input::parse_json(text, source), source, limits);
}

CaseFile parse_case(const nlohmann::json& root, const std::string& source,
                    const MachineLimits& limits) {
  JsonFields fields(source);
  CaseFile c;
  if (!root.is_object()) {
    fields.report("", fmt::format("the case is {}; expected a JSON object", root.type_name()));
    fields.throw_if_any();
  }
  // The model decides which sections are allowed, so it comes first.
  const std::string model = model_name(fields, root);
  check_top_keys(fields, root, model);
  (void)fields.text(root, "/$schema", "");
  c.name = fields.text(root, "/name", model.empty() ? "case" : model);
  if (root.contains("name") && root["name"].is_string() && !valid_name(c.name)) {
    fields.report("/name", fmt::format("{} is not allowed; expected 1 to 100 letters, digits, "
                                       "'_', '-' or '.', not starting with '.' (it names the run "
                                       "directory)",
                                       shown(root["name"])));
  }
  c.description = fields.text(root, "/description", "");
  if (model.empty()) {
    // Without a model no section can be checked; the keys above are all that can be said.
    fields.object(root, "/run", false);
    fields.throw_if_any();
  }
  c.model = models::make_model(model);
  const std::size_t before = fields.count();
  c.model->read_section(fields, fields.object(root, "/" + model, false), c.name);
  if (fields.count() == before) c.model->check_rules(fields);
  const bool sizes_ok = fields.count() == before;
  read_run(fields, root, c);
  read_exchange(fields, root, c);
  if (sizes_ok) c.model->check_machine(fields, limits);
  fields.throw_if_any();
  return c;
}

nlohmann::json CaseFile::resolved() const {
  nlohmann::json run_json = {
      {"executor", run.executor}, {"output", run.output}, {"progress_every", run.progress_every}};
  if (model->run_shape().steps_in_time) {
    run_json["steps"] = run.steps;
    if (run.warmup >= 0) run_json["warmup"] = run.warmup;
    run_json["vtk"] = run.vtk;
    run_json["vtk_precision"] = run.vtk_precision;
    run_json["vtk_compression"] = run.vtk_compression;
    run_json["output_every"] = run.output_every;
    run_json["png"] = run.png;
    run_json["png_slice"] = run.png_slice >= 0 ? nlohmann::json(run.png_slice) : "auto";
    run_json["checkpoint_every"] = run.checkpoint_every;
    run_json["timeout_s"] = run.timeout_s;
    run_json["frames_per_launch"] = run.frames_per_launch;
  }
  model->resolve_run(run_json);
  return {
      {"name", name},
      {"description", description},
      {"model", model->name()},
      {std::string(model->name()), model->resolved_section()},
      {"run", std::move(run_json)},
      {"exchange",
       {{"handoff", to_string(exchange.handoff)}, {"transport", to_string(exchange.transport)}}}};
}

std::string CaseFile::summary(const MachineLimits& limits) const {
  return fmt::format("{} model, {}, {}, {} rank{}, about {} GiB per rank of {} GiB", model->name(),
                     model->sizes(), model->length(run.steps), limits.ranks,
                     limits.ranks == 1 ? "" : "s", models::gib(model->bytes_per_rank()),
                     models::gib(limits.memory_gib * models::kGiB));
}

}  // namespace haloflow::cases
