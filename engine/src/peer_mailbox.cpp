#include "peer_mailbox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <thread>

#include "gpu_ports.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "peer_protocol.hpp"

namespace haloflow::detail {
namespace {

//! What a receiver tells the sender of one of its messages, once, at set-up.
struct PeerAddress {
  IpcHandle ipc;                   //!< GPU: the receiver's mailbox
  DeviceAddress device;            //!< GPU: the receiver's device
  std::int32_t flag = 0;           //!< the message's flag in the receiver's mailbox
  std::int64_t offset = 0;         //!< elements from the receiver's slot 0 to the message
  std::int64_t slot_elements = 0;  //!< the receiver's elements per slot
  //! 0 when the receiver could not share its mailbox (no CUDA IPC on its platform): every rank
  //! then falls back together (auto) or refuses together (peer asked for).
  std::int32_t usable = 1;
};

//! Completes `requests` (one per message: receives first, then sends) within `timeout`, or names
//! the first neighbour that did not answer.
void wait_bounded(std::vector<MPI_Request>& requests, const std::vector<PeerMessage>& messages,
                  std::chrono::duration<double> timeout, const std::string& context) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<int> finished(requests.size());
  for (;;) {
    int done = 0;
    HALOFLOW_MPI(MPI_Testsome(static_cast<int>(requests.size()), requests.data(), &done,
                              finished.data(), MPI_STATUSES_IGNORE),
                 context);
    if (done == MPI_UNDEFINED) return;
    if (std::chrono::steady_clock::now() > deadline) break;
    if (done == 0) std::this_thread::yield();
  }
  const auto open =
      std::ranges::find_if(requests, [](MPI_Request r) { return r != MPI_REQUEST_NULL; });
  const PeerMessage& silent =
      messages[static_cast<std::size_t>(open - requests.begin()) % messages.size()];
  for (std::size_t r = 0; r < requests.size(); ++r) {
    if (requests[r] == MPI_REQUEST_NULL) continue;
    if (r < messages.size()) MPI_Cancel(&requests[r]);
    MPI_Request_free(&requests[r]);
  }
  throw Error(fmt::format(
      "{}: rank {} (direction {}) did not answer within {} s while the peer transport was set "
      "up; is that rank alive and running the same case?",
      context, silent.peer, silent.direction, timeout.count()));
}

//! Completes `request`, a nonblocking collective, within `timeout`; false when it did not. Not
//! wait_for_collective: that one keeps a request open on the communicator for questions, and
//! these communicators are freed with the exchange.
bool complete_within(MPI_Request& request, std::chrono::duration<double> timeout,
                     const std::string& context) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int done = 0;
    HALOFLOW_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE), context);
    if (done != 0) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
}

//! Each message's peer as a rank of `node`, or MPI_UNDEFINED when it is on another node.
std::vector<int> node_ranks_of(MPI_Comm communicator, MPI_Comm node,
                               const std::vector<PeerMessage>& messages,
                               const std::string& context) {
  MPI_Group all = MPI_GROUP_NULL;
  MPI_Group local = MPI_GROUP_NULL;
  HALOFLOW_MPI(MPI_Comm_group(communicator, &all), context);
  HALOFLOW_MPI(MPI_Comm_group(node, &local), context);
  std::vector<int> peers;
  for (const PeerMessage& message : messages) peers.push_back(message.peer);
  std::vector<int> translated(peers.size(), MPI_UNDEFINED);
  if (!peers.empty()) {
    HALOFLOW_MPI(MPI_Group_translate_ranks(all, static_cast<int>(peers.size()), peers.data(), local,
                                           translated.data()),
                 context);
  }
  MPI_Group_free(&all);
  MPI_Group_free(&local);
  return translated;
}

}  // namespace

struct PeerMailbox::State {
  Backend backend = Backend::cpu;
  std::string context;
  std::chrono::duration<double> timeout{};
  MPI_Comm node = MPI_COMM_NULL;  // the ranks of this node
  MPI_Win window = MPI_WIN_NULL;  // host: the mailboxes of the node's ranks
  Buffer device_mailbox;          // GPU: this rank's mailbox
  std::byte* mailbox = nullptr;
  std::map<int, void*> mapped;  // GPU: neighbours' mailboxes opened through IPC, by rank
  std::vector<PeerRoute> routes;
  std::vector<PeerTarget> targets;
  bool in_use = false;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() { release(); }

  // Frees everything. The window is freed collectively, so only once every rank of the node has
  // come this far (a bounded barrier): a rank that never does leaves it to the end of the
  // process, rather than hang this one.
  void release() noexcept {
    for (const auto& [rank, pointer] : mapped) close_ipc_handle(pointer, context);
    mapped.clear();
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (finalised != 0) return;
    if (window != MPI_WIN_NULL) {
      try {
        MPI_Request barrier = MPI_REQUEST_NULL;
        HALOFLOW_MPI(MPI_Ibarrier(node, &barrier), context);
        if (!complete_within(barrier, timeout, context)) throw Error("a rank did not come");
        MPI_Win_free(&window);
      } catch (const std::exception&) {
        window = MPI_WIN_NULL;  // another rank is gone: the window goes with the process
      }
    }
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    device_mailbox = Buffer();
  }
};

namespace {

// Whether one message can travel peer to peer, and why (the run header prints it either way).
struct Verdict {
  bool peer = false;
  std::string reason;
};
Verdict route_verdict(const PeerMailbox::State& s, const PeerMessage& message,
                      const PeerAddress& told, const PeerAddress& mine, int node_rank,
                      const std::string& unusable, PeerMailbox::Want want) {
  if (node_rank == MPI_UNDEFINED) {
    return {false, fmt::format("rank {} is on another node", message.peer)};
  }
  if (s.backend == Backend::cpu) return {true, "same node (MPI shared-memory window)"};
  if (!unusable.empty()) return {false, unusable};
  if (told.usable == 0) {
    return {false,
            fmt::format("rank {} cannot share its mailbox (no CUDA IPC there)", message.peer)};
  }
  if (auto why = why_device_unreachable(told.device, s.context); !why.empty()) {
    return {false, std::move(why)};
  }
  if (std::strcmp(told.device.bus_id, mine.device.bus_id) != 0) {
    return {true, fmt::format("same node, GPU {} (CUDA IPC, peer access)", told.device.bus_id)};
  }
  if (want == PeerMailbox::Want::required) return {true, "same node, same GPU (CUDA IPC)"};
  return {false, fmt::format("rank {} shares this GPU, where the waiting kernels of two "
                             "processes take turns (peer only when asked for by name)",
                             message.peer)};
}

// The neighbour's mailbox in this process: its part of the shared window, this rank's own
// mailbox (it cannot be opened through IPC), or the neighbour's, mapped once per rank.
std::byte* mailbox_of(PeerMailbox::State& s, int peer, int rank, const PeerAddress& told,
                      int node_rank) {
  if (s.backend == Backend::cpu) {
    MPI_Aint size = 0;
    int unit = 0;
    void* shared = nullptr;
    HALOFLOW_MPI(MPI_Win_shared_query(s.window, node_rank, &size, &unit, &shared), s.context);
    return static_cast<std::byte*>(shared);
  }
  if (peer == rank) return s.mailbox;
  auto found = s.mapped.find(peer);
  if (found == s.mapped.end()) {
    const std::string what = fmt::format("{}: the mailbox of rank {}", s.context, peer);
    found = s.mapped.emplace(peer, open_ipc_handle(told.ipc, what)).first;
  }
  return static_cast<std::byte*>(found->second);
}

}  // namespace

PeerMailbox::PeerMailbox(MPI_Comm communicator, Backend backend, std::vector<PeerMessage> messages,
                         std::size_t element_size, std::int64_t receive_elements, Want want,
                         std::chrono::duration<double> timeout, std::string context)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.backend = backend;
  s.context = std::move(context);
  s.timeout = timeout;
  if (messages.size() > static_cast<std::size_t>(kMostPeerMessages)) {
    throw Error(fmt::format("{}: {} messages; the peer transport carries at most {}", s.context,
                            messages.size(), kMostPeerMessages));
  }
  // Every rank of the communicator is here (its duplicate was made with a bounded wait), so the
  // collectives below complete at once.
  HALOFLOW_MPI(MPI_Comm_split_type(communicator, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s.node),
               s.context);
  int rank = 0;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), s.context);
  const std::vector<int> on_node = node_ranks_of(communicator, s.node, messages, s.context);

  // This rank's mailbox: the flags, then two slots.
  const auto bytes =
      static_cast<MPI_Aint>(kPeerSlotsOffset) +
      static_cast<MPI_Aint>(2 * receive_elements) * static_cast<MPI_Aint>(element_size);
  PeerAddress mine;
  mine.slot_elements = receive_elements;
  std::string unusable;  // why this rank's own mailbox cannot be shared, if it cannot
  if (backend == Backend::cpu) {
    void* base = nullptr;
    HALOFLOW_MPI(MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, s.node, &base, &s.window),
                 s.context);
    s.mailbox = static_cast<std::byte*>(base);
    std::memset(s.mailbox, 0, static_cast<std::size_t>(bytes));
  } else {
    // A platform without CUDA IPC (MIG, some containers) must not stop the exchange: the set-up
    // goes on, telling the neighbours, so that every rank decides alike below.
    try {
      s.device_mailbox = Buffer(Memory::device, static_cast<std::size_t>(bytes),
                                s.context + " peer mailbox", backend);
      const std::vector<std::byte> zeros(static_cast<std::size_t>(bytes));
      s.device_mailbox.upload(zeros.data(), zeros.size());
      s.mailbox = static_cast<std::byte*>(s.device_mailbox.data());
      mine.ipc = ipc_handle_of(s.mailbox, s.context + " peer mailbox");
      mine.device = current_device_address(s.context);
    } catch (const std::exception& error) {
      mine.usable = 0;
      unusable = fmt::format("this rank's mailbox cannot be shared: {}", error.what());
    }
  }

  // Each receiver tells its sender where the message goes; tags as the messages' own.
  std::vector<PeerAddress> told(messages.size());
  std::vector<PeerAddress> telling(messages.size(), mine);
  std::vector<MPI_Request> requests(2 * messages.size(), MPI_REQUEST_NULL);
  for (std::size_t m = 0; m < messages.size(); ++m) {
    HALOFLOW_MPI(MPI_Irecv(&told[m], sizeof(PeerAddress), MPI_BYTE, messages[m].peer,
                           messages[m].send_tag, communicator, &requests[m]),
                 s.context);
  }
  for (std::size_t m = 0; m < messages.size(); ++m) {
    telling[m].flag = static_cast<std::int32_t>(m);
    telling[m].offset = messages[m].receive_offset;
    HALOFLOW_MPI(MPI_Isend(&telling[m], sizeof(PeerAddress), MPI_BYTE, messages[m].peer,
                           messages[m].receive_tag, communicator, &requests[messages.size() + m]),
                 s.context);
  }
  if (!messages.empty()) wait_bounded(requests, messages, timeout, s.context);

  // How each message can travel, decided from both ends' addresses, and where it goes (the
  // neighbour's mailbox mapped now, so that a failure to map it is agreed on like the others).
  int possible = 1;
  std::vector<std::byte*> bases(messages.size(), nullptr);
  for (std::size_t m = 0; m < messages.size(); ++m) {
    PeerRoute route{.peer = messages[m].peer, .direction = messages[m].direction};
    try {
      Verdict verdict = route_verdict(s, messages[m], told[m], mine, on_node[m], unusable, want);
      route.peer_transport = verdict.peer;
      route.reason = std::move(verdict.reason);
      if (route.peer_transport) {
        bases[m] = mailbox_of(s, messages[m].peer, rank, told[m], on_node[m]);
      }
    } catch (const std::exception& error) {
      route.peer_transport = false;
      route.reason =
          fmt::format("the mailbox of rank {} cannot be reached: {}", route.peer, error.what());
    }
    if (!route.peer_transport) possible = 0;
    s.routes.push_back(std::move(route));
  }
  int everywhere = 0;
  MPI_Request agreeing = MPI_REQUEST_NULL;
  HALOFLOW_MPI(MPI_Iallreduce(&possible, &everywhere, 1, MPI_INT, MPI_MIN, communicator, &agreeing),
               s.context);
  if (!complete_within(agreeing, timeout, s.context)) {
    throw Error(
        fmt::format("{}: the other ranks did not agree on the peer transport within {} s "
                    "(MPI_Iallreduce); is every rank alive and running the same case?",
                    s.context, timeout.count()));
  }
  if (everywhere == 0) {
    if (want == Want::required) {
      const auto refused = std::ranges::find_if(
          s.routes, [](const PeerRoute& route) { return !route.peer_transport; });
      throw Error(
          refused == s.routes.end()
              ? fmt::format("{}: the peer transport cannot be used: another rank cannot reach "
                            "its neighbour that way (its own message says why); use mpi or auto",
                            s.context)
              : fmt::format("{}: the peer transport cannot carry the {} halo to rank {}: {}; "
                            "use mpi or auto",
                            s.context, refused->direction, refused->peer, refused->reason));
    }
    for (PeerRoute& route : s.routes) {
      if (route.peer_transport) {
        route.peer_transport = false;
        route.reason =
            "another rank's neighbour cannot be reached peer to peer, and every "
            "rank must agree";
      }
    }
    s.release();  // every rank takes this branch: the collective frees meet
    return;
  }

  for (std::size_t m = 0; m < messages.size(); ++m) {
    std::byte* const base = bases[m];
    s.targets.push_back(
        {.slot = base + kPeerSlotsOffset + static_cast<std::size_t>(told[m].offset) * element_size,
         .slot_elements = told[m].slot_elements,
         .flag = reinterpret_cast<std::uint64_t*>(base + static_cast<std::size_t>(told[m].flag) *
                                                             kPeerFlagBytes)});
  }
  s.in_use = true;
  if (backend == Backend::cuda && s.node != MPI_COMM_NULL) MPI_Comm_free(&s.node);
}

PeerMailbox::~PeerMailbox() = default;

bool PeerMailbox::in_use() const {
  return state_->in_use;
}
const std::vector<PeerRoute>& PeerMailbox::routes() const {
  return state_->routes;
}
const std::vector<PeerTarget>& PeerMailbox::targets() const {
  return state_->targets;
}
std::byte* PeerMailbox::slots() const {
  return state_->mailbox + kPeerSlotsOffset;
}
std::uint64_t* PeerMailbox::flags() const {
  return reinterpret_cast<std::uint64_t*>(state_->mailbox);
}

}  // namespace haloflow::detail
