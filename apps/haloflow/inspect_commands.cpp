// haloflow replay and haloflow info: the commands that look at a case's frames or at the machine.

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/version.hpp"
#include "replay.hpp"
#include "run_output.hpp"

namespace haloflow::app {
namespace {

std::string cuda_version(int encoded) {
  return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return fmt::format("unknown thread level {}", level);
  }
}

}  // namespace

int replay_command(const cases::ReplayOptions& options, const MpiSession& mpi) {
  if (mpi.world_rank() == 0) {
    if (const auto device = current_device()) {
      fmt::print("device {}: {} ({} SMs, {:.0f} GiB)\n", device->ordinal, device->name,
                 device->multiprocessors, device->memory_gib);
    }
    std::fflush(stdout);
  }
  const auto result = cases::replay_case(options, mpi);
  if (mpi.world_rank() == 0) std::fputs(result.text.c_str(), stdout);
  return 0;
}

int show_info(const MpiSession& mpi) {
  if (mpi.world_rank() != 0) return 0;
  const auto device = haloflow::current_device();
  fmt::print("haloflow {}\n", haloflow::version);
  if (device) {
    fmt::print("device {}: {}, {} SMs, {:.0f} GiB, stream priorities {} (low) to {} (high)\n",
               device->ordinal, device->name, device->multiprocessors, device->memory_gib,
               device->priority_lowest, device->priority_highest);
  } else {
    fmt::print("no CUDA device: only the host executor can run\n");
  }
  const std::string mpi_library = outputs::mpi_library_version();
  int provided = 0;
  MPI_Query_thread(&provided);
  int major = 0;
  int minor = 0;
  MPI_Get_version(&major, &minor);
  fmt::print("MPI library: {}\n", mpi_library);
  fmt::print("MPI standard {}.{}, thread level provided: {}, {} rank(s)\n", major, minor,
             thread_level_name(provided), mpi.world_size());
  const auto build = outputs::versions();
  fmt::print(
      "build: haloflow {}, CUDA runtime {}, CUDA driver {}, fmt {}, nlohmann_json {}, libpng {}, "
      "zlib {}\n",
      build["haloflow"].get<std::string>(),
      device ? cuda_version(device->runtime_version) : std::string("no device"),
      device ? cuda_version(device->driver_version) : std::string("no device"),
      build["fmt"].get<std::string>(), build["nlohmann_json"].get<std::string>(),
      build["libpng"].get<std::string>(), build["zlib"].get<std::string>());
  fmt::print("nccl transport: {}\n", haloflow::nccl_available()
                                         ? haloflow::nccl_description()
                                         : "not available: " + haloflow::nccl_description());
  return 0;
}

}  // namespace haloflow::app
