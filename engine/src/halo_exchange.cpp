#include "haloflow/halo_exchange.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <thread>

#include "gpu_ports.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "peer_mailbox.hpp"
#include "peer_protocol.hpp"

namespace haloflow {

std::string direction_name(Coord3 direction) {
  std::string name;
  constexpr char axes[] = {'x', 'y', 'z'};
  for (int axis = 0; axis < 3; ++axis) {
    if (direction[axis] != 0) {
      name += direction[axis] > 0 ? '+' : '-';
      name += axes[axis];
    }
  }
  return name.empty() ? "none" : name;
}

std::string_view to_string(Transport transport) {
  switch (transport) {
    case Transport::automatic:
      return "auto";
    case Transport::mpi:
      return "mpi";
    case Transport::nccl:
      return "nccl";
    case Transport::peer:
      return "peer";
  }
  return "unknown";
}

bool nccl_available() {
  return detail::nccl_built();
}

std::string nccl_description() {
  return detail::nccl_description();
}

std::optional<Transport> transport_from_string(std::string_view text) {
  for (const Transport each :
       {Transport::automatic, Transport::mpi, Transport::nccl, Transport::peer}) {
    if (text == to_string(each)) return each;
  }
  return std::nullopt;
}

namespace {
constexpr int kDirections = 27;  // direction codes 0..26 (see make_halo_plan)

//! A message to another rank, placed in the compact buffers of the way it travels.
struct RemoteMessage {
  const HaloMessage* message = nullptr;
  std::int64_t send_offset = 0;     //!< elements into the send buffers
  std::int64_t receive_offset = 0;  //!< elements into the receive buffers
};

//! The messages to other ranks that travel one way (host-staged or nccl; or peer to peer), back
//! to back in plan order in that way's buffers (for peer: the receivers' slots).
struct RemotePart {
  std::vector<RemoteMessage> messages;
  std::int64_t send_elements = 0;
  std::int64_t receive_elements = 0;

  void add(const HaloMessage& message) {
    messages.push_back({&message, send_elements, receive_elements});
    send_elements += message.elements;
    receive_elements += message.elements;
  }
  [[nodiscard]] bool empty() const { return messages.empty(); }
  [[nodiscard]] std::size_t send_count() const { return static_cast<std::size_t>(send_elements); }
  [[nodiscard]] std::size_t receive_count() const {
    return static_cast<std::size_t>(receive_elements);
  }
};

//! Whether `message` (one a rank sends itself) is a face message along an axis the caller's
//! kernels fill (ExchangeOptions::self_left_to_kernels).
bool left_to_kernels(const HaloMessage& message, const ExchangeOptions& options) {
  int moving = 0;
  bool marked = false;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (message.direction[axis] == 0) continue;
    ++moving;
    marked = options.self_left_to_kernels[axis];
  }
  return moving == 1 && marked;
}

//! The self copy's grid: the pack's few blocks (options.blocks) where that is enough, else a
//! thread per element (up to 16384 blocks; the grid strides over the rest). Kernels that read the
//! self-copied ghosts wait for it (split_update with remote_axes), so it runs with the GPU to
//! itself, and its loads are scattered (an x face reads a cache line per cell): the more of them
//! in flight the better. For the six faces of a 512^3 box (1.6 M cells) the pack's 264 blocks
//! would leave 23 elements to each thread, one after the other.
LaunchShape self_copy_launch(std::int64_t elements, const ExchangeOptions& options) {
  constexpr std::int64_t kMostBlocks = 16384;
  const std::int64_t per_block = options.block_size;
  const std::int64_t wanted = std::min((elements + per_block - 1) / per_block, kMostBlocks);
  return LaunchShape::fixed(static_cast<unsigned>(std::max<std::int64_t>(wanted, options.blocks)),
                            options.block_size);
}

}  // namespace

template <class T>
struct HaloExchange<T>::State {
  HaloPlan plan;
  ExchangeOptions options;
  Backend backend = Backend::cpu;
  MPI_Comm communicator = MPI_COMM_NULL;
  int rank = 0;
  Transport transport = Transport::mpi;
  Staging staging = Staging::copies;
  std::vector<const HaloMessage*> remote;  // to and from other ranks, in plan order
  // The remote messages by how they travel: host-staged (mpi) or nccl, and peer to peer. An
  // exchange may have both: the peer transport's routes within a node, mpi across nodes.
  RemotePart staged;
  RemotePart stored;
  std::vector<std::vector<T*>> field_sets;  // as given: what use_field_set puts inline
  // Per field set, the pointers in device memory: only when they do not fit in FieldTable.
  std::vector<Buffer> pointer_tables;
  // The kernels' segment lists as passed; each one's device table only when it does not fit.
  HaloSegments send_list;     // staged: the pack
  HaloSegments receive_list;  // staged: the unpack
  HaloCopySegments self_list;
  Buffer send_segments;
  Buffer receive_segments;
  Buffer self_runs;
  int self_run_count = 0;
  std::int64_t self_elements = 0;
  std::vector<HaloCopySegment> self_segments;  // the runs, on the host: the self copy's accesses
  Buffer device_send;                          // copies staging only
  Buffer device_receive;
  Buffer host_send;
  Buffer host_receive;
  std::vector<MPI_Request> requests;  // receives first, then sends, as posted
  std::string context;                // "rank 3, exchange 'halo'": the start of every message
  std::string failure;                // set when an exchange failed: every later one refuses
  std::shared_ptr<detail::NcclChannel> nccl;  // the nccl transport; shared with its plan nodes
  std::vector<HaloRoute> routes;              // per remote message: how, and why
  // The peer transport: the mailboxes, the send kernel's segments (each with its target), the
  // send kernel's counters (device memory; the receive kernel reads the first) and the receive
  // kernel's failure words (host-mapped, read by check_peer).
  std::unique_ptr<detail::PeerMailbox> peer;
  detail::PeerSegments peer_send_list;
  Buffer peer_send_segments;
  HaloSegments peer_receive_list;
  Buffer peer_receive_segments;
  Buffer peer_counters;
  Buffer peer_failure;

  void set_up_peer(MPI_Comm duplicate, std::size_t element_size);
  [[nodiscard]] std::vector<detail::PeerTarget> stored_targets() const;  // per stored message
  [[nodiscard]] detail::PeerSend peer_send() const;
  [[nodiscard]] detail::PeerReceive<T> peer_receive() const;
  void check_peer();
  // An address that stands for "this rank's halos are sent" in accesses: the receive follows
  // the send, so that a rank never waits for its neighbours before it has sent them theirs.
  [[nodiscard]] const void* sent_token() const { return &peer; }

  void post();
  void finish();
  [[nodiscard]] int tag(int direction_code) const {
    return options.exchange_id * kDirections + direction_code;
  }

  [[nodiscard]] FieldTable<T> table(std::size_t set) const {
    const Index3 extent = plan.layout.extent();
    FieldTable<T> view{.stride_y = extent[0], .stride_z = extent[0] * extent[1]};
    if (pointer_tables.empty()) {
      std::ranges::copy(field_sets.at(set), view.fields);
    } else {
      view.table = pointer_tables.at(set).template as<T* const>();
    }
    return view;
  }
  [[nodiscard]] HaloBuffer<T> send_buffer() const {
    const bool mapped = staging == Staging::mapped;
    return {(mapped ? host_send : device_send).template as<T>(),
            mapped && backend == Backend::cuda};
  }
  [[nodiscard]] HaloBuffer<T> receive_buffer() const {
    const bool mapped = staging == Staging::mapped;
    return {(mapped ? host_receive : device_receive).template as<T>(),
            mapped && backend == Backend::cuda};
  }
  // The nodes' accesses for field set `set`: the cells each reads and writes of each field and
  // buffer, so that a plan derives (or checks) the chain's edges and the caller's.
  [[nodiscard]] std::vector<Access> field_accesses(const RemotePart& part, std::size_t set,
                                                   bool sending) const {
    std::vector<Access> accesses;
    for (const RemoteMessage& r : part.messages) {
      const Box& box = sending ? r.message->send : r.message->receive;
      for (const T* field : field_sets.at(set)) {
        accesses.push_back(sending ? reads(field, box) : writes(field, box));
      }
    }
    return accesses;
  }
  [[nodiscard]] std::vector<Access> self_accesses(std::size_t set, bool reading) const {
    std::vector<Access> accesses;
    for (const HaloCopySegment& run : self_segments) {
      const std::int64_t* corner = reading ? run.from : run.to;
      const Box box{
          .lo = {corner[0], corner[1], corner[2]},
          .hi = {corner[0] + run.extent[0], corner[1] + run.extent[1], corner[2] + run.extent[2]}};
      const T* field = field_sets.at(set).at(static_cast<std::size_t>(run.field));
      accesses.push_back(reading ? reads(field, box) : writes(field, box));
    }
    return accesses;
  }
  // An address that stands for "the self copy is done" in accesses (nothing is stored there).
  [[nodiscard]] const void* done_token() const { return &self_run_count; }
};

namespace {

// One segment per field per message, in buffer order: a message's elements are field 0's box,
// then field 1's, ...
std::vector<HaloSegment> segments_of(const std::vector<RemoteMessage>& remote, int fields,
                                     bool sending) {
  std::vector<HaloSegment> segments;
  for (const RemoteMessage& r : remote) {
    const Box& box = sending ? r.message->send : r.message->receive;
    const std::int64_t start = sending ? r.send_offset : r.receive_offset;
    for (int field = 0; field < fields; ++field) {
      HaloSegment segment;
      segment.buffer_offset = start + field * box.volume();
      for (int axis = 0; axis < 3; ++axis) {
        segment.lower[axis] = box.lo[axis];
        segment.extent[axis] = box.hi[axis] - box.lo[axis];
      }
      segment.field = field;
      segments.push_back(segment);
    }
  }
  return segments;
}

//! The send segments with where each goes in its receiver's slot 0: segment i is field i % fields
//! of message i / fields, whose receiver said where the message's first element goes.
std::vector<detail::PeerSegment> peer_segments_of(const std::vector<HaloSegment>& send,
                                                  const std::vector<RemoteMessage>& remote,
                                                  int fields,
                                                  const std::vector<detail::PeerTarget>& targets,
                                                  std::size_t element_size) {
  std::vector<detail::PeerSegment> segments;
  for (std::size_t i = 0; i < send.size(); ++i) {
    const std::size_t message = i / static_cast<std::size_t>(fields);
    const HaloSegment& from = send[i];
    detail::PeerSegment segment{.buffer_offset = from.buffer_offset, .field = from.field};
    std::ranges::copy(from.lower, segment.lower);
    std::ranges::copy(from.extent, segment.extent);
    const auto into_message = from.buffer_offset - remote[message].send_offset;
    segment.target = targets[message].slot + static_cast<std::size_t>(into_message) * element_size;
    segment.slot_elements = targets[message].slot_elements;
    segments.push_back(segment);
  }
  return segments;
}

//! The runs of a rank's exchange with itself: what message m sends to this rank arrives as the
//! message from the opposite direction, so m's send box is copied into that one's receive box.
std::vector<HaloCopySegment> self_runs_of(const HaloPlan& plan,
                                          const std::vector<const HaloMessage*>& self) {
  std::vector<HaloCopySegment> runs;
  std::int64_t offset = 0;
  for (const HaloMessage* sent : self) {
    const auto opposite = std::find_if(self.begin(), self.end(), [&](const HaloMessage* other) {
      return other->receive_tag == sent->send_tag;
    });
    if (opposite == self.end()) {
      throw Error(
          fmt::format("halo plan: the {} message a rank sends itself has no matching "
                      "receive",
                      direction_name(sent->direction)));
    }
    const Box& from = sent->send;
    const Box& to = (*opposite)->receive;
    for (int field = 0; field < plan.layout.fields; ++field) {
      HaloCopySegment run;
      run.offset = offset;
      for (int axis = 0; axis < 3; ++axis) {
        run.from[axis] = from.lo[axis];
        run.to[axis] = to.lo[axis];
        run.extent[axis] = from.hi[axis] - from.lo[axis];
      }
      run.field = field;
      runs.push_back(run);
      offset += from.volume();
    }
  }
  return runs;
}

template <class Item>
Buffer device_copy_of(const std::vector<Item>& items, std::string name, Backend backend) {
  Buffer buffer(Memory::device, items.size() * sizeof(Item), std::move(name), backend);
  if (!items.empty()) buffer.upload(items.data(), buffer.bytes());
  return buffer;
}

//! The kernels' view of `segments`: inline when they fit (and `inline_tables`), else a device
//! table, which is then stored in `table`.
template <class Segment>
HaloSegmentList<Segment> list_of(const std::vector<Segment>& segments, bool inline_tables,
                                 Buffer& table, std::string name, Backend backend) {
  HaloSegmentList<Segment> list;
  list.count = static_cast<int>(segments.size());
  if (inline_tables && segments.size() <= static_cast<std::size_t>(kInlineHaloSegments)) {
    std::ranges::copy(segments, list.items);
  } else {
    table = device_copy_of(segments, std::move(name), backend);
    list.table = table.template as<const Segment>();
  }
  return list;
}

int message_bytes(const HaloMessage& message, std::size_t element_size, std::string_view context) {
  const auto bytes = message.elements * static_cast<std::int64_t>(element_size);
  if (bytes > INT_MAX) {
    throw Error(fmt::format("{}: a {} message of {} elements is over MPI's count limit", context,
                            direction_name(message.direction), message.elements));
  }
  return static_cast<int>(bytes);
}

void check_thread_level(const std::string& name) {
  int initialised = 0;
  HALOFLOW_MPI(MPI_Initialized(&initialised), "checking MPI before an exchange");
  if (initialised == 0) {
    throw Error(
        fmt::format("exchange '{}': MPI is not initialised; call MPI_Init_thread asking "
                    "for MPI_THREAD_MULTIPLE (or use haloflow::MpiSession) first",
                    name));
  }
  int provided = MPI_THREAD_SINGLE;
  HALOFLOW_MPI(MPI_Query_thread(&provided), "checking MPI's thread level");
  if (provided < MPI_THREAD_MULTIPLE) {
    throw Error(
        fmt::format("exchange '{}': MPI was initialised with thread level {}; the graph "
                    "executor calls MPI from another thread (haloflow's progress thread or a "
                    "CUDA driver thread) while the caller's may call MPI too, which needs "
                    "MPI_THREAD_MULTIPLE ({})",
                    name, provided, MPI_THREAD_MULTIPLE));
  }
}

}  // namespace

template <class T>
HaloExchange<T>::HaloExchange(HaloPlan plan, MPI_Comm communicator,
                              std::vector<std::vector<T*>> field_sets, Backend backend,
                              ExchangeOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.plan = std::move(plan);
  s.options = std::move(options);
  s.backend = backend;
  check_thread_level(s.options.name);
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &s.rank), "the exchange's communicator");
  s.context = fmt::format("rank {}, exchange '{}'", s.rank, s.options.name);
  if (field_sets.empty()) throw Error(fmt::format("{}: no field set given", s.context));
  for (std::size_t set = 0; set < field_sets.size(); ++set) {
    if (field_sets[set].size() != static_cast<std::size_t>(s.plan.layout.fields)) {
      throw Error(fmt::format("{}: field set {} has {} fields; the halo plan has {}", s.context,
                              set, field_sets[set].size(), s.plan.layout.fields));
    }
  }
  s.field_sets = std::move(field_sets);
  if (!s.options.inline_tables || s.plan.layout.fields > kInlineHaloFields) {
    for (std::size_t set = 0; set < s.field_sets.size(); ++set) {
      s.pointer_tables.push_back(device_copy_of(
          s.field_sets[set], fmt::format("{} field set {}", s.options.name, set), backend));
    }
  }

  // Messages a rank sends itself are copied on the device; the others travel between ranks.
  std::vector<const HaloMessage*> self;
  for (const HaloMessage& message : s.plan.messages) {
    (void)message_bytes(message, sizeof(T), s.context);
    if (message.peer == s.rank && left_to_kernels(message, s.options)) continue;
    if (message.peer == s.rank && s.options.self_on_device) {
      self.push_back(&message);
      continue;
    }
    s.remote.push_back(&message);
  }
  const auto runs = self_runs_of(s.plan, self);
  s.self_run_count = static_cast<int>(runs.size());
  s.self_segments = runs;
  for (const HaloMessage* message : self) s.self_elements += message->elements;
  s.self_list = list_of(runs, s.options.inline_tables, s.self_runs,
                        s.options.name + " self copy runs", backend);

  // A private communicator: our tags cannot match the caller's messages, and errors come back
  // as codes (reported with context) instead of aborting inside MPI.
  // (Duplicating is collective: bounded like the exchange, so that a rank that never gets here
  // ends the others with a message instead of a hang.)
  MPI_Request duplicating = MPI_REQUEST_NULL;
  HALOFLOW_MPI(MPI_Comm_idup(communicator, &s.communicator, &duplicating), s.context);
  wait_for_collective(duplicating, communicator, "MPI_Comm_idup", s.context, s.options.timeout);
  HALOFLOW_MPI(MPI_Comm_set_errhandler(s.communicator, MPI_ERRORS_RETURN), s.context);
  void* tag_bound = nullptr;
  int found = 0;
  HALOFLOW_MPI(MPI_Comm_get_attr(s.communicator, MPI_TAG_UB, &tag_bound, &found), s.context);
  const int largest_tag = s.tag(kDirections - 1);
  if (found != 0 && largest_tag > *static_cast<int*>(tag_bound)) {
    throw Error(fmt::format("{}: exchange id {} needs tag {}, over this MPI's limit of {}",
                            s.context, s.options.exchange_id, largest_tag,
                            *static_cast<int*>(tag_bound)));
  }

  s.transport = s.options.transport == Transport::nccl && !s.remote.empty() ? Transport::nccl
                                                                            : Transport::mpi;
  if (s.transport == Transport::nccl && !detail::nccl_built()) {
    throw Error(
        fmt::format("{}: the nccl transport is not available: {}; use the mpi transport "
                    "(or auto)",
                    s.context, detail::nccl_description()));
  }
  if (s.transport == Transport::nccl && backend == Backend::cpu) {
    throw Error(
        fmt::format("{}: the nccl transport needs a GPU executor (the host executor runs "
                    "on the CPU); use the mpi transport, or auto",
                    s.context));
  }
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_size(s.communicator, &ranks), s.context);
  std::string reason = "asked for";
  if (s.options.transport == Transport::automatic) {
    reason = backend == Backend::cpu ? "auto: the host executor takes mpi (peer when asked for)"
                                     : "auto: one rank, its halos to itself";
  }
  for (const HaloMessage* message : s.remote) {
    s.routes.push_back({.peer = message->peer,
                        .direction = direction_name(message->direction),
                        .transport = s.transport,
                        .reason = reason});
  }
  if (s.options.transport == Transport::peer ||
      (s.options.transport == Transport::automatic && backend == Backend::cuda && ranks > 1)) {
    s.set_up_peer(s.communicator, sizeof(T));
  }
  // Each remote message by its route's transport, in its way's own compact buffers.
  for (std::size_t m = 0; m < s.remote.size(); ++m) {
    (s.routes[m].transport == Transport::peer ? s.stored : s.staged).add(*s.remote[m]);
  }
  if (!s.stored.empty()) {
    s.transport = Transport::peer;
    if (s.peer->slot_elements() != s.stored.receive_elements) {
      throw Error(
          fmt::format("{}: the peer mailbox holds {} elements a slot, the peer routes "
                      "{}: a bug in haloflow",
                      s.context, s.peer->slot_elements(), s.stored.receive_elements));
    }
  }
  const auto send_bytes = static_cast<std::size_t>(s.staged.send_elements) * sizeof(T);
  const auto receive_bytes = static_cast<std::size_t>(s.staged.receive_elements) * sizeof(T);
  const bool staged_by_mpi = !s.staged.empty() && s.transport != Transport::nccl;
  s.staging = staged_by_mpi ? s.options.staging : Staging::copies;
  if (s.staging == Staging::automatic) {
    // On the host executor every buffer is host memory: copies would only copy.
    s.staging = backend == Backend::cpu || send_bytes <= s.options.mapped_limit ? Staging::mapped
                                                                                : Staging::copies;
  }
  const int fields = s.plan.layout.fields;
  const auto send = segments_of(s.staged.messages, fields, true);
  s.send_list = list_of(send, s.options.inline_tables, s.send_segments,
                        s.options.name + " send segments", backend);
  s.receive_list = list_of(segments_of(s.staged.messages, fields, false), s.options.inline_tables,
                           s.receive_segments, s.options.name + " receive segments", backend);
  if (!s.stored.empty()) {
    s.peer_send_list =
        list_of(peer_segments_of(segments_of(s.stored.messages, fields, true), s.stored.messages,
                                 fields, s.stored_targets(), sizeof(T)),
                s.options.inline_tables, s.peer_send_segments,
                s.options.name + " peer send segments", backend);
    s.peer_receive_list =
        list_of(segments_of(s.stored.messages, fields, false), s.options.inline_tables,
                s.peer_receive_segments, s.options.name + " peer receive segments", backend);
  }
  if (s.staging == Staging::copies && !s.staged.empty()) {
    s.device_send = Buffer(Memory::device, send_bytes, s.options.name + " send (device)", backend);
    s.device_receive =
        Buffer(Memory::device, receive_bytes, s.options.name + " receive (device)", backend);
  }
  if (staged_by_mpi) {
    s.host_send = Buffer(Memory::host, send_bytes, s.options.name + " send (pinned)", backend);
    s.host_receive =
        Buffer(Memory::host, receive_bytes, s.options.name + " receive (pinned)", backend);
  } else if (s.transport == Transport::nccl) {
    std::vector<detail::NcclMessage> messages;
    for (const RemoteMessage& r : s.staged.messages) {
      messages.push_back({.peer = r.message->peer,
                          .send_offset = static_cast<std::size_t>(r.send_offset) * sizeof(T),
                          .receive_offset = static_cast<std::size_t>(r.receive_offset) * sizeof(T),
                          .bytes = static_cast<std::size_t>(r.message->elements) * sizeof(T),
                          .direction = direction_name(r.message->direction),
                          .send_tag = r.message->send_tag,
                          .receive_tag = r.message->receive_tag});
    }
    s.nccl = std::make_shared<detail::NcclChannel>(
        communicator, s.options.nccl_communicator, std::move(messages), s.device_send.data(),
        s.device_receive.data(), s.options.timeout, s.context);
  }
  s.requests.assign(2 * s.staged.messages.size(), MPI_REQUEST_NULL);
}

template <class T>
void HaloExchange<T>::State::set_up_peer(MPI_Comm duplicate, std::size_t element_size) {
  State& s = *this;
  std::vector<detail::PeerMessage> messages;
  for (const HaloMessage* message : s.remote) {
    messages.push_back({.peer = message->peer,
                        .send_tag = s.tag(message->send_tag),
                        .receive_tag = s.tag(message->receive_tag),
                        .elements = message->elements,
                        .direction = direction_name(message->direction)});
  }
  const bool required = s.options.transport == Transport::peer;
  s.peer = std::make_unique<detail::PeerMailbox>(
      duplicate, s.backend, std::move(messages), element_size,
      required ? detail::PeerWant::required : detail::PeerWant::if_possible, s.options.timeout,
      s.context);
  for (std::size_t m = 0; m < s.routes.size(); ++m) {
    const detail::PeerRoute& route = s.peer->routes().at(m);
    s.routes[m].transport = route.peer_transport ? Transport::peer : Transport::mpi;
    s.routes[m].reason = required ? route.reason : "auto: " + route.reason;
  }
  // With no peer route the mailbox stays all the same: a neighbour may have mapped it while the
  // routes were decided, and a shared window is freed collectively, with the other ranks'.
  if (!s.peer->in_use()) return;
  s.peer_counters = Buffer(Memory::device, 3 * sizeof(std::uint64_t),
                           s.options.name + " peer counters", s.backend);
  s.peer_failure = Buffer(Memory::host, 2 * sizeof(std::uint64_t),
                          s.options.name + " peer failure words", s.backend);
  const std::array<std::uint64_t, 3> zeros{};
  s.peer_counters.upload(zeros.data(), s.peer_counters.bytes());
  s.peer_failure.upload(zeros.data(), s.peer_failure.bytes());
}

template <class T>
std::vector<detail::PeerTarget> HaloExchange<T>::State::stored_targets() const {
  std::vector<detail::PeerTarget> targets;
  for (std::size_t m = 0; m < remote.size(); ++m) {
    if (routes[m].transport == Transport::peer) targets.push_back(peer->targets().at(m));
  }
  return targets;
}

template <class T>
detail::PeerSend HaloExchange<T>::State::peer_send() const {
  detail::PeerSend send{.counters = peer_counters.template as<std::uint64_t>(),
                        .messages = static_cast<int>(stored.messages.size())};
  const std::vector<detail::PeerTarget> targets = stored_targets();
  for (std::size_t m = 0; m < targets.size(); ++m) send.flags[m] = targets[m].flag;
  return send;
}

template <class T>
detail::PeerReceive<T> HaloExchange<T>::State::peer_receive() const {
  const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(options.timeout);
  return {.slots = reinterpret_cast<const T*>(peer->slots()),
          .slot_elements = peer->slot_elements(),
          .flags = peer->flags(),
          .messages = static_cast<int>(stored.messages.size()),
          .counters = peer_counters.template as<std::uint64_t>(),
          .timeout_ns = static_cast<std::uint64_t>(std::max<std::int64_t>(timeout.count(), 1)),
          .failure = peer_failure.template as<std::uint64_t>()};
}

template <class T>
void HaloExchange<T>::State::check_peer() {
  if (!failure.empty()) throw Error(fmt::format("{}: {}", context, failure));
  auto* words = peer_failure.template as<std::uint64_t>();
  const std::uint64_t message =
      std::atomic_ref<std::uint64_t>(words[0]).load(std::memory_order_acquire);
  if (message == 0) return;
  if (message == detail::kPeerFailedElsewhere) {
    // Set with `failure` by finish() on this rank's host thread; seen here first only if that
    // thread has not yet published its text.
    throw Error(fmt::format("{}: the exchange failed on its mpi routes", context));
  }
  const HaloMessage& silent = *stored.messages.at(static_cast<std::size_t>(message - 1)).message;
  failure = fmt::format(
      "no halo from rank {} (direction {}) within {} s (frame {} of this exchange); is that rank "
      "alive and "
      "running the same case?",
      silent.peer, direction_name(silent.direction), options.timeout.count(), words[1]);
  throw Error(fmt::format("{}: {}", context, failure));
}

template <class T>
HaloExchange<T>::~HaloExchange() {
  if (!state_ || state_->communicator == MPI_COMM_NULL) return;
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised == 0) MPI_Comm_free(&state_->communicator);
}

template <class T>
HaloExchange<T>::HaloExchange(HaloExchange&&) noexcept = default;
template <class T>
HaloExchange<T>& HaloExchange<T>::operator=(HaloExchange&&) noexcept = default;

template <class T>
ExchangeNodes HaloExchange<T>::add_to(FramePlan& plan, std::vector<std::string> after,
                                      std::size_t field_set) {
  State& s = *state_;
  if (field_set >= s.field_sets.size()) {
    throw Error(fmt::format("{}: field set {} does not exist (it has {})", s.context, field_set,
                            s.field_sets.size()));
  }
  const std::string& prefix = s.options.name;
  ExchangeNodes names{prefix + ".pack", prefix + ".download", prefix + ".exchange",
                      prefix + ".upload", prefix + ".unpack"};
  constexpr Lane comm = Lane::communication;
  if (s.remote.empty() && s.self_run_count == 0) {
    // Nothing to move (no neighbour, or only faces the kernels fill): keep the names so
    // dependencies still resolve.
    plan.add_empty({.name = names.pack, .lane = comm, .after = std::move(after)});
    for (const auto* next : {&names.download, &names.exchange, &names.upload, &names.unpack}) {
      plan.add_empty({.name = *next, .lane = comm, .after = {plan.nodes().back().name()}});
    }
    return names;
  }
  // Names for messages about accesses, unless the caller has named the fields already.
  for (std::size_t f = 0; f < s.field_sets[field_set].size(); ++f) {
    const T* field = s.field_sets[field_set][f];
    if (!plan.names_field(field)) {
      plan.name_field(field, fmt::format("{} field {} of set {}", prefix, f, field_set));
    }
  }
  const auto shape = LaunchShape::fixed(s.options.blocks, s.options.block_size);
  std::string self_copy;
  if (s.self_run_count > 0) {
    self_copy = prefix + ".self";
    std::vector<Access> access = s.self_accesses(field_set, true);
    std::ranges::copy(s.self_accesses(field_set, false), std::back_inserter(access));
    access.push_back(writes(s.done_token(), buffer_cells(1)));
    plan.name_field(s.done_token(), prefix + " (self copy done)");
    plan.add_kernel({.name = self_copy, .lane = comm, .after = after, .access = std::move(access)},
                    halo_self_copy_kernel<T>(), self_copy_launch(s.self_elements, s.options),
                    static_cast<std::size_t>(s.self_elements), s.self_list, s.table(field_set));
    names.self = self_copy;
    if (s.remote.empty()) {
      return {self_copy, self_copy, self_copy, self_copy, self_copy, self_copy};
    }
  }
  if (s.staged.empty()) {
    // Peer to peer only: one kernel, the send then the receive, under every name but the self
    // copy's (the chain is one kernel launch, not two in a row).
    names.pack = names.download = names.upload = names.unpack = names.exchange;
    add_peer_exchange(plan, names.exchange, std::move(after), self_copy, shape, field_set);
    return names;
  }
  // Peer routes beside the staged ones: their stores go first, before anything of this rank can
  // wait for another rank (docs/architecture.md, "The peer transport"), and `pack` follows them,
  // so that after it every send box has been read.
  const bool mixed = !s.stored.empty();
  if (mixed) {
    add_peer_send(plan, prefix + ".peer_send", std::move(after), shape, field_set);
    after = {prefix + ".peer_send"};
  }
  const HaloBuffer<T> send = s.send_buffer();
  const HaloBuffer<T> receive = s.receive_buffer();
  const Box send_cells = buffer_cells(s.staged.send_elements);
  const Box receive_cells = buffer_cells(s.staged.receive_elements);
  plan.name_field(send.data, prefix + " send buffer");
  plan.name_field(receive.data, prefix + " receive buffer");
  std::vector<Access> packed = s.field_accesses(s.staged, field_set, true);
  packed.push_back(writes(send.data, send_cells));
  plan.add_kernel(
      {.name = names.pack, .lane = comm, .after = std::move(after), .access = std::move(packed)},
      halo_pack_kernel<T>(), shape, s.staged.send_count(), s.send_list, s.table(field_set), send);
  if (s.transport == Transport::nccl) {
    // Device to device: the sends and receives are the exchange node, in the frame's graph.
    names.download = names.pack;
    names.upload = names.exchange;
    plan.add_stream_work(
        {.name = names.exchange,
         .lane = comm,
         .after = {names.pack},
         .access = {reads(send.data, send_cells), writes(receive.data, receive_cells)}},
        [nccl = s.nccl](CUstream_st* stream) { nccl->issue(stream); },
        [nccl = s.nccl] { nccl->check(); });
    add_unpack(plan, names, {names.exchange}, self_copy, shape, field_set);
    return names;
  }
  const T* host_send = s.host_send.template as<const T>();
  const T* host_receive = s.host_receive.template as<const T>();
  if (s.staging == Staging::copies) {
    plan.name_field(host_send, prefix + " send buffer (pinned)");
    plan.name_field(host_receive, prefix + " receive buffer (pinned)");
    plan.add_copy({.name = names.download,
                   .lane = comm,
                   .after = {names.pack},
                   .access = {reads(send.data, send_cells), writes(host_send, send_cells)}},
                  s.host_send.view(), s.device_send.view(), s.host_send.bytes());
  } else {
    names.download = names.pack;
  }
  // The state lives on the heap, so the node stays valid when this object is moved.
  plan.add_split_host(
      {.name = names.exchange,
       .lane = comm,
       .after = {names.download},
       .access = {reads(host_send, send_cells), writes(host_receive, receive_cells)}},
      [state = state_.get()] { state->post(); }, [state = state_.get()] { state->finish(); });
  if (s.staging == Staging::copies) {
    plan.add_copy(
        {.name = names.upload,
         .lane = comm,
         .after = {names.exchange},
         .access = {reads(host_receive, receive_cells), writes(receive.data, receive_cells)}},
        s.device_receive.view(), s.host_receive.view(), s.host_receive.bytes());
  } else {
    names.upload = names.exchange;
  }
  std::vector<std::string> unpack_after = {names.upload};
  if (mixed) {
    // The peer routes' receive waits only once this rank's MPI sends are complete (the exchange
    // node has finished), and the unpack, the last node, follows it.
    add_peer_receive(plan, prefix + ".peer_receive", {names.upload}, "", shape, field_set);
    unpack_after = {prefix + ".peer_receive"};
  }
  add_unpack(plan, names, std::move(unpack_after), self_copy, shape, field_set);
  return names;
}

template <class T>
void HaloExchange<T>::add_unpack(FramePlan& plan, const ExchangeNodes& names,
                                 std::vector<std::string> after, const std::string& self_copy,
                                 const LaunchShape& shape, std::size_t field_set) {
  State& s = *state_;
  if (!self_copy.empty()) after.push_back(self_copy);  // the last node joins both
  // The unpack is the exchange's last node (ExchangeNodes): it reads the token the self copy
  // writes, so that it follows the copy by its accesses as by `after`. A token, not the copied
  // ghosts: a kernel that reads those (an interior next to a self-copied face) must not wait for
  // the unpack.
  std::vector<Access> access = s.field_accesses(s.staged, field_set, false);
  if (!self_copy.empty()) access.push_back(reads(s.done_token(), buffer_cells(1)));
  access.push_back(reads(s.receive_buffer().data, buffer_cells(s.staged.receive_elements)));
  plan.add_kernel({.name = names.unpack,
                   .lane = Lane::communication,
                   .after = std::move(after),
                   .access = std::move(access)},
                  halo_unpack_kernel<T>(), shape, s.staged.receive_count(), s.receive_list,
                  s.table(field_set), s.receive_buffer());
}

namespace {
// A block per block_size elements, up to the usual few (`most`): every block of the peer send
// counts itself done with an atomic and every block of the receive waits for the flags, so a
// small halo should not take hundreds of blocks.
LaunchShape peer_blocks(std::int64_t elements, const LaunchShape& most) {
  const std::int64_t wanted = (elements + most.block.x - 1) / most.block.x;
  return LaunchShape::fixed(static_cast<unsigned>(std::clamp<std::int64_t>(wanted, 1, most.grid.x)),
                            most.block.x);
}
}  // namespace

template <class T>
void HaloExchange<T>::add_peer_send(FramePlan& plan, const std::string& name,
                                    std::vector<std::string> after, const LaunchShape& shape,
                                    std::size_t field_set) {
  State& s = *state_;
  plan.name_field(s.sent_token(), s.options.name + " (halos sent)");
  std::vector<Access> sent = s.field_accesses(s.stored, field_set, true);
  sent.push_back(writes(s.sent_token(), buffer_cells(1)));
  plan.add_kernel({.name = name,
                   .lane = Lane::communication,
                   .after = std::move(after),
                   .access = std::move(sent)},
                  detail::peer_send_kernel<T>(), peer_blocks(s.stored.send_elements, shape),
                  s.stored.send_count(), s.peer_send_list, s.table(field_set), s.peer_send());
}

template <class T>
void HaloExchange<T>::add_peer_receive(FramePlan& plan, const std::string& name,
                                       std::vector<std::string> after, const std::string& self_copy,
                                       const LaunchShape& shape, std::size_t field_set) {
  State& s = *state_;
  if (!self_copy.empty()) after.push_back(self_copy);
  std::vector<Access> received = s.field_accesses(s.stored, field_set, false);
  received.push_back(reads(s.sent_token(), buffer_cells(1)));
  if (!self_copy.empty()) received.push_back(reads(s.done_token(), buffer_cells(1)));
  plan.add_kernel({.name = name,
                   .lane = Lane::communication,
                   .after = std::move(after),
                   .access = std::move(received)},
                  detail::peer_receive_kernel<T>(), peer_blocks(s.stored.receive_elements, shape),
                  s.stored.receive_count(), s.peer_receive_list, s.table(field_set),
                  s.peer_receive());
  // The check reports a flag that never came, naming the neighbour (and makes the host executor
  // keep this node in its place among the nodes that wait for other ranks).
  std::get<KernelWork>(plan.node(plan.nodes().size() - 1).work).check = [state = state_.get()] {
    state->check_peer();
  };
}

template <class T>
void HaloExchange<T>::add_peer_exchange(FramePlan& plan, const std::string& name,
                                        std::vector<std::string> after,
                                        const std::string& self_copy, const LaunchShape& shape,
                                        std::size_t field_set) {
  State& s = *state_;
  // The exchange's last node, so it joins the self copy (as the unpack does): its sends then
  // start after the copy, which runs beside nothing else of the exchange, so the chain is as
  // long as the send's and receive's was (the copy, the exchange; the send, the receive).
  if (!self_copy.empty()) after.push_back(self_copy);
  std::vector<Access> access = s.field_accesses(s.stored, field_set, true);
  std::ranges::copy(s.field_accesses(s.stored, field_set, false), std::back_inserter(access));
  if (!self_copy.empty()) access.push_back(reads(s.done_token(), buffer_cells(1)));
  const LaunchShape sends = peer_blocks(s.stored.send_elements, shape);
  const LaunchShape receives = peer_blocks(s.stored.receive_elements, shape);
  plan.add_kernel({.name = name,
                   .lane = Lane::communication,
                   .after = std::move(after),
                   .access = std::move(access)},
                  detail::peer_exchange_kernel<T>(),
                  sends.grid.x >= receives.grid.x ? sends : receives, s.stored.send_count(),
                  s.peer_send_list, s.stored.receive_count(), s.peer_receive_list,
                  s.table(field_set), s.peer_send(), s.peer_receive());
  // As the receive's: a flag that never came is reported naming the neighbour.
  std::get<KernelWork>(plan.node(plan.nodes().size() - 1).work).check = [state = state_.get()] {
    state->check_peer();
  };
}

template <class T>
void HaloExchange<T>::use_field_set(Frame& frame, std::size_t set) {
  State& s = *state_;
  if (set >= s.field_sets.size()) {
    throw Error(fmt::format("{}: field set {} does not exist (it has {})", s.context, set,
                            s.field_sets.size()));
  }
  const std::string& prefix = s.options.name;
  // With inline pointers the new set's pointers are the patched values themselves.
  if (s.self_run_count > 0) {
    frame.update(KernelNode<std::size_t, HaloCopySegments, FieldTable<T>>{0, prefix + ".self"},
                 static_cast<std::size_t>(s.self_elements), s.self_list, s.table(set));
  }
  if (s.remote.empty()) return;
  if (!s.stored.empty()) {
    // The peer kernels' names: the whole chain's (peer only), or their own beside the staged.
    const bool mixed = !s.staged.empty();
    if (!mixed) {
      frame.update(
          KernelNode<std::size_t, detail::PeerSegments, std::size_t, HaloSegments, FieldTable<T>,
                     detail::PeerSend, detail::PeerReceive<T>>{0, prefix + ".exchange"},
          s.stored.send_count(), s.peer_send_list, s.stored.receive_count(), s.peer_receive_list,
          s.table(set), s.peer_send(), s.peer_receive());
      return;
    }
    frame.update(
        KernelNode<std::size_t, detail::PeerSegments, FieldTable<T>, detail::PeerSend>{
            0, prefix + ".peer_send"},
        s.stored.send_count(), s.peer_send_list, s.table(set), s.peer_send());
    frame.update(
        KernelNode<std::size_t, HaloSegments, FieldTable<T>, detail::PeerReceive<T>>{
            0, prefix + ".peer_receive"},
        s.stored.receive_count(), s.peer_receive_list, s.table(set), s.peer_receive());
  }
  using BufferNode = KernelNode<std::size_t, HaloSegments, FieldTable<T>, HaloBuffer<T>>;
  frame.update(BufferNode{0, prefix + ".pack"}, s.staged.send_count(), s.send_list, s.table(set),
               s.send_buffer());
  frame.update(BufferNode{0, prefix + ".unpack"}, s.staged.receive_count(), s.receive_list,
               s.table(set), s.receive_buffer());
}

template <class T>
void HaloExchange<T>::post() {
  state_->post();
}

template <class T>
void HaloExchange<T>::finish() {
  state_->finish();
}

template <class T>
void HaloExchange<T>::State::post() {
  State& s = *this;
  // Mixed exchanges post and finish their mpi routes here; their peer routes travel in the frame.
  if (s.transport == Transport::nccl || (s.transport == Transport::peer && s.staged.empty())) {
    throw Error(
        fmt::format("{}: this exchange uses the {} transport; its messages travel in "
                    "the frame (its nodes), not through post and finish",
                    s.context, to_string(s.transport)));
  }
  if (!s.failure.empty()) {
    throw Error(fmt::format("{}: not exchanged, since an earlier exchange failed: {}", s.context,
                            s.failure));
  }
  const std::vector<RemoteMessage>& by_mpi = s.staged.messages;
  const std::size_t count = by_mpi.size();
  // Every receive before any send: no message arrives unexpected, and no rank waits on a send.
  for (std::size_t m = 0; m < count; ++m) {
    const HaloMessage& message = *by_mpi[m].message;
    HALOFLOW_MPI(MPI_Irecv(s.host_receive.template as<T>() + by_mpi[m].receive_offset,
                           static_cast<int>(message.elements * sizeof(T)), MPI_BYTE, message.peer,
                           s.tag(message.receive_tag), s.communicator, &s.requests[m]),
                 s.context);
  }
  for (std::size_t m = 0; m < count; ++m) {
    const HaloMessage& message = *by_mpi[m].message;
    HALOFLOW_MPI(MPI_Isend(s.host_send.template as<T>() + by_mpi[m].send_offset,
                           static_cast<int>(message.elements * sizeof(T)), MPI_BYTE, message.peer,
                           s.tag(message.send_tag), s.communicator, &s.requests[count + m]),
                 s.context);
  }
}

template <class T>
void HaloExchange<T>::State::finish() {
  State& s = *this;
  if (s.requests.empty()) return;
  const auto deadline = std::chrono::steady_clock::now() + s.options.timeout;
  std::vector<int> finished(s.requests.size());
  for (;;) {
    int done = 0;
    HALOFLOW_MPI(MPI_Testsome(static_cast<int>(s.requests.size()), s.requests.data(), &done,
                              finished.data(), MPI_STATUSES_IGNORE),
                 s.context);
    if (done == MPI_UNDEFINED) return;  // every request completed (and was freed)
    if (std::chrono::steady_clock::now() > deadline) break;
    if (done == 0) std::this_thread::yield();
  }
  // Name every rank whose halo did not come (a rank that waits on a stalled neighbour stalls its
  // own neighbours too, and one of them may time out first: the list then still names the rank
  // that went silent), or else the first send not taken; then drop every request so MPI can shut
  // down cleanly.
  const std::size_t count = s.staged.messages.size();
  std::vector<std::string> missing;
  std::vector<int> named;
  std::string not_taken;
  for (std::size_t r = 0; r < s.requests.size(); ++r) {
    if (s.requests[r] == MPI_REQUEST_NULL) continue;
    const HaloMessage& message = *s.staged.messages[r % count].message;
    if (r < count && std::ranges::find(named, message.peer) == named.end()) {
      named.push_back(message.peer);
      missing.push_back(fmt::format("no halo arrived from rank {} (direction {})", message.peer,
                                    direction_name(message.direction)));
    } else if (r >= count && not_taken.empty()) {
      not_taken = fmt::format("the halo sent to rank {} (direction {}) was not taken", message.peer,
                              direction_name(message.direction));
    }
  }
  const std::string what =
      missing.empty() ? not_taken : fmt::format("{}", fmt::join(missing, "; "));
  for (std::size_t r = 0; r < s.requests.size(); ++r) {
    if (s.requests[r] == MPI_REQUEST_NULL) continue;
    if (r < count) MPI_Cancel(&s.requests[r]);
    MPI_Request_free(&s.requests[r]);
  }
  s.failure = fmt::format("{} within {} s; is {} alive and running the same case?", what,
                          s.options.timeout.count(), named.size() > 1 ? "each" : "that rank");
  // The peer routes' receives of the frames queued behind this one must not wait a whole deadline
  // each for flags that now cannot come (their senders wait in their own exchanges): the failure
  // word, which every waiting block looks at, says the exchange failed. Without it a rank whose
  // mpi route went silent reported only after its next frame's peer receive timed out too, and a
  // neighbour that waited on this rank, not on the silent one, ended the job first, naming this
  // rank (silent_peer_graph_peer_nodes).
  if (s.peer && s.peer->in_use()) {
    std::atomic_ref<std::uint64_t>(s.peer_failure.template as<std::uint64_t>()[0])
        .store(detail::kPeerFailedElsewhere, std::memory_order_release);
  }
  throw Error(fmt::format("{}: {}", s.context, s.failure));
}

template <class T>
void HaloExchange<T>::run() {
  post();
  finish();
}

template <class T>
const HaloPlan& HaloExchange<T>::plan() const {
  return state_->plan;
}
template <class T>
const ExchangeOptions& HaloExchange<T>::options() const {
  return state_->options;
}
template <class T>
std::size_t HaloExchange<T>::field_sets() const {
  return state_->field_sets.size();
}
template <class T>
bool HaloExchange<T>::tables_inline() const {
  const State& s = *state_;
  // A list no kernel is added for (no messages that travel so, or no self runs) is read by nobody.
  const bool staged_inline =
      s.staged.empty() || (s.send_list.table == nullptr && s.receive_list.table == nullptr);
  const bool stored_inline = s.stored.empty() || (s.peer_send_list.table == nullptr &&
                                                  s.peer_receive_list.table == nullptr);
  const bool remote_inline = staged_inline && stored_inline;
  const bool self_inline = s.self_run_count == 0 || s.self_list.table == nullptr;
  const bool kernels = !s.remote.empty() || s.self_run_count > 0;
  return !kernels || (s.pointer_tables.empty() && remote_inline && self_inline);
}
template <class T>
Transport HaloExchange<T>::transport() const {
  return state_->transport;
}
template <class T>
const std::vector<HaloRoute>& HaloExchange<T>::routes() const {
  return state_->routes;
}
template <class T>
Staging HaloExchange<T>::staging() const {
  return state_->staging;
}
template <class T>
std::size_t HaloExchange<T>::remote_messages() const {
  return state_->remote.size();
}
template <class T>
std::array<bool, 3> HaloExchange<T>::remote_axes() const {
  std::array<bool, 3> axes{false, false, false};
  const auto axes_of = [](const HaloMessage& m) {
    std::vector<std::size_t> moving;
    for (std::size_t axis = 0; axis < 3; ++axis) {
      if (m.direction[axis] != 0) moving.push_back(axis);
    }
    return moving;
  };
  // Faces first: a diagonal message's ghosts are read only by cells near all of its axes' faces,
  // so cutting along any one of them already keeps the interior clear of it.
  for (const bool faces : {true, false}) {
    for (const HaloMessage* message : state_->remote) {
      const auto moving = axes_of(*message);
      if ((moving.size() == 1) != faces) continue;
      if (std::ranges::any_of(moving, [&](std::size_t axis) { return axes[axis]; })) continue;
      for (const std::size_t axis : moving) axes[axis] = true;
    }
  }
  return axes;
}
template <class T>
Buffer& HaloExchange<T>::host_send() {
  return state_->host_send;
}
template <class T>
Buffer& HaloExchange<T>::host_receive() {
  return state_->host_receive;
}

template class HaloExchange<float>;
template class HaloExchange<double>;

}  // namespace haloflow
