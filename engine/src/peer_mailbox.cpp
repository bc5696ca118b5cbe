#include "peer_mailbox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <exception>
#include <map>
#include <thread>

#include "gpu_ports.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "peer_protocol.hpp"

namespace haloflow::detail {
namespace {

//! What each end of a route tells the other first, once, at set-up: where its mailbox is.
struct PeerAddress {
  IpcHandle ipc;         //!< GPU: this rank's mailbox
  DeviceAddress device;  //!< GPU: this rank's device
  //! 0 when this rank could not share its mailbox (no CUDA IPC on its platform): its routes then
  //! go by MPI (auto) or are refused (peer asked for), decided alike at both ends.
  std::int32_t usable = 1;
};

//! What a receiver tells the sender of a peer route last: where the route's halos go.
struct PeerSlot {
  std::int32_t flag = 0;           //!< the route's flag in the receiver's mailbox
  std::int64_t offset = 0;         //!< elements from the receiver's slot 0 to the route's halos
  std::int64_t slot_elements = 0;  //!< the receiver's elements per slot
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

//! One round of set-up messages with the neighbours: for each message m with `taking[m]`, this
//! rank tells the neighbour `telling[m]` and is told `told[m]`, both ends of a route using the
//! route's tags (what m receives is tagged as the neighbour sends it). Bounded by `timeout`.
template <class Item>
void tell_neighbours(const std::vector<PeerMessage>& messages, const std::vector<bool>& taking,
                     const std::vector<Item>& telling, std::vector<Item>& told,
                     MPI_Comm communicator, std::chrono::duration<double> timeout,
                     const std::string& context) {
  std::vector<MPI_Request> requests(2 * messages.size(), MPI_REQUEST_NULL);
  for (std::size_t m = 0; m < messages.size(); ++m) {
    if (!taking[m]) continue;
    HALOFLOW_MPI(MPI_Irecv(&told[m], sizeof(Item), MPI_BYTE, messages[m].peer, messages[m].send_tag,
                           communicator, &requests[m]),
                 context);
  }
  for (std::size_t m = 0; m < messages.size(); ++m) {
    if (!taking[m]) continue;
    HALOFLOW_MPI(MPI_Isend(&telling[m], sizeof(Item), MPI_BYTE, messages[m].peer,
                           messages[m].receive_tag, communicator, &requests[messages.size() + m]),
                 context);
  }
  if (std::ranges::find(taking, true) != taking.end()) {
    wait_bounded(requests, messages, timeout, context);
  }
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
  std::int64_t slot_elements = 0;
  bool in_use = false;
  //! Set when this rank throws a refusal that every rank of the communicator throws alike
  //! (refuse_together): every rank then comes to free the window, though an exception unwinds.
  bool refused_together = false;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() { release(); }

  // Frees everything. The window is freed collectively, so only once every rank of the node has
  // come this far (a bounded barrier): a rank that never does leaves it to the end of the
  // process, rather than hang this one. While an exception unwinds (the run has failed: a
  // neighbour that stopped answering, a collective that timed out) no barrier is waited for:
  // the rank that failed the run may be this node's, and waiting for it again would add a whole
  // timeout to the one that already ended the run (a second deadline before this rank reports,
  // and before the job ends); the window is left to the end of the process then too.
  void release() noexcept {
    for (const auto& [rank, pointer] : mapped) close_ipc_handle(pointer, context);
    mapped.clear();
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (finalised != 0) return;
    if (window != MPI_WIN_NULL && std::uncaught_exceptions() > 0 && !refused_together) {
      window = MPI_WIN_NULL;
    }
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

// This end's view of one route (the run header prints its reason either way). `unusable`: why
// this rank's own mailbox cannot be shared, if it cannot.
RouteEnd route_end(const PeerMailbox::State& s, const PeerMessage& message, const PeerAddress& told,
                   const PeerAddress& mine, int node_rank, const std::string& unusable,
                   PeerMailbox::Want want) {
  if (node_rank == MPI_UNDEFINED) {
    return {false, false, fmt::format("rank {} is on another node", message.peer)};
  }
  if (s.backend == Backend::cpu) return {true, true, "same node (MPI shared-memory window)"};
  if (!unusable.empty()) return {true, false, unusable};
  if (told.usable == 0) {
    return {true, false,
            fmt::format("rank {} cannot share its mailbox (no CUDA IPC there)", message.peer)};
  }
  if (auto why = why_device_unreachable(told.device, s.context); !why.empty()) {
    return {true, false, std::move(why)};
  }
  if (std::strcmp(told.device.bus_id, mine.device.bus_id) != 0) {
    return {true, true,
            fmt::format("same node, GPU {} (CUDA IPC, peer access)", told.device.bus_id)};
  }
  if (want == PeerMailbox::Want::required) return {true, true, "same node, same GPU (CUDA IPC)"};
  return {true, false,
          fmt::format("rank {} shares this GPU, where the waiting kernels of two processes take "
                      "turns (peer only when asked for by name)",
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

// This end's view of message m's route, with the neighbour's mailbox mapped now, so that a
// failure to map it is decided on like any other reason (`bases[m]` is where it is mapped).
RouteEnd end_and_mailbox(PeerMailbox::State& s, const PeerMessage& message, int rank,
                         const PeerAddress& told, const PeerAddress& mine, int node_rank,
                         const std::string& unusable, PeerMailbox::Want want, std::byte*& base) {
  try {
    RouteEnd end = route_end(s, message, told, mine, node_rank, unusable, want);
    if (end.can_store) base = mailbox_of(s, message.peer, rank, told, node_rank);
    return end;
  } catch (const std::exception& error) {
    return {
        node_rank != MPI_UNDEFINED, false,
        fmt::format("the mailbox of rank {} cannot be reached: {}", message.peer, error.what())};
  }
}

// Makes every rank refuse, with the first refusing rank's words, when a route within a node
// cannot go peer to peer although peer was asked for; returns when no rank refuses. Collective.
void refuse_together(PeerMailbox::State& s, MPI_Comm communicator, int rank,
                     const std::string& refusal) {
  const int mine = refusal.empty() ? INT_MAX : rank;
  int first = INT_MAX;
  MPI_Request agreeing = MPI_REQUEST_NULL;
  HALOFLOW_MPI(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, communicator, &agreeing),
               s.context);
  const auto silent = [&](const char* call) {
    return Error(
        fmt::format("{}: the other ranks did not agree on the peer transport within {} s "
                    "({}); is every rank alive and running the same case?",
                    s.context, s.timeout.count(), call));
  };
  if (!complete_within(agreeing, s.timeout, s.context)) throw silent("MPI_Iallreduce");
  if (first == INT_MAX) return;
  std::array<char, 512> words{};
  std::memcpy(words.data(), refusal.data(), std::min(refusal.size(), words.size() - 1));
  MPI_Request telling = MPI_REQUEST_NULL;
  HALOFLOW_MPI(MPI_Ibcast(words.data(), static_cast<int>(words.size()), MPI_CHAR, first,
                          communicator, &telling),
               s.context);
  if (!complete_within(telling, s.timeout, s.context)) throw silent("MPI_Ibcast");
  words.back() = '\0';
  s.refused_together = true;
  throw Error(fmt::format("{}: {}; use mpi or auto", s.context, words.data()));
}

// Where this rank's peer routes' halos go in its own mailbox: back to back in message order, a
// flag each, numbered alike. Sets `slot_elements` to their sum.
std::vector<PeerSlot> own_slots(const std::vector<PeerMessage>& messages,
                                const std::vector<bool>& peer, std::int64_t& slot_elements) {
  std::vector<PeerSlot> slots(messages.size());
  std::int32_t flag = 0;
  slot_elements = 0;
  for (std::size_t m = 0; m < messages.size(); ++m) {
    if (!peer[m]) continue;
    slots[m] = {.flag = flag++, .offset = slot_elements};
    slot_elements += messages[m].elements;
  }
  for (PeerSlot& slot : slots) slot.slot_elements = slot_elements;
  return slots;
}

}  // namespace

namespace {

// Allocates this rank's mailbox of `bytes` (zeroed) and says where it is in `mine`; returns why it
// cannot be shared, or nothing. A platform without CUDA IPC (MIG, some containers) must not stop
// the exchange: the set-up goes on, telling the neighbours, so that both ends of each route decide
// alike.
std::string allocate_mailbox(PeerMailbox::State& s, MPI_Aint bytes, PeerAddress& mine) {
  if (s.backend == Backend::cpu) {
    void* base = nullptr;
    HALOFLOW_MPI(MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, s.node, &base, &s.window),
                 s.context);
    s.mailbox = static_cast<std::byte*>(base);
    std::memset(s.mailbox, 0, static_cast<std::size_t>(bytes));
    return {};
  }
  try {
    s.device_mailbox = Buffer(Memory::device, static_cast<std::size_t>(bytes),
                              s.context + " peer mailbox", s.backend);
    const std::vector<std::byte> zeros(static_cast<std::size_t>(bytes));
    s.device_mailbox.upload(zeros.data(), zeros.size());
    s.mailbox = static_cast<std::byte*>(s.device_mailbox.data());
    mine.ipc = ipc_handle_of(s.mailbox, s.context + " peer mailbox");
    mine.device = current_device_address(s.context);
    return {};
  } catch (const std::exception& error) {
    mine.usable = 0;
    return fmt::format("this rank's mailbox cannot be shared: {}", error.what());
  }
}

// The first two rounds and the choice: per message, whether its route goes peer to peer, with
// s.routes filled in and `bases[m]` the neighbour's mailbox for those that do. A refusal (peer
// required) is thrown on every rank alike.
std::vector<bool> decide_routes(PeerMailbox::State& s, MPI_Comm communicator, int rank,
                                const std::vector<PeerMessage>& messages,
                                const std::vector<int>& on_node, const PeerAddress& mine,
                                const std::string& unusable, PeerMailbox::Want want,
                                std::vector<std::byte*>& bases) {
  // First round: the mailboxes. Then each end's view of each route, and second round: the views,
  // so that both ends of a route decide from the same two (choose_route is symmetric).
  const std::vector<bool> every(messages.size(), true);
  std::vector<PeerAddress> told(messages.size());
  tell_neighbours(messages, every, std::vector<PeerAddress>(messages.size(), mine), told,
                  communicator, s.timeout, s.context);
  std::vector<RouteEndMessage> here(messages.size());
  for (std::size_t m = 0; m < messages.size(); ++m) {
    here[m] = to_message(
        end_and_mailbox(s, messages[m], rank, told[m], mine, on_node[m], unusable, want, bases[m]));
  }
  std::vector<RouteEndMessage> there(messages.size());
  tell_neighbours(messages, every, here, there, communicator, s.timeout, s.context);
  std::vector<bool> peer(messages.size(), false);
  std::string refusal;
  for (std::size_t m = 0; m < messages.size(); ++m) {
    RouteChoice choice =
        choose_route(from_message(here[m]), from_message(there[m]), messages[m].peer, want);
    peer[m] = choice.peer;
    if (choice.refused && refusal.empty()) {
      refusal = fmt::format("the peer transport cannot carry the {} halo of rank {} to rank {}: {}",
                            messages[m].direction, rank, messages[m].peer, choice.reason);
    }
    s.routes.push_back({.peer = messages[m].peer,
                        .direction = messages[m].direction,
                        .peer_transport = choice.peer,
                        .reason = std::move(choice.reason)});
  }
  if (want == PeerMailbox::Want::required) refuse_together(s, communicator, rank, refusal);
  return peer;
}

// Third round, over the peer routes only (both ends agree which): where each route's halos go,
// as s.targets (empty for a route by MPI) and s.slot_elements.
void learn_targets(PeerMailbox::State& s, MPI_Comm communicator,
                   const std::vector<PeerMessage>& messages, const std::vector<bool>& peer,
                   const std::vector<std::byte*>& bases, std::size_t element_size) {
  std::vector<PeerSlot> slots(messages.size());
  tell_neighbours(messages, peer, own_slots(messages, peer, s.slot_elements), slots, communicator,
                  s.timeout, s.context);
  for (std::size_t m = 0; m < messages.size(); ++m) {
    if (!peer[m]) {
      s.targets.push_back({});
      continue;
    }
    std::byte* const base = bases[m];
    s.targets.push_back(
        {.slot = base + kPeerSlotsOffset + static_cast<std::size_t>(slots[m].offset) * element_size,
         .slot_elements = slots[m].slot_elements,
         .flag = reinterpret_cast<std::uint64_t*>(base + static_cast<std::size_t>(slots[m].flag) *
                                                             kPeerFlagBytes)});
  }
}

}  // namespace

PeerMailbox::PeerMailbox(MPI_Comm communicator, Backend backend, std::vector<PeerMessage> messages,
                         std::size_t element_size, Want want, std::chrono::duration<double> timeout,
                         std::string context)
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

  // This rank's mailbox: the flags, then two slots, each large enough for the halos from every
  // neighbour on this node (which of those routes go peer is decided with the neighbours, and
  // needs the mailbox's handle; routes to other nodes never do).
  std::int64_t most_elements = 0;
  for (std::size_t m = 0; m < messages.size(); ++m) {
    if (on_node[m] != MPI_UNDEFINED) most_elements += messages[m].elements;
  }
  const auto bytes = static_cast<MPI_Aint>(kPeerSlotsOffset) +
                     static_cast<MPI_Aint>(2 * most_elements) * static_cast<MPI_Aint>(element_size);
  PeerAddress mine;
  const std::string unusable = allocate_mailbox(s, bytes, mine);

  // A refusal thrown below reaches every rank, whose State then frees the window together.
  std::vector<std::byte*> bases(messages.size(), nullptr);
  const std::vector<bool> peer =
      decide_routes(s, communicator, rank, messages, on_node, mine, unusable, want, bases);
  learn_targets(s, communicator, messages, peer, bases, element_size);
  s.in_use = std::ranges::find(peer, true) != peer.end();
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
std::int64_t PeerMailbox::slot_elements() const {
  return state_->slot_elements;
}
std::uint64_t* PeerMailbox::flags() const {
  return reinterpret_cast<std::uint64_t*>(state_->mailbox);
}

}  // namespace haloflow::detail
