// The nccl transport (engine/src/gpu_ports.hpp): the process's NCCL communicators, made from
// MPI communicators with bounded bootstraps, the exchanges' send/receive groups, and the watchdog
// that turns a silent peer or an NCCL failure into an error instead of a hung GPU.

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include "cuda_check.hpp"
#include "cuda_owners.hpp"
#include "gpu_ports.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "nccl_marks.hpp"

namespace haloflow::detail {
namespace {

void nccl_check(ncclResult_t result, const char* call, const std::string& context) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  throw Error(fmt::format("{} failed for {}: {}", call, context, ncclGetErrorString(result)));
}
#define HALOFLOW_NCCL(call, context) nccl_check((call), #call, (context))

using Seconds = std::chrono::duration<double>;

//! Completes a nonblocking MPI request within `timeout`. \throws Error naming `what` otherwise.
void wait_bounded(MPI_Request& request, Seconds timeout, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int done = 0;
    HALOFLOW_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done != 0) return;
    if (std::chrono::steady_clock::now() > deadline) {
      MPI_Request_free(&request);
      throw Error(
          fmt::format("{}: not every rank took part within {} s; are they all alive and "
                      "running the same case?",
                      what, timeout.count()));
    }
    std::this_thread::yield();
  }
}

//! Waits until a nonblocking communicator's last call completed, within `timeout`.
ncclResult_t settle(ncclComm_t comm, Seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  ncclResult_t state = ncclInProgress;
  while (ncclCommGetAsyncError(comm, &state) == ncclSuccess && state == ncclInProgress) {
    if (std::chrono::steady_clock::now() > deadline) return ncclInProgress;
    std::this_thread::yield();
  }
  return state;
}

//! One NCCL communicator, shared by every exchange over the same MPI communicator.
struct Communicator {
  MPI_Comm group = MPI_COMM_NULL;  // a duplicate of the MPI communicator it was made from
  ncclComm_t comm = nullptr;
  bool owned = true;  // false: an embedder's; it destroys it
  std::mutex mutex;   // NCCL calls on the communicator: the launching thread and the watchdog
  std::atomic<bool> aborted{false};
  std::string failure;  // why it was aborted; written once, under `mutex`, before `aborted`

  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator() {
    if (owned && comm != nullptr && !aborted) {
      (void)ncclCommFinalize(comm);  // nonblocking: let it settle before the destroy
      (void)settle(comm, Seconds(10));
      (void)ncclCommDestroy(comm);
    }
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (group != MPI_COMM_NULL && finalised == 0) MPI_Comm_free(&group);
  }

  //! Aborts the communicator once (its kernels stop waiting); \returns whether this call did.
  bool abort(const std::string& why) {
    const std::lock_guard lock(mutex);
    if (aborted) return false;
    failure = why;
    if (owned) (void)ncclCommAbort(comm);
    aborted = true;
    return true;
  }

  [[nodiscard]] std::string why_aborted() {
    const std::lock_guard lock(mutex);
    return failure;
  }
};

std::shared_ptr<Communicator> make_communicator(MPI_Comm communicator, Seconds timeout,
                                                const std::string& context) {
  auto made = std::make_shared<Communicator>();
  MPI_Request request = MPI_REQUEST_NULL;
  HALOFLOW_MPI(MPI_Comm_idup(communicator, &made->group, &request), context);
  wait_bounded(request, timeout, context + ": duplicating the communicator for NCCL");
  int rank = 0;
  int size = 0;
  HALOFLOW_MPI(MPI_Comm_rank(made->group, &rank), context);
  HALOFLOW_MPI(MPI_Comm_size(made->group, &size), context);
  if (!one_gpu_per_rank(made->group, timeout, context)) {
    throw Error(fmt::format(
        "{}: the nccl transport needs one GPU per rank, and ranks of this run share a GPU (NCCL "
        "refuses that); give every rank its own GPU, or use the mpi transport",
        context));
  }
  ncclUniqueId id{};
  if (rank == 0) HALOFLOW_NCCL(ncclGetUniqueId(&id), context);
  HALOFLOW_MPI(MPI_Ibcast(&id, sizeof id, MPI_BYTE, 0, made->group, &request), context);
  wait_bounded(request, timeout, context + ": broadcasting the NCCL unique id");
  // Nonblocking, so that a rank that never joins makes an error here, not a hang.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  HALOFLOW_NCCL(ncclCommInitRankConfig(&made->comm, size, id, rank, &config), context);
  const ncclResult_t state = settle(made->comm, timeout);
  if (state != ncclSuccess) {
    (void)ncclCommAbort(made->comm);
    made->comm = nullptr;
    throw Error(fmt::format("{}: the NCCL communicator of {} ranks {} ({})", context, size,
                            state == ncclInProgress
                                ? fmt::format("did not initialise within {} s", timeout.count())
                                : "failed to initialise",
                            ncclGetErrorString(state)));
  }
  return made;
}

//! The process's communicators, one per MPI communicator (congruent ones share).
std::shared_ptr<Communicator> shared_communicator(MPI_Comm communicator, Seconds timeout,
                                                  const std::string& context) {
  static std::mutex mutex;
  static std::vector<std::weak_ptr<Communicator>> known;
  const std::lock_guard lock(mutex);
  std::erase_if(known, [](const auto& weak) { return weak.expired(); });
  for (const auto& weak : known) {
    auto existing = weak.lock();
    int same = MPI_UNEQUAL;
    HALOFLOW_MPI(MPI_Comm_compare(existing->group, communicator, &same), context);
    if (same == MPI_IDENT || same == MPI_CONGRUENT) return existing;
  }
  auto made = make_communicator(communicator, timeout, context);
  known.push_back(made);
  return made;
}

}  // namespace

struct NcclChannel::State {
  std::shared_ptr<Communicator> communicator;
  std::vector<NcclMessage> messages;
  std::vector<const NcclMessage*> receives;  // by receive_tag: the order the peers send in
  std::vector<const NcclMessage*> sends;     // by send_tag
  const void* send = nullptr;
  void* receive = nullptr;
  Seconds timeout{60};
  std::string context;
  Buffer marks;       // pinned, mapped: NcclMarks
  Buffer executions;  // device: the start mark's counter
  StuckClock clock;   // the watchdog's view of the execution in flight
  mutable std::mutex mutex;
  std::string failure;

  [[nodiscard]] NcclMarks& mark_words() const { return *marks.as<NcclMarks>(); }

  void fail(const std::string& why) {
    {
      const std::lock_guard lock(mutex);
      if (failure.empty()) failure = why;
    }
    (void)communicator->abort(why);
  }

  //! What the watchdog does every few milliseconds.
  void watch(std::chrono::steady_clock::time_point now) {
    if (communicator->aborted) return;
    ncclResult_t state = ncclSuccess;
    {
      // Skipped while the launching thread issues (it holds the lock, never for long).
      const std::unique_lock lock(communicator->mutex, std::try_to_lock);
      if (lock.owns_lock() && ncclCommGetAsyncError(communicator->comm, &state) != ncclSuccess) {
        state = ncclSuccess;
      }
    }
    if (state != ncclSuccess && state != ncclInProgress) {
      fail(fmt::format("{}: NCCL reported an error during the exchange: {}", context,
                       ncclGetErrorString(state)));
      return;
    }
    if (!clock.stuck(load(mark_words().started), load(mark_words().finished), now, timeout)) {
      return;
    }
    std::string peers;
    for (const NcclMessage& message : messages) {
      peers += fmt::format("{}{} ({})", peers.empty() ? "" : ", ", message.peer, message.direction);
    }
    fail(fmt::format(
        "{}: no halo arrived from rank {} through NCCL within {} s (the send/receive group did "
        "not complete; the communicator was aborted); is that rank alive and running the same "
        "case?",
        context, peers, timeout.count()));
  }
};

namespace {

//! One thread for the process: looks at every live NCCL exchange every 5 ms.
class Watchdog {
 public:
  static Watchdog& instance() {
    static Watchdog watchdog;
    return watchdog;
  }
  void watch(const std::shared_ptr<NcclChannel::State>& state) {
    const std::lock_guard lock(mutex_);
    std::erase_if(watched_, [](const auto& weak) { return weak.expired(); });
    watched_.push_back(state);
    if (!thread_.joinable()) {
      thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
    }
  }
  Watchdog() = default;
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() = default;  // the jthread stops and joins

 private:
  void run(const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::vector<std::shared_ptr<NcclChannel::State>> alive;
      {
        const std::lock_guard lock(mutex_);
        for (const auto& weak : watched_) {
          if (auto state = weak.lock()) alive.push_back(std::move(state));
        }
      }
      const auto now = std::chrono::steady_clock::now();
      for (const auto& state : alive) state->watch(now);
    }
  }
  std::mutex mutex_;
  std::vector<std::weak_ptr<NcclChannel::State>> watched_;
  std::jthread thread_;
};

}  // namespace

bool nccl_built() {
  return true;
}

std::string nccl_description() {
  int version = 0;
  const std::string built = fmt::format("{}.{}.{}", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
  if (ncclGetVersion(&version) != ncclSuccess) return "NCCL (built with " + built + ")";
  return fmt::format("NCCL {}.{}.{} (built with {})", version / 10000, version / 100 % 100,
                     version % 100, built);
}

bool one_gpu_per_rank(MPI_Comm communicator, Seconds timeout, const std::string& context) {
  int device = 0;
  HALOFLOW_CUDA(cudaGetDevice(&device), context);
  cudaDeviceProp properties{};
  HALOFLOW_CUDA(cudaGetDeviceProperties(&properties, device), context);
  int size = 0;
  HALOFLOW_MPI(MPI_Comm_size(communicator, &size), context);
  std::vector<char> all(static_cast<std::size_t>(size) * sizeof properties.uuid);
  MPI_Request request = MPI_REQUEST_NULL;
  HALOFLOW_MPI(MPI_Iallgather(&properties.uuid, sizeof properties.uuid, MPI_BYTE, all.data(),
                              sizeof properties.uuid, MPI_BYTE, communicator, &request),
               context);
  wait_bounded(request, timeout, context + ": comparing the ranks' GPUs");
  std::vector<std::string> uuids;
  for (int r = 0; r < size; ++r) {
    uuids.emplace_back(all.data() + static_cast<std::size_t>(r) * sizeof properties.uuid,
                       sizeof properties.uuid);
  }
  std::sort(uuids.begin(), uuids.end());
  return std::adjacent_find(uuids.begin(), uuids.end()) == uuids.end();
}

NcclChannel::NcclChannel(MPI_Comm communicator, ncclComm* given, std::vector<NcclMessage> messages,
                         const void* device_send, void* device_receive, Seconds timeout,
                         std::string context)
    : state_(std::make_shared<State>()) {
  State& s = *state_;
  s.messages = std::move(messages);
  for (const NcclMessage& m : s.messages) {
    s.receives.push_back(&m);
    s.sends.push_back(&m);
  }
  std::stable_sort(s.receives.begin(), s.receives.end(),
                   [](const auto* a, const auto* b) { return a->receive_tag < b->receive_tag; });
  std::stable_sort(s.sends.begin(), s.sends.end(),
                   [](const auto* a, const auto* b) { return a->send_tag < b->send_tag; });
  s.send = device_send;
  s.receive = device_receive;
  s.timeout = timeout;
  s.context = std::move(context);
  if (given != nullptr) {
    s.communicator = std::make_shared<Communicator>();
    s.communicator->comm = given;
    s.communicator->owned = false;
  } else {
    s.communicator = shared_communicator(communicator, timeout, s.context);
  }
  s.marks = Buffer(Memory::host, sizeof(NcclMarks), s.context + " NCCL marks", Backend::cuda);
  std::memset(s.marks.data(), 0, s.marks.bytes());
  s.executions =
      Buffer(Memory::device, sizeof(std::uint64_t), s.context + " NCCL executions", Backend::cuda);
  detail::zero_device_now(s.executions.data(), sizeof(std::uint64_t), s.context);
  Watchdog::instance().watch(state_);
}

NcclChannel::~NcclChannel() = default;

void NcclChannel::issue(CUstream_st* stream) {
  State& s = *state_;
  check();
  HALOFLOW_CUDA(
      launch_mark(stream, s.executions.as<std::uint64_t>(), &s.mark_words().started, true),
      s.context);
  {
    const std::lock_guard lock(s.communicator->mutex);
    if (s.communicator->aborted) throw Error(s.communicator->failure);  // under the lock
    ncclComm_t comm = s.communicator->comm;
    const auto* send = static_cast<const char*>(s.send);
    auto* receive = static_cast<char*>(s.receive);
    HALOFLOW_NCCL(ncclGroupStart(), s.context);
    for (const NcclMessage* m : s.receives) {
      HALOFLOW_NCCL(
          ncclRecv(receive + m->receive_offset, m->bytes, ncclUint8, m->peer, comm, stream),
          s.context);
    }
    for (const NcclMessage* m : s.sends) {
      HALOFLOW_NCCL(ncclSend(send + m->send_offset, m->bytes, ncclUint8, m->peer, comm, stream),
                    s.context);
    }
    HALOFLOW_NCCL(ncclGroupEnd(), s.context);
    const ncclResult_t state = settle(comm, s.timeout);
    if (state != ncclSuccess) {
      throw Error(fmt::format("{}: issuing the NCCL send/receive group: {}", s.context,
                              ncclGetErrorString(state)));
    }
  }
  HALOFLOW_CUDA(
      launch_mark(stream, s.executions.as<std::uint64_t>(), &s.mark_words().finished, false),
      s.context);
}

void NcclChannel::check() const {
  std::string failure;
  {
    const std::lock_guard lock(state_->mutex);
    failure = state_->failure;
  }
  if (failure.empty() && state_->communicator->aborted) {
    failure = state_->communicator->why_aborted();
  }
  if (!failure.empty()) throw Error(failure);
}

}  // namespace haloflow::detail
