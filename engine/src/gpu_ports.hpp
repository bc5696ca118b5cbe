#pragma once
// The ports of the engine's core (engine/): what it asks of CUDA, CUPTI and NCCL, declared here
// and implemented in graphs/, the only folder that calls them. The core builds and its tests
// run without any of those headers; a build without NCCL implements the NCCL port with
// graphs/nccl_missing.cpp.
//
// - executors: the graph executor (a frame lowered to a cudaGraph) and the stream executors;
// - recording: CUPTI's spans of a frame's kernels and copies;
// - the nccl transport of a halo exchange: ncclRecv and ncclSend of every message between device
//   buffers, in one NCCL group, issued onto a stream (captured once into the frame's graph by the
//   graph executor). No hang: creating the communicator is bounded by the exchange's timeout, and
//   a process-wide watchdog aborts the communicator when a send or receive has not completed
//   within the timeout (a silent peer), or when NCCL reports an asynchronous error; Frame::wait
//   then reports it.

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "executor.hpp"
#include "span_source.hpp"

struct CUstream_st;
struct ncclComm;

namespace haloflow {

// Each executor reads `plan` during construction and keeps a reference: the Frame owns both.
std::unique_ptr<Executor> make_graph_executor(FramePlan& plan, HostNodeFailures& failures,
                                              const FrameOptions& options);
std::unique_ptr<Executor> make_stream_executor(FramePlan& plan, int lanes,
                                               HostNodeFailures& failures);
//! The graph loop (graphs/graph_loop.cpp): the plans of `cycle` (frames of the graph executor)
//! lowered, in order, into the body of a CUDA WHILE node that a counter kernel ends after the
//! repetitions a launch asks for; proxied host nodes as their frame's handoff kernels, whose
//! executions the loop's launch queues with their frames. The plans are read during construction
//! only (their current kernel parameters). \pre each plan can_loop() with its frame's handoff.
std::unique_ptr<LoopExecutor> make_graph_loop(const std::vector<Frame*>& cycle,
                                              const std::string& name);
//! Empty when this toolkit and driver have conditional nodes that a kernel sets; else why not.
[[nodiscard]] std::string conditional_nodes_missing();
//! Graph executor: CUPTI (kernels and copies from activity records, host nodes time-stamped
//! with cuptiGetTimestamp). Subscribes to graph-node cloning at once, so create it before the
//! frame is instantiated. \throws Error when CUPTI cannot be used.
std::unique_ptr<SpanSource> make_cupti_span_source();

}  // namespace haloflow

namespace haloflow::detail {

//! A CUDA IPC handle (cudaIpcMemHandle_t), as bytes that travel in an MPI message.
struct IpcHandle {
  unsigned char bytes[64] = {};
};
//! A GPU as another process names it: its PCI bus id ("0000:17:00.0").
struct DeviceAddress {
  char bus_id[32] = {};
};

//! The peer transport (peer_mailbox.cpp): the IPC handle of `device_memory` (the start of a
//! cudaMalloc allocation). 	hrows Error naming the call and `context`.
[[nodiscard]] IpcHandle ipc_handle_of(void* device_memory, const std::string& context);
//! Maps another process's allocation into this one (peer access enabled when it lives on another
//! GPU). 	hrows Error naming the call and `context`.
[[nodiscard]] void* open_ipc_handle(const IpcHandle& handle, const std::string& context);
//! Unmaps what open_ipc_handle mapped; a failure is printed, not thrown.
void close_ipc_handle(void* mapped, const std::string& context) noexcept;
//! The current device's address.
[[nodiscard]] DeviceAddress current_device_address(const std::string& context);
//! Empty when the current device can store into the device at `other` (the same device, or peer
//! access); else why not, in words.
[[nodiscard]] std::string why_device_unreachable(const DeviceAddress& other,
                                                 const std::string& context);

//! Whether this build has NCCL.
[[nodiscard]] bool nccl_built();
//! "2.28.3 (built with 2.28.9)", or why there is none.
[[nodiscard]] std::string nccl_description();

//! Whether every rank of `communicator` has its own GPU (the current device of each). Collective;
//! bounded by `timeout`. \throws Error naming the call when a rank does not answer in time.
[[nodiscard]] bool one_gpu_per_rank(MPI_Comm communicator, std::chrono::duration<double> timeout,
                                    const std::string& context);

//! The watchdog's rule, apart from NCCL so that host tests check it: an exchange is stuck when
//! one execution has been in flight (started on the GPU, not finished) for longer than the
//! timeout, as seen by successive looks.
class StuckClock {
 public:
  [[nodiscard]] bool stuck(std::uint64_t started, std::uint64_t finished,
                           std::chrono::steady_clock::time_point now,
                           std::chrono::duration<double> timeout) {
    if (started <= finished) return false;
    if (started != in_flight_) {  // a new execution in flight: its clock starts now
      in_flight_ = started;
      since_ = now;
      return false;
    }
    return now - since_ > timeout;
  }

 private:
  std::uint64_t in_flight_ = 0;
  std::chrono::steady_clock::time_point since_{};
};

//! One message of the exchange, in bytes within the device send and receive buffers.
struct NcclMessage {
  int peer = 0;
  std::size_t send_offset = 0;
  std::size_t receive_offset = 0;
  std::size_t bytes = 0;
  std::string direction;  //!< "+x", for messages
  //! NCCL matches the sends and receives between two ranks in the order they are issued (it has
  //! no tags): both sides issue in the order of the sender's direction code, i.e. sends by
  //! send_tag and receives by receive_tag (HaloMessage's), so the n-th send meets the n-th receive.
  int send_tag = 0;
  int receive_tag = 0;
};

class NcclChannel {
 public:
  //! Collective over `communicator` unless `given` (an embedder's ncclComm_t) is set: finds or
  //! makes the process's NCCL communicator for it (its unique id broadcast over MPI), after
  //! checking that every rank has its own GPU. \throws Error without NCCL, with two ranks on one
  //! GPU ("the nccl transport needs one GPU per rank"), or when the communicator fails to
  //! initialise within `timeout`.
  NcclChannel(MPI_Comm communicator, ncclComm* given, std::vector<NcclMessage> messages,
              const void* device_send, void* device_receive, std::chrono::duration<double> timeout,
              std::string context);
  ~NcclChannel();
  NcclChannel(const NcclChannel&) = delete;
  NcclChannel& operator=(const NcclChannel&) = delete;
  NcclChannel(NcclChannel&&) = delete;
  NcclChannel& operator=(NcclChannel&&) = delete;

  //! Issues one exchange onto `stream` (never waits for it).
  void issue(CUstream_st* stream);
  //! \throws Error when the watchdog found this exchange stuck or NCCL failed.
  void check() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace haloflow::detail
