// The nccl transport in a build without NCCL (HALOFLOW_WITH_NCCL=OFF, or NCCL not found): asking
// for it is an error that says so; everything else works.

#include "gpu_ports.hpp"
#include "haloflow/error.hpp"

namespace haloflow::detail {

bool nccl_built() {
  return false;
}

std::string nccl_description() {
  return "haloflow was built without NCCL (HALOFLOW_WITH_NCCL=OFF, or NCCL was not found; "
         "configure with NCCL_ROOT pointing at it)";
}

bool one_gpu_per_rank(MPI_Comm /*communicator*/, std::chrono::duration<double> /*timeout*/,
                      const std::string& /*context*/) {
  return false;
}

struct NcclChannel::State {};

NcclChannel::NcclChannel(MPI_Comm /*communicator*/, ncclComm* /*given*/,
                         std::vector<NcclMessage> /*messages*/, const void* /*device_send*/,
                         void* /*device_receive*/, std::chrono::duration<double> /*timeout*/,
                         std::string context) {
  throw Error(context + ": the nccl transport is not available: " + nccl_description() +
              "; use the mpi transport (or auto)");
}

NcclChannel::~NcclChannel() = default;

void NcclChannel::issue(CUstream_st* /*stream*/) {}

void NcclChannel::check() const {}

}  // namespace haloflow::detail
