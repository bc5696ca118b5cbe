#include "options.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>
#include <string>

namespace {

// "auto", "host", "graph", "streams" or "serial", comma-separated.
const CLI::Validator kExecutorList(
    [](std::string& value) -> std::string {
      std::istringstream list(value);
      int names = 0;
      for (std::string name; std::getline(list, name, ','); ++names) {
        if (name != "auto" && !haloflow::executor_from_string(name)) {
          return "'" + name + "' is not an executor (auto, host, graph, streams, serial)";
        }
      }
      return names > 0 ? "" : "no executor named";
    },
    "EXECUTOR[,...]");

}  // namespace

Parsed parse_options(int argc, char** argv, bool gpu, bool talk) {
  CLI::App app{"advection2d: 2D linear advection on haloflow's overlapped timestep"};
  Options options;
  std::string executors = "auto";
  std::string transport = "auto";
  std::string handoff = "auto";
  std::string self_exchange = "device";
  std::string edges = "derive";
  app.add_option("--executor", executors,
                 "executors to run and compare: auto (graph with a GPU, otherwise host), host, "
                 "graph, streams, serial")
      ->check(kExecutorList);
  app.add_option("--steps", options.steps, "time steps")->check(CLI::Range(0, 1000000));
  app.add_option("--record", options.record, "frames to record after the run; 0: none")
      ->check(CLI::Range(0, 100000));
  app.add_option("--transport", transport, "how the GPU executors move halos")
      ->check(CLI::IsMember({"auto", "mpi", "nccl", "peer"}));
  app.add_option("--handoff", handoff, "how a GPU executor's graph hands MPI its work")
      ->check(CLI::IsMember({"auto", "proxy", "host-node"}));
  app.add_option("--self-exchange", self_exchange,
                 "a rank that is its own neighbour: copies on the device, or sends itself its "
                 "halos through the transport")
      ->check(CLI::IsMember({"device", "transport"}));
  app.add_option("--edges", edges,
                 "derive: the plan's edges from the nodes' accesses; strict: the boundary's "
                 "edges written by hand as well, the plan refused if they miss one")
      ->check(CLI::IsMember({"derive", "strict"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    std::ostringstream out;
    std::ostringstream err;
    const int status = app.exit(error, out, err);
    if (talk) {
      std::cout << out.str() << std::flush;
      std::cerr << err.str() << std::flush;
    }
    return {.options = std::nullopt, .status = status};
  }
  options.travel.transport = *haloflow::transport_from_string(transport);
  options.travel.handoff = *haloflow::handoff_from_string(handoff);
  options.travel.self_on_device = self_exchange == "device";
  options.edges_by_hand = edges == "strict";
  std::istringstream list(executors);
  for (std::string name; std::getline(list, name, ',');) {
    if (name == "auto") name = gpu ? "graph" : "host";
    options.executors.push_back(*haloflow::executor_from_string(name));
  }
  return {.options = options, .status = 0};
}
