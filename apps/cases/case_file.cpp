#include "case_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"
#include "json_fields.hpp"

namespace haloflow::app {
namespace {

constexpr std::int64_t kMaxAxis = std::int64_t{1} << 30;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const std::vector<std::string> kSeedRunKeys{"frames", "host_frames", "warmup_frames", "executors"};
const std::vector<std::string> kModelRunKeys{"steps",        "warmup", "vtk",
                                             "output_every", "png",    "checkpoint_every"};
const std::vector<std::string> kCommonRunKeys{"executor", "output", "progress_every"};

std::vector<std::string> run_keys() {
  std::vector<std::string> keys = kCommonRunKeys;
  keys.insert(keys.end(), kModelRunKeys.begin(), kModelRunKeys.end());
  keys.insert(keys.end(), kSeedRunKeys.begin(), kSeedRunKeys.end());
  return keys;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

bool valid_name(const std::string& name) {
  return !name.empty() && name.size() <= 100 && name.front() != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
         });
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

std::string gib(double bytes) {
  const double value = bytes / kGiB;
  return value >= 10 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value);
}

void read_euler(JsonFields& fields, const nlohmann::json& root, CaseFile& c) {
  const std::string at = "/euler2d";
  const auto& section = fields.object(root, at, false);
  fields.only_keys(section, at, {"case", "nx", "ny", "cfl", "t_end", "rk", "limiter", "riemann"});
  auto& g = c.grid;
  g.precision = "double";
  g.split = "2d";
  if (section.contains("case")) {
    const auto chosen =
        fields.choice(section["case"], at + "/case", {"vortex", "sod-x", "sod-y", "kh"});
    if (!chosen.empty()) g.euler_case = chosen;
  }
  g.nx = fields.integer(section, at + "/nx", 64, 4, kMaxAxis);
  g.ny = fields.integer(section, at + "/ny", g.nx, 4, kMaxAxis);
  g.nz = 1;
  g.cfl = fields.number(section, at + "/cfl", 0.4, 0, 4);
  if (section.contains("cfl") && section["cfl"].is_number() && section["cfl"].get<double>() == 0) {
    fields.report(at + "/cfl", "0 is not allowed; expected a number in (0, 4]");
    g.cfl = 0.4;
  }
  g.t_end = fields.number(section, at + "/t_end", 0, 0, 1e12);
  g.rk = static_cast<int>(fields.integer(section, at + "/rk", 3, 2, 3));
  if (section.contains("limiter")) {
    const auto chosen = fields.choice(section["limiter"], at + "/limiter", {"minmod", "vanleer"});
    if (!chosen.empty()) g.limiter = chosen;
  }
  if (section.contains("riemann")) {
    const auto chosen = fields.choice(section["riemann"], at + "/riemann", {"hllc", "rusanov"});
    if (!chosen.empty()) g.riemann = chosen;
  }
}

void read_model(JsonFields& fields, const nlohmann::json& root, CaseFile& c) {
  if (c.model == "euler2d") {
    read_euler(fields, root, c);
    return;
  }
  const bool jacobi = c.model == "jacobi2d";
  const std::string at = "/" + c.model;
  const auto& section = fields.object(root, at, false);
  if (jacobi) {
    fields.only_keys(section, at, {"nx", "ny", "norm_every", "print_every", "precision", "split"});
  } else {
    fields.only_keys(section, at, {"nx", "ny", "nz", "precision", "split", "nu", "mode", "dt"});
  }
  auto& g = c.grid;
  const std::int64_t smallest = jacobi ? 3 : 1;
  g.nx = fields.integer(section, at + "/nx", jacobi ? 16384 : 256, smallest, kMaxAxis);
  g.ny = fields.integer(section, at + "/ny", jacobi ? 16384 : g.nx, smallest, kMaxAxis);
  g.nz = jacobi ? 1 : fields.integer(section, at + "/nz", g.nx, 1, kMaxAxis);
  g.precision = jacobi ? "float" : "double";
  if (section.contains("precision")) {
    const auto chosen = fields.choice(section["precision"], at + "/precision", {"float", "double"});
    if (!chosen.empty()) g.precision = chosen;
  }
  g.split = jacobi ? "1d" : "3d";
  if (section.contains("split")) {
    const std::vector<std::string> splits =
        jacobi ? std::vector<std::string>{"1d", "2d"} : std::vector<std::string>{"3d"};
    const auto chosen = fields.choice(section["split"], at + "/split", splits);
    if (!chosen.empty()) g.split = chosen;
  }
  if (jacobi) {
    g.norm_every = static_cast<int>(fields.integer(section, at + "/norm_every", 100, 0, 100000000));
    g.print_every =
        static_cast<int>(fields.integer(section, at + "/print_every", 100, 0, 100000000));
    return;
  }
  g.nu = fields.number(section, at + "/nu", 1.0, 0, 1e12);
  if (section.contains("nu") && section["nu"].is_number() && section["nu"].get<double>() == 0) {
    fields.report(at + "/nu", "0 is not allowed; expected a positive diffusivity");
    g.nu = 1.0;
  }
  g.mode = static_cast<int>(fields.integer(section, at + "/mode", 1, 1, 1000000));
  g.dt = fields.number(section, at + "/dt", 0, 0, 1e12);
}

void read_run(JsonFields& fields, const nlohmann::json& root, CaseFile& c) {
  const bool seed = c.model == "seed";
  const auto& run = fields.object(root, "/run", false);
  fields.only_keys(run, "/run", run_keys());
  const auto& foreign = seed ? kModelRunKeys : kSeedRunKeys;
  for (const auto& key : foreign) {
    if (!run.contains(key)) continue;
    fields.report(
        "/run/" + key,
        seed ? fmt::format("applies to the jacobi2d, heat3d and euler2d models; the seed model "
                           "counts frames (/run/frames) and writes no fields")
             : fmt::format("applies to the seed model; {} counts steps (/run/steps)", c.model));
  }
  const std::vector<std::string> executors{"all", "auto", "graph", "streams", "serial", "host"};
  c.run.executor = seed ? "all" : "auto";
  if (run.contains("executor")) {
    const auto chosen = fields.choice(run["executor"], "/run/executor", executors);
    if (!chosen.empty()) c.run.executor = chosen;
  }
  c.run.output = fields.text(run, "/run/output", "runs/" + c.name);
  c.run.output_given = run.contains("output");
  if (c.run.output.empty()) {
    fields.report("/run/output", "\"\" is not allowed; expected a directory name");
  }
  c.run.progress_every =
      static_cast<int>(fields.integer(run, "/run/progress_every", 10, 1, 1000000));
  if (seed) {
    read_seed_run(fields, run, c.seed);
    return;
  }
  c.run.steps = static_cast<int>(
      fields.integer(run, "/run/steps", c.model == "jacobi2d" ? 1000 : 100, 1, 100000000));
  // euler2d with t_end > 0: run.steps is the most steps (fewer when t_end is reached).
  c.run.warmup = static_cast<int>(fields.integer(run, "/run/warmup", -1, 0, 1000000));
  if (run.contains("vtk")) {
    if (run["vtk"].is_boolean()) {
      c.run.vtk = run["vtk"].get<bool>();
    } else {
      fields.report("/run/vtk",
                    fmt::format("{} is not allowed; expected true or false", shown(run["vtk"])));
    }
  }
  if (run.contains("png")) {
    if (run["png"].is_boolean()) {
      c.run.png = run["png"].get<bool>();
    } else {
      fields.report("/run/png",
                    fmt::format("{} is not allowed; expected true or false", shown(run["png"])));
    }
  }
  c.run.output_every = static_cast<int>(fields.integer(run, "/run/output_every", 0, 0, 100000000));
  c.run.checkpoint_every =
      static_cast<int>(fields.integer(run, "/run/checkpoint_every", 0, 0, 100000000));
}

// More ranks than cells along an axis, and the memory a rank needs.
void check_machine(JsonFields& fields, CaseFile& c, const CaseLimits& limits) {
  const double budget = limits.memory_gib * kGiB;
  if (c.model == "seed") {
    if (limits.ranks != 1) {
      fields.report("/model", fmt::format("\"seed\" runs on one rank; this run has {} "
                                          "(--ranks or mpiexec -n); expected 1",
                                          limits.ranks));
    }
    c.bytes_per_rank = static_cast<double>(c.seed.cells + 2 * c.seed.halo_cells) * sizeof(double);
    if (c.bytes_per_rank > budget) {
      fields.report("/seed/cells",
                    fmt::format("{} needs about {} GiB (grid and halos, doubles); the memory "
                                "budget is {} GiB (--memory-gib); expected a smaller grid",
                                c.seed.cells, gib(c.bytes_per_rank), gib(budget)));
    }
    return;
  }
  const bool jacobi = c.model == "jacobi2d";
  const bool euler = c.model == "euler2d";
  const bool planar = jacobi || euler;
  const auto& g = c.grid;
  const std::string at = "/" + c.model;
  // The cells the process grid cuts: jacobi2d's copy rows are halo, not owned.
  const Index3 cells{g.nx, jacobi ? g.ny - 2 : g.ny, g.nz};
  Coord3 grid{1, 1, 1};
  try {
    grid = jacobi && g.split == "1d" ? Coord3{1, limits.ranks, 1}
                                     : balanced_process_grid(limits.ranks, planar ? 2 : 3, {});
  } catch (const Error& error) {
    fields.report("/", fmt::format("{} ranks cannot be arranged: {}", limits.ranks, error.what()));
    return;
  }
  const char* axes[] = {"nx", "ny", "nz"};
  const std::string shape = planar ? fmt::format("{} x {}", grid[0], grid[1])
                                   : fmt::format("{} x {} x {}", grid[0], grid[1], grid[2]);
  // euler2d's MUSCL stencil reads two ghost layers: each rank owns at least 2 cells per axis.
  const std::int64_t per_rank = euler ? 2 : 1;
  for (std::size_t axis = 0; axis < (planar ? 2u : 3u); ++axis) {
    if (grid[axis] * per_rank <= cells[axis]) continue;
    const std::int64_t value = axis == 0 ? g.nx : axis == 1 ? g.ny : g.nz;
    fields.report(
        fmt::format("{}/{}", at, axes[axis]),
        fmt::format("{} is not allowed on {} ranks: the process grid {} puts {} ranks along this "
                    "axis, more than its {} {}cells{}; expected at least {}",
                    value, limits.ranks, shape, grid[axis], cells[axis],
                    jacobi && axis == 1 ? "computed " : "",
                    euler ? " allow at 2 cells per rank (two ghost layers)" : "",
                    jacobi && axis == 1 ? grid[axis] + 2 : per_rank * grid[axis]));
  }
  const double value_bytes = g.precision == "float" ? 4.0 : 8.0;
  double per_field = value_bytes;
  for (std::size_t axis = 0; axis < (planar ? 2u : 3u); ++axis) {
    per_field *= static_cast<double>(ceil_div(cells[axis], grid[axis]) + (euler ? 4 : 2));
  }
  // jacobi2d, heat3d: the field read and the field written; euler2d: the state, the stage input
  // and output and the wave-speed scratch, 4 conserved fields each.
  c.bytes_per_rank = (euler ? 16 : 2) * per_field;
  if (c.bytes_per_rank > budget) {
    fields.report(at, fmt::format("needs about {} GiB per rank ({} {} fields of {}, on {} rank{}); "
                                  "the memory budget is {} GiB per rank (--memory-gib); expected "
                                  "a smaller grid or more ranks",
                                  gib(c.bytes_per_rank), euler ? 16 : 2, g.precision,
                                  planar ? fmt::format("{} x {}", g.nx, g.ny)
                                         : fmt::format("{} x {} x {}", g.nx, g.ny, g.nz),
                                  limits.ranks, limits.ranks == 1 ? "" : "s", gib(budget)));
  }
}

}  // namespace

const std::vector<std::string>& case_models() {
  static const std::vector<std::string> models{"seed", "jacobi2d", "heat3d", "euler2d"};
  return models;
}

std::string read_case_text(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(fmt::format("{}: is a directory; expected a JSON case file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot be opened for reading", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("{}: could not be read", path.string()));
  const std::string content = text.str();
  if (content.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw Error(fmt::format("{}: is empty; expected a JSON case file (an object with \"model\")",
                            path.string()));
  }
  return content;
}

CaseFile parse_case(const std::string& text, const std::string& source, const CaseLimits& limits) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& parse) {
    throw Error(fmt::format("{}: not valid JSON: {}", source, parse.what()));
  }
  return parse_case(root, source, limits);
}

CaseFile parse_case(const nlohmann::json& root, const std::string& source,
                    const CaseLimits& limits) {
  JsonFields fields(source);
  CaseFile c;
  if (!root.is_object()) {
    fields.report("", fmt::format("the case is {}; expected a JSON object", root.type_name()));
    fields.throw_if_any();
  }
  // The model decides which sections are allowed, so it comes first.
  if (!root.contains("model")) {
    fields.report("/model",
                  fmt::format("is missing; expected one of {}", fmt::join(case_models(), ", ")));
    // Check the rest as the model whose section is there (the seed without one), so that one
    // pass still reports every problem.
    c.model = "seed";
    for (const auto& model : case_models()) {
      if (root.contains(model)) c.model = model;
    }
  } else {
    c.model = fields.choice(root["model"], "/model", case_models());
  }
  std::vector<std::string> allowed{"$schema", "name", "description", "model", "run"};
  if (!c.model.empty()) allowed.push_back(c.model);
  for (const auto& [key, value] : root.items()) {
    if (contains(allowed, key)) continue;
    if (contains(case_models(), key)) {
      fields.report("/" + key, c.model.empty()
                                   ? fmt::format("needs \"model\": \"{}\"", key)
                                   : fmt::format("is the section of model {}; this case's model "
                                                 "is {} (its section: /{})",
                                                 key, c.model, c.model));
      continue;
    }
    std::vector<std::string> known = allowed;
    if (c.model.empty()) known.insert(known.end(), case_models().begin(), case_models().end());
    fields.only_keys(nlohmann::json::object({{key, value}}), "", known);
  }
  (void)fields.text(root, "/$schema", "");
  c.name = fields.text(root, "/name", c.model.empty() ? "case" : c.model);
  if (root.contains("name") && root["name"].is_string() && !valid_name(c.name)) {
    fields.report("/name", fmt::format("{} is not allowed; expected 1 to 100 letters, digits, "
                                       "'_', '-' or '.', not starting with '.' (it names the run "
                                       "directory)",
                                       shown(root["name"])));
  }
  c.description = fields.text(root, "/description", "");
  if (c.model.empty()) {
    // Without a model no section can be checked; the keys above are all that can be said.
    fields.object(root, "/run", false);
    fields.throw_if_any();
  }
  const std::size_t before = fields.problems().size();
  if (c.model == "seed") {
    c.seed.name = c.name;
    const auto& grid = fields.object(root, "/seed", false);
    fields.only_keys(
        grid, "/seed",
        {"cells", "halo_cells", "intensity", "block_size", "copy_blocks", "host_work_us"});
    read_seed_section(fields, grid, c.seed);
  } else {
    read_model(fields, root, c);
  }
  if (c.model == "heat3d" && fields.problems().size() == before) {
    const auto& g = c.grid;
    const double sum = static_cast<double>(g.nx * g.nx) + static_cast<double>(g.ny * g.ny) +
                       static_cast<double>(g.nz * g.nz);
    const double largest = static_cast<double>(std::max({g.nx, g.ny, g.nz}));
    const double dt = g.dt > 0 ? g.dt : 1.0 / (8.0 * g.nu * largest * largest);
    if (g.nu * dt * sum > 0.5) {
      fields.report("/heat3d/dt",
                    fmt::format("{} is not allowed: the explicit scheme is stable for dt <= {:.6g} "
                                "(nu dt sum 1/h^2 <= 1/2); expected 0 (automatic) or at most that",
                                g.dt, 0.5 / (g.nu * sum)));
    }
  }
  const bool sizes_ok = fields.problems().size() == before;
  read_run(fields, root, c);
  if (sizes_ok) check_machine(fields, c, limits);
  fields.throw_if_any();
  return c;
}

nlohmann::json CaseFile::resolved() const {
  nlohmann::json out = {{"name", name}, {"description", description}, {"model", model}};
  nlohmann::json run_json = {
      {"executor", run.executor}, {"output", run.output}, {"progress_every", run.progress_every}};
  if (model == "seed") {
    out["seed"] = {{"cells", seed.cells},
                   {"halo_cells", seed.halo_cells},
                   {"intensity", seed.intensity},
                   {"block_size", seed.block_size},
                   {"copy_blocks", seed.copy_blocks},
                   {"host_work_us", seed.host_work_us}};
    run_json["frames"] = seed.frames;
    run_json["host_frames"] = seed.host_frames;
    run_json["warmup_frames"] = seed.warmup_frames;
    run_json["executors"] = nlohmann::json::array();
    for (const auto kind : seed.executors) run_json["executors"].push_back(to_string(kind));
  } else {
    nlohmann::json section = {
        {"nx", grid.nx}, {"ny", grid.ny}, {"precision", grid.precision}, {"split", grid.split}};
    if (model == "jacobi2d") {
      section["norm_every"] = grid.norm_every;
      section["print_every"] = grid.print_every;
    } else if (model == "euler2d") {
      section = {{"case", grid.euler_case}, {"nx", grid.nx},          {"ny", grid.ny},
                 {"cfl", grid.cfl},         {"t_end", grid.t_end},    {"rk", grid.rk},
                 {"limiter", grid.limiter}, {"riemann", grid.riemann}};
    } else {
      section["nz"] = grid.nz;
      section["nu"] = grid.nu;
      section["mode"] = grid.mode;
      section["dt"] = grid.dt;
    }
    out[model] = section;
    run_json["steps"] = run.steps;
    if (run.warmup >= 0) run_json["warmup"] = run.warmup;
    run_json["vtk"] = run.vtk;
    run_json["output_every"] = run.output_every;
    run_json["png"] = run.png;
    run_json["checkpoint_every"] = run.checkpoint_every;
  }
  out["run"] = run_json;
  return out;
}

std::string CaseFile::summary(const CaseLimits& limits) const {
  std::string size;
  std::string length;
  if (model == "seed") {
    size = fmt::format("{} cells, {} halo cells", seed.cells, seed.halo_cells);
    length = fmt::format("{} frames", seed.frames);
  } else if (model == "jacobi2d") {
    size = fmt::format("{} x {} {}", grid.nx, grid.ny, grid.precision);
    length = fmt::format("{} steps", run.steps);
  } else if (model == "euler2d") {
    size = fmt::format("{} x {} double, case {}", grid.nx, grid.ny, grid.euler_case);
    length = grid.t_end > 0 ? fmt::format("to t = {} (at most {} steps)", grid.t_end, run.steps)
                            : fmt::format("{} steps", run.steps);
  } else {
    size = fmt::format("{} x {} x {} {}", grid.nx, grid.ny, grid.nz, grid.precision);
    length = fmt::format("{} steps", run.steps);
  }
  return fmt::format("{} model, {}, {}, {} rank{}, about {} GiB per rank of {} GiB", model, size,
                     length, limits.ranks, limits.ranks == 1 ? "" : "s", gib(bytes_per_rank),
                     gib(limits.memory_gib * kGiB));
}

}  // namespace haloflow::app
