#include "haloflow/ranks.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "cuda_check.hpp"
#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow {

RankPlacement place_rank_on_device(MPI_Comm communicator) {
  RankPlacement placement;
  MPI_Comm node = MPI_COMM_NULL;
  HALOFLOW_MPI(MPI_Comm_split_type(communicator, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
               "finding the ranks of this node");
  const int rank_status = MPI_Comm_rank(node, &placement.local_rank);
  const int size_status = MPI_Comm_size(node, &placement.local_size);
  MPI_Comm_free(&node);
  HALOFLOW_MPI(rank_status, "the node communicator");
  HALOFLOW_MPI(size_status, "the node communicator");
  if (!gpu_available()) return placement;
  HALOFLOW_CUDA(cudaGetDeviceCount(&placement.devices), "this node's devices");
  placement.device = placement.local_rank % placement.devices;
  HALOFLOW_CUDA(
      cudaSetDevice(placement.device),
      fmt::format("node-local rank {} (device {})", placement.local_rank, placement.device));
  return placement;
}

}  // namespace haloflow
