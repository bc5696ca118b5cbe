#include "haloflow/halo_exchange.hpp"

#include <fmt/format.h>

#include <climits>
#include <thread>

#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

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
  }
  return "unknown";
}

std::optional<Transport> transport_from_string(std::string_view text) {
  for (const Transport each : {Transport::automatic, Transport::mpi, Transport::nccl}) {
    if (text == to_string(each)) return each;
  }
  return std::nullopt;
}

namespace {
constexpr int kDirections = 27;  // direction codes 0..26 (see make_halo_plan)
}  // namespace

template <class T>
struct HaloExchange<T>::State {
  HaloPlan plan;
  ExchangeOptions options;
  MPI_Comm communicator = MPI_COMM_NULL;
  int rank = 0;
  std::vector<Buffer> pointer_tables;  // per field set: the fields' device pointers
  Buffer send_segments;
  Buffer receive_segments;
  int send_segment_count = 0;
  int receive_segment_count = 0;
  Buffer device_send;
  Buffer device_receive;
  Buffer host_send;
  Buffer host_receive;
  std::vector<MPI_Request> requests;  // receives first, then sends, as posted
  std::string context;                // "rank 3, exchange 'halo'": the start of every message

  void post();
  void finish();
  [[nodiscard]] int tag(int direction_code) const {
    return options.exchange_id * kDirections + direction_code;
  }

  [[nodiscard]] FieldTable<T> table(std::size_t set) const {
    const Index3 extent = plan.layout.extent();
    return FieldTable<T>{pointer_tables.at(set).template as<T* const>(), extent[0],
                         extent[0] * extent[1]};
  }
};

namespace {

// One segment per field per message, in buffer order: message m's elements are field 0's box,
// then field 1's, ...
std::vector<HaloSegment> segments_of(const HaloPlan& plan, bool sending) {
  std::vector<HaloSegment> segments;
  for (const auto& message : plan.messages) {
    const Box& box = sending ? message.send : message.receive;
    const std::int64_t start = sending ? message.send_offset : message.receive_offset;
    for (int field = 0; field < plan.layout.fields; ++field) {
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

template <class Item>
Buffer device_copy_of(const std::vector<Item>& items, std::string name, Backend backend) {
  Buffer buffer(Memory::device, items.size() * sizeof(Item), std::move(name), backend);
  if (!items.empty()) buffer.upload(items.data(), buffer.bytes());
  return buffer;
}

int message_bytes(const HaloMessage& message, std::size_t element_size, std::string_view context) {
  const auto bytes = message.elements * static_cast<std::int64_t>(element_size);
  if (bytes > INT_MAX) {
    throw Error(fmt::format("{}: a {} message of {} elements is over MPI's count limit", context,
                            direction_name(message.direction), message.elements));
  }
  return static_cast<int>(bytes);
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
  int initialised = 0;
  HALOFLOW_MPI(MPI_Initialized(&initialised), "checking MPI before an exchange");
  if (initialised == 0) {
    throw Error(
        fmt::format("exchange '{}': MPI is not initialised; call MPI_Init_thread asking "
                    "for MPI_THREAD_MULTIPLE (or use haloflow::MpiSession) first",
                    s.options.name));
  }
  int provided = MPI_THREAD_SINGLE;
  HALOFLOW_MPI(MPI_Query_thread(&provided), "checking MPI's thread level");
  if (provided < MPI_THREAD_MULTIPLE) {
    throw Error(
        fmt::format("exchange '{}': MPI was initialised with thread level {}; the graph "
                    "executor calls MPI from a CUDA driver thread, which needs "
                    "MPI_THREAD_MULTIPLE ({})",
                    s.options.name, provided, MPI_THREAD_MULTIPLE));
  }
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &s.rank), "the exchange's communicator");
  s.context = fmt::format("rank {}, exchange '{}'", s.rank, s.options.name);
  if (field_sets.empty()) throw Error(fmt::format("{}: no field set given", s.context));
  for (std::size_t set = 0; set < field_sets.size(); ++set) {
    if (field_sets[set].size() != static_cast<std::size_t>(s.plan.layout.fields)) {
      throw Error(fmt::format("{}: field set {} has {} fields; the halo plan has {}", s.context,
                              set, field_sets[set].size(), s.plan.layout.fields));
    }
    s.pointer_tables.push_back(device_copy_of(
        field_sets[set], fmt::format("{} field set {}", s.options.name, set), backend));
  }
  const auto send = segments_of(s.plan, true);
  const auto receive = segments_of(s.plan, false);
  s.send_segment_count = static_cast<int>(send.size());
  s.receive_segment_count = static_cast<int>(receive.size());
  s.send_segments = device_copy_of(send, s.options.name + " send segments", backend);
  s.receive_segments = device_copy_of(receive, s.options.name + " receive segments", backend);
  const auto send_bytes = static_cast<std::size_t>(s.plan.send_elements) * sizeof(T);
  const auto receive_bytes = static_cast<std::size_t>(s.plan.receive_elements) * sizeof(T);
  s.device_send = Buffer(Memory::device, send_bytes, s.options.name + " send (device)", backend);
  s.device_receive =
      Buffer(Memory::device, receive_bytes, s.options.name + " receive (device)", backend);
  s.host_send = Buffer(Memory::host, send_bytes, s.options.name + " send (pinned)", backend);
  s.host_receive =
      Buffer(Memory::host, receive_bytes, s.options.name + " receive (pinned)", backend);
  s.requests.assign(2 * s.plan.messages.size(), MPI_REQUEST_NULL);
  for (const auto& message : s.plan.messages) (void)message_bytes(message, sizeof(T), s.context);
  // A private communicator: our tags cannot match the caller's messages, and errors come back
  // as codes (reported with context) instead of aborting inside MPI.
  HALOFLOW_MPI(MPI_Comm_dup(communicator, &s.communicator), s.context);
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
ExchangeNodes HaloExchange<T>::add_to(FramePlan& plan, std::vector<std::string> after) {
  State& s = *state_;
  const std::string& prefix = s.options.name;
  ExchangeNodes names{prefix + ".pack", prefix + ".download", prefix + ".exchange",
                      prefix + ".upload", prefix + ".unpack"};
  constexpr Lane comm = Lane::communication;
  if (s.plan.messages.empty()) {  // no neighbour: keep the names so dependencies still resolve
    plan.add_empty({.name = names.pack, .lane = comm, .after = std::move(after)});
    for (const auto* next : {&names.download, &names.exchange, &names.upload, &names.unpack}) {
      plan.add_empty({.name = *next, .lane = comm, .after = {plan.nodes().back().name()}});
    }
    return names;
  }
  const auto shape = LaunchShape::fixed(s.options.blocks, s.options.block_size);
  pack_node_ =
      plan.add_kernel({.name = names.pack, .lane = comm, .after = std::move(after)},
                      halo_pack_kernel<T>(), shape, static_cast<std::size_t>(s.plan.send_elements),
                      s.send_segments.template as<const HaloSegment>(), s.send_segment_count,
                      s.table(0), s.device_send.template as<T>());
  plan.add_copy({.name = names.download, .lane = comm, .after = {names.pack}}, s.host_send.view(),
                s.device_send.view(), s.host_send.bytes());
  // The state lives on the heap, so the node stays valid when this object is moved.
  plan.add_split_host(
      {.name = names.exchange, .lane = comm, .after = {names.download}},
      [state = state_.get()] { state->post(); }, [state = state_.get()] { state->finish(); });
  plan.add_copy({.name = names.upload, .lane = comm, .after = {names.exchange}},
                s.device_receive.view(), s.host_receive.view(), s.host_receive.bytes());
  unpack_node_ = plan.add_kernel(
      {.name = names.unpack, .lane = comm, .after = {names.upload}}, halo_unpack_kernel<T>(), shape,
      static_cast<std::size_t>(s.plan.receive_elements),
      s.receive_segments.template as<const HaloSegment>(), s.receive_segment_count, s.table(0),
      s.device_receive.template as<const T>());
  return names;
}

template <class T>
void HaloExchange<T>::use_field_set(Frame& frame, std::size_t set) {
  State& s = *state_;
  if (set >= s.pointer_tables.size()) {
    throw Error(fmt::format("{}: field set {} does not exist (it has {})", s.context, set,
                            s.pointer_tables.size()));
  }
  if (s.plan.messages.empty()) return;
  frame.update(pack_node_, static_cast<std::size_t>(s.plan.send_elements),
               s.send_segments.template as<const HaloSegment>(), s.send_segment_count, s.table(set),
               s.device_send.template as<T>());
  frame.update(unpack_node_, static_cast<std::size_t>(s.plan.receive_elements),
               s.receive_segments.template as<const HaloSegment>(), s.receive_segment_count,
               s.table(set), s.device_receive.template as<const T>());
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
  const std::size_t count = s.plan.messages.size();
  // Every receive before any send: no message arrives unexpected, and no rank waits on a send.
  for (std::size_t m = 0; m < count; ++m) {
    const auto& message = s.plan.messages[m];
    HALOFLOW_MPI(MPI_Irecv(s.host_receive.template as<T>() + message.receive_offset,
                           static_cast<int>(message.elements * sizeof(T)), MPI_BYTE, message.peer,
                           s.tag(message.receive_tag), s.communicator, &s.requests[m]),
                 s.context);
  }
  for (std::size_t m = 0; m < count; ++m) {
    const auto& message = s.plan.messages[m];
    HALOFLOW_MPI(MPI_Isend(s.host_send.template as<T>() + message.send_offset,
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
  // Name the first request still open, then drop them all so MPI can shut down cleanly.
  const std::size_t count = s.plan.messages.size();
  std::string what;
  for (std::size_t r = 0; r < s.requests.size() && what.empty(); ++r) {
    if (s.requests[r] == MPI_REQUEST_NULL) continue;
    const auto& message = s.plan.messages[r % count];
    what = r < count ? fmt::format("no halo arrived from rank {} (direction {})", message.peer,
                                   direction_name(message.direction))
                     : fmt::format("the halo sent to rank {} (direction {}) was not taken",
                                   message.peer, direction_name(message.direction));
  }
  for (std::size_t r = 0; r < s.requests.size(); ++r) {
    if (s.requests[r] == MPI_REQUEST_NULL) continue;
    if (r < count) MPI_Cancel(&s.requests[r]);
    MPI_Request_free(&s.requests[r]);
  }
  throw Error(fmt::format("{}: {} within {} s; is that rank alive and running the same case?",
                          s.context, what, s.options.timeout.count()));
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
  return state_->pointer_tables.size();
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
