#include "rank_traces.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <thread>
#include <type_traits>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::cases {
namespace {

class Writer {
 public:
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void put(const T& value) {
    const auto* bytes = reinterpret_cast<const char*>(&value);
    out_.insert(out_.end(), bytes, bytes + sizeof(T));
  }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    out_.insert(out_.end(), text.begin(), text.end());
  }
  [[nodiscard]] std::vector<char> take() { return std::move(out_); }

 private:
  std::vector<char> out_;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& in) : in_(in) {}
  template <class T>
  requires std::is_trivially_copyable_v<T> T get() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string text() {
    const auto size = get<std::uint64_t>();
    need(size);
    std::string value(in_.data() + at_, size);
    at_ += size;
    return value;
  }
  std::uint64_t count() {
    const auto n = get<std::uint64_t>();
    need(n);  // every element takes at least a byte: a count beyond the rest is damage
    return n;
  }
  [[nodiscard]] bool done() const { return at_ == in_.size(); }

 private:
  void need(std::uint64_t bytes) const {
    if (bytes > in_.size() - at_) {
      throw Error(fmt::format("a packed trace ends after {} of {} bytes", at_, in_.size()));
    }
  }
  const std::vector<char>& in_;
  std::size_t at_ = 0;
};

constexpr int kTag = 7401;  // the clock round trips

}  // namespace

std::vector<char> pack(const RankRecording& r) {
  Writer w;
  const Trace& t = r.trace;
  w.put(t.plan);
  w.put(t.executor);
  w.put(t.clock);
  w.put(t.rank);
  w.put(t.origin_ns);
  w.put(r.untraced_frame_us);
  w.put(r.traced_frame_us);
  w.put(r.frame_noise_us);
  w.put(r.untraced_before_us);
  w.put(r.untraced_after_us);
  w.put(r.clock_offset_ns);
  w.put(static_cast<std::uint64_t>(t.nodes.size()));
  for (const TraceNode& node : t.nodes) {
    w.put(node.name);
    w.put(node.plan);
    w.put(node.lane);
    w.put(node.kind);
    w.put(static_cast<std::uint64_t>(node.after.size()));
    for (const std::size_t dependency : node.after) w.put(static_cast<std::uint64_t>(dependency));
  }
  w.put(static_cast<std::uint64_t>(t.frames.size()));
  for (const FrameSpan& frame : t.frames) w.put(frame);
  w.put(static_cast<std::uint64_t>(t.spans.size()));
  for (const NodeSpan& span : t.spans) w.put(span);
  return w.take();
}

RankRecording unpack(const std::vector<char>& bytes) {
  Reader in(bytes);
  RankRecording r;
  Trace& t = r.trace;
  t.plan = in.text();
  t.executor = in.text();
  t.clock = in.text();
  t.rank = in.get<int>();
  t.origin_ns = in.get<std::int64_t>();
  r.untraced_frame_us = in.get<double>();
  r.traced_frame_us = in.get<double>();
  r.frame_noise_us = in.get<double>();
  r.untraced_before_us = in.get<double>();
  r.untraced_after_us = in.get<double>();
  r.clock_offset_ns = in.get<std::int64_t>();
  for (std::uint64_t n = in.count(); n > 0; --n) {
    TraceNode node;
    node.name = in.text();
    node.plan = in.text();
    node.lane = in.get<Lane>();
    node.kind = in.get<NodeKind>();
    for (std::uint64_t d = in.count(); d > 0; --d) {
      node.after.push_back(static_cast<std::size_t>(in.get<std::uint64_t>()));
    }
    t.nodes.push_back(std::move(node));
  }
  for (std::uint64_t n = in.count(); n > 0; --n) t.frames.push_back(in.get<FrameSpan>());
  for (std::uint64_t n = in.count(); n > 0; --n) t.spans.push_back(in.get<NodeSpan>());
  if (!in.done()) throw Error("a packed trace has bytes after its last span");
  return r;
}

namespace {

// Completes a point-to-point `request` with `peer` within `timeout`. \throws Error naming it.
void wait_for_peer(MPI_Request& request, int peer, std::chrono::duration<double> timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int done = 0;;) {
    HALOFLOW_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "aligning the ranks' clocks");
    if (done != 0) return;
    if (std::chrono::steady_clock::now() > deadline) {
      throw Error(
          fmt::format("aligning the ranks' clocks: no answer from rank {} within {} s; is "
                      "that rank alive?",
                      peer, timeout.count()));
    }
    std::this_thread::yield();
  }
}

}  // namespace

std::int64_t clock_offset_ns(FrameRecorder& recorder, MPI_Comm communicator, int rounds,
                             std::chrono::duration<double> timeout) {
  int rank = 0;
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "aligning the ranks' clocks");
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "aligning the ranks' clocks");
  std::int64_t offset = 0;
  for (int other = 1; other < ranks; ++other) {
    std::int64_t best_delay = std::numeric_limits<std::int64_t>::max();
    for (int round = 0; round < rounds; ++round) {
      if (rank == 0) {
        char ping = 0;
        MPI_Request request = MPI_REQUEST_NULL;
        HALOFLOW_MPI(MPI_Irecv(&ping, 1, MPI_CHAR, other, kTag, communicator, &request),
                     "aligning the ranks' clocks");
        wait_for_peer(request, other, timeout);
        const auto now = static_cast<std::int64_t>(recorder.clock_ns());
        HALOFLOW_MPI(MPI_Isend(&now, 1, MPI_INT64_T, other, kTag, communicator, &request),
                     "aligning the ranks' clocks");
        wait_for_peer(request, other, timeout);
      } else if (rank == other) {
        const char ping = 0;
        const auto sent = static_cast<std::int64_t>(recorder.clock_ns());
        MPI_Request request = MPI_REQUEST_NULL;
        HALOFLOW_MPI(MPI_Isend(&ping, 1, MPI_CHAR, 0, kTag, communicator, &request),
                     "aligning the ranks' clocks");
        wait_for_peer(request, 0, timeout);
        std::int64_t root_now = 0;
        HALOFLOW_MPI(MPI_Irecv(&root_now, 1, MPI_INT64_T, 0, kTag, communicator, &request),
                     "aligning the ranks' clocks");
        wait_for_peer(request, 0, timeout);
        const auto received = static_cast<std::int64_t>(recorder.clock_ns());
        // Rank 0 read its clock halfway through the round trip, give or take the asymmetry:
        // the shortest round trip bounds that error best.
        if (received - sent < best_delay) {
          best_delay = received - sent;
          offset = root_now - (sent + (received - sent) / 2);
        }
      }
    }
  }
  return offset;
}

std::vector<RankRecording> gather_recordings(const RankRecording& mine, MPI_Comm communicator,
                                             std::chrono::duration<double> timeout) {
  const BoundedCollectives collectives(communicator, timeout);
  int rank = 0;
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "gathering the traces");
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "gathering the traces");
  const std::vector<char> bytes = pack(mine);
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error(
        fmt::format("rank {}: its trace packs into {} bytes, over MPI's count limit; "
                    "record fewer frames",
                    rank, bytes.size()));
  }
  const int size = static_cast<int>(bytes.size());
  std::vector<int> sizes(static_cast<std::size_t>(ranks));
  collectives.gather(&size, 1, MPI_INT, sizes.data(), 0, "gathering the traces (their sizes)");
  std::vector<int> starts(static_cast<std::size_t>(ranks), 0);
  long long total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    starts[r] = static_cast<int>(total);
    total += sizes[r];
  }
  if (rank == 0 && total > std::numeric_limits<int>::max()) {
    throw Error("the ranks' traces pack into more bytes than MPI can gather; record fewer frames");
  }
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(total) : 0);
  collectives.gatherv(bytes.data(), size, MPI_CHAR, all.data(), sizes.data(), starts.data(), 0,
                      "gathering the traces");
  if (rank != 0) return {};
  std::vector<RankRecording> recordings;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    const auto begin = all.begin() + starts[r];
    recordings.push_back(unpack(std::vector<char>(begin, begin + sizes[r])));
  }
  // Rank r's times count from its origin on its clock; on rank 0's clock that origin is
  // origin_r + offset_r, which lies (origin_r + offset_r - origin_0) after rank 0's.
  const std::int64_t root_origin = recordings.front().trace.origin_ns;
  for (RankRecording& recording : recordings) {
    Trace& trace = recording.trace;
    const std::int64_t moved = trace.origin_ns + recording.clock_offset_ns - root_origin;
    shift(trace, static_cast<double>(moved) / 1000.0);
    trace.origin_ns = root_origin;
  }
  return recordings;
}

}  // namespace haloflow::cases
