#include "executors.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "printable.hpp"

namespace haloflow::cases {
namespace {

ExecutorKind named(std::string_view requested, bool have_gpu) {
  const auto kind = executor_from_string(requested);
  if (!kind) {
    throw Error(
        fmt::format("--executor {}: not an executor; expected all, auto, graph, streams, "
                    "serial or host",
                    requested));
  }
  if (!have_gpu && *kind != ExecutorKind::host) {
    throw NoDeviceError(fmt::format(
        "--executor {}: no CUDA device found on this machine; use --executor host or auto",
        requested));
  }
  return *kind;
}

std::string in_turn(const std::vector<ExecutorKind>& executors) {
  std::vector<std::string> names;
  for (const ExecutorKind kind : executors) names.emplace_back(to_string(kind));
  return input::listed(names);
}

}  // namespace

ExecutorChoice choose_executors(std::string_view requested, const models::Model& model,
                                bool have_gpu) {
  if (requested == "auto") {
    return {{have_gpu ? ExecutorKind::graph : ExecutorKind::host},
            have_gpu ? "haloflow: executor auto: a CUDA device is present: graph"
                     : "haloflow: executor auto: no CUDA device found: host"};
  }
  if (requested == "all") {
    const auto executors = model.all_executors(have_gpu);
    return {executors, have_gpu
                           ? fmt::format("haloflow: executor all: {} in turn", in_turn(executors))
                           : "haloflow: executor all: no CUDA device found: host only"};
  }
  return {{named(requested, have_gpu)}, {}};
}

ExecutorKind choose_replay_executor(std::string_view requested, bool have_gpu) {
  if (requested == "auto") return have_gpu ? ExecutorKind::graph : ExecutorKind::host;
  const auto kind = executor_from_string(requested);
  if (!kind || (*kind != ExecutorKind::graph && *kind != ExecutorKind::host)) {
    throw Error(
        fmt::format("--executor {}: replay records the graph and host executors; "
                    "expected graph, host or auto",
                    requested));
  }
  return named(requested, have_gpu);
}

}  // namespace haloflow::cases
