#include "haloflow/bounded_mpi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow {
namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// A note between ranks after a timeout: {kind, the collective asked about, the sender's count}.
using Note = std::array<long long, 3>;
constexpr int kAsk = 1;     // "I timed out in collective #k: where are you?"
constexpr int kAnswer = 2;  // "I am in (or past) collective #n"
// Until the private duplicate exists (the first bounded call on a communicator) the notes travel
// on the communicator itself, with tags no haloflow code uses (MPI guarantees tags to 32767).
constexpr int kParentTagBase = 32760;

// Where notes travel: the private duplicate, or the communicator itself with reserved tags.
struct Channel {
  MPI_Comm comm = MPI_COMM_NULL;
  int tag_base = 0;
};

// What a communicator's bounded calls keep between calls: the private duplicate the notes travel
// on (so they can never match the caller's own messages), and how many bounded calls were made.
struct Watch {
  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm notes = MPI_COMM_NULL;
  MPI_Request duplicating = MPI_REQUEST_NULL;
  long long calls = 0;
  // Notes still being sent (their buffers must live until then).
  std::list<std::pair<MPI_Request, Note>> sending;
};

int delete_watch(MPI_Comm /*communicator*/, int /*keyval*/, void* attribute, void* /*extra*/) {
  auto* watch = static_cast<Watch*>(attribute);
  for (auto& [request, note] : watch->sending) MPI_Request_free(&request);
  // A duplicate still being made belongs to a run that already failed: left as it is.
  if (watch->duplicating == MPI_REQUEST_NULL && watch->notes != MPI_COMM_NULL) {
    MPI_Comm_free(&watch->notes);
  }
  delete watch;
  return MPI_SUCCESS;
}

int watch_key() {
  static std::once_flag once;
  static int key = MPI_KEYVAL_INVALID;
  std::call_once(once, [] {
    HALOFLOW_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_watch, &key, nullptr),
                 "the bounded collectives' attribute");
  });
  return key;
}

// The communicator's watch, made (and its duplicate started) on first use.
Watch& watch_of(MPI_Comm communicator) {
  void* value = nullptr;
  int found = 0;
  HALOFLOW_MPI(MPI_Comm_get_attr(communicator, watch_key(), &value, &found),
               "the bounded collectives' attribute");
  if (found != 0) return *static_cast<Watch*>(value);
  auto* watch = new Watch;
  watch->parent = communicator;
  HALOFLOW_MPI(MPI_Comm_idup(communicator, &watch->notes, &watch->duplicating),
               "the bounded collectives' private communicator");
  HALOFLOW_MPI(MPI_Comm_set_attr(communicator, watch_key(), watch),
               "the bounded collectives' attribute");
  return *watch;
}

bool duplicate_ready(Watch& watch) {
  if (watch.duplicating != MPI_REQUEST_NULL) {
    int done = 0;
    HALOFLOW_MPI(MPI_Test(&watch.duplicating, &done, MPI_STATUS_IGNORE),
                 "the bounded collectives' private communicator");
  }
  return watch.duplicating == MPI_REQUEST_NULL && watch.notes != MPI_COMM_NULL;
}

// The channels a note may arrive on: the duplicate once it exists, and the communicator itself
// (a rank whose duplicate is not made yet asks there).
std::vector<Channel> listening(Watch& watch) {
  std::vector<Channel> channels{{watch.parent, kParentTagBase}};
  if (duplicate_ready(watch)) channels.push_back({watch.notes, 0});
  return channels;
}

Channel speaking(Watch& watch) {
  return duplicate_ready(watch) ? Channel{watch.notes, 0} : Channel{watch.parent, kParentTagBase};
}

void send_note(Watch& watch, const Channel& channel, int to, const Note& note) {
  watch.sending.emplace_back(MPI_REQUEST_NULL, note);
  auto& [request, buffer] = watch.sending.back();
  HALOFLOW_MPI(MPI_Isend(buffer.data(), 3, MPI_LONG_LONG, to,
                         channel.tag_base + static_cast<int>(note[0]), channel.comm, &request),
               "a note on a collective's timeout");
}

void forget_sent(Watch& watch) {
  watch.sending.remove_if([](std::pair<MPI_Request, Note>& entry) {
    int done = 0;
    MPI_Test(&entry.first, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
}

// One note of `kind` waiting for this rank on `channel`, if any.
bool receive_note(const Channel& channel, int kind, Note& note, int& from) {
  int waiting = 0;
  MPI_Status status;
  const int tag = channel.tag_base + kind;
  HALOFLOW_MPI(MPI_Iprobe(MPI_ANY_SOURCE, tag, channel.comm, &waiting, &status),
               "a note on a collective's timeout");
  if (waiting == 0) return false;
  from = status.MPI_SOURCE;
  HALOFLOW_MPI(MPI_Recv(note.data(), 3, MPI_LONG_LONG, from, tag, channel.comm, MPI_STATUS_IGNORE),
               "a note on a collective's timeout");
  return true;
}

// Answers every rank that asked where this one is (on the channel it asked on); \returns who
// asked and at which collective.
std::vector<std::pair<int, long long>> answer_questions(Watch& watch) {
  std::vector<std::pair<int, long long>> askers;
  forget_sent(watch);
  for (const Channel& channel : listening(watch)) {
    Note note{};
    int from = 0;
    while (receive_note(channel, kAsk, note, from)) {
      send_note(watch, channel, from, {kAnswer, note[1], watch.calls});
      askers.emplace_back(from, note[1]);
    }
  }
  return askers;
}

// "rank 3", or "rank 1 (world rank 3)" on a communicator other than MPI_COMM_WORLD's ranks.
std::string rank_name(MPI_Comm communicator, int rank) {
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(communicator, MPI_COMM_WORLD, &same);
  if (same == MPI_IDENT || same == MPI_CONGRUENT) return fmt::format("rank {}", rank);
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group world = MPI_GROUP_NULL;
  int in_world = MPI_UNDEFINED;
  if (MPI_Comm_group(communicator, &group) == MPI_SUCCESS &&
      MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
    MPI_Group_translate_ranks(group, 1, &rank, world, &in_world);
  }
  if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
  if (world != MPI_GROUP_NULL) MPI_Group_free(&world);
  return in_world == MPI_UNDEFINED ? fmt::format("rank {}", rank)
                                   : fmt::format("rank {} (world rank {})", rank, in_world);
}

std::string listed(MPI_Comm communicator, const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) text += ", ";
    text += rank_name(communicator, ranks[i]);
  }
  return text;
}

// After this rank's timeout in its current collective: asks the others where they are, for a
// grace period, and \returns the sentence that names the ranks not heard from.
std::string ask_the_others(Watch& watch, MPI_Comm communicator, int rank, int ranks,
                           Seconds timeout) {
  const long long call = watch.calls;
  const Channel channel = speaking(watch);
  for (int other = 0; other < ranks; ++other) {
    if (other != rank) send_note(watch, channel, other, {kAsk, call, call});
  }
  // Ranks waiting in a bounded call answer within microseconds; a quarter of the timeout (at
  // least 0.2 s, at most 1 s) leaves time to end every rank within the timeout + 2 s.
  const Seconds grace = std::clamp(timeout / 4, Seconds(0.2), Seconds(1.0));
  const auto until = Clock::now() + grace;
  std::vector<long long> heard(static_cast<std::size_t>(ranks), -1);
  heard[static_cast<std::size_t>(rank)] = call;
  const auto silent = [&] { return std::count(heard.begin(), heard.end(), -1); };
  while (Clock::now() < until && silent() > 0) {
    for (const auto& [asker, at] : answer_questions(watch)) {
      heard[static_cast<std::size_t>(asker)] = at;
    }
    for (const Channel& on : listening(watch)) {
      Note note{};
      int from = 0;
      while (receive_note(on, kAnswer, note, from)) {
        if (note[1] == call) heard[static_cast<std::size_t>(from)] = note[2];
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::vector<int> not_heard;
  std::vector<int> waiting;
  std::vector<int> elsewhere;
  for (int other = 0; other < ranks; ++other) {
    if (other == rank) continue;
    const long long at = heard[static_cast<std::size_t>(other)];
    (at < 0 ? not_heard : at == call ? waiting : elsewhere).push_back(other);
  }
  std::string text =
      not_heard.empty()
          ? std::string("every other rank answered (the collective is slow, not stuck?)")
          : fmt::format("not heard from: {}", listed(communicator, not_heard));
  if (!waiting.empty())
    text += fmt::format("; waiting in it too: {}", listed(communicator, waiting));
  if (!elsewhere.empty()) {
    text += fmt::format("; alive in another collective: {}", listed(communicator, elsewhere));
  }
  return text;
}

}  // namespace

void wait_for_collective(MPI_Request& request, MPI_Comm communicator, const char* call,
                         std::string_view what, Seconds timeout) {
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), what);
  if (ranks == 1) {
    HALOFLOW_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE), what);
    return;
  }
  Watch& watch = watch_of(communicator);
  ++watch.calls;
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  for (;;) {
    int done = 0;
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call, what);
    if (done != 0) return;
    (void)answer_questions(watch);
    const auto now = Clock::now();
    if (now > deadline) break;
    // A collective inside a step completes in microseconds: spin at first; a long wait (a rank
    // writing output while the others wait for it) should not take a whole core.
    if (now - start < std::chrono::milliseconds(2)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
  int rank = 0;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), what);
  const std::string others = ask_the_others(watch, communicator, rank, ranks, timeout);
  throw CollectiveTimeout(
      fmt::format("{}: {} did not complete within {} s on {} (bounded call #{} on its "
                  "communicator); {}",
                  what, call, timeout.count(), rank_name(communicator, rank), watch.calls, others));
}

void BoundedCollectives::allreduce(const void* send, void* receive, int count, MPI_Datatype type,
                                   MPI_Op op, std::string_view what) const {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallreduce(send, receive, count, type, op, communicator_, &request),
            "MPI_Iallreduce", what);
  wait_for_collective(request, communicator_, "MPI_Iallreduce", what, timeout_);
}

void BoundedCollectives::broadcast(void* buffer, int count, MPI_Datatype type, int root,
                                   std::string_view what) const {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibcast(buffer, count, type, root, communicator_, &request), "MPI_Ibcast", what);
  wait_for_collective(request, communicator_, "MPI_Ibcast", what, timeout_);
}

void BoundedCollectives::barrier(std::string_view what) const {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibarrier(communicator_, &request), "MPI_Ibarrier", what);
  wait_for_collective(request, communicator_, "MPI_Ibarrier", what, timeout_);
}

void BoundedCollectives::gather(const void* send, int count, MPI_Datatype type, void* receive,
                                int root, std::string_view what) const {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Igather(send, count, type, receive, count, type, root, communicator_, &request),
            "MPI_Igather", what);
  wait_for_collective(request, communicator_, "MPI_Igather", what, timeout_);
}

void BoundedCollectives::gatherv(const void* send, int count, MPI_Datatype type, void* receive,
                                 const int* counts, const int* displacements, int root,
                                 std::string_view what) const {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Igatherv(send, count, type, receive, counts, displacements, type, root,
                         communicator_, &request),
            "MPI_Igatherv", what);
  wait_for_collective(request, communicator_, "MPI_Igatherv", what, timeout_);
}

void BoundedCollectives::allgather(const void* send, int count, MPI_Datatype type, void* receive,
                                   std::string_view what) const {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallgather(send, count, type, receive, count, type, communicator_, &request),
            "MPI_Iallgather", what);
  wait_for_collective(request, communicator_, "MPI_Iallgather", what, timeout_);
}

void BoundedCollectives::alltoallv(const void* send, const int* send_counts,
                                   const int* send_displacements, MPI_Datatype type, void* receive,
                                   const int* receive_counts, const int* receive_displacements,
                                   std::string_view what) const {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ialltoallv(send, send_counts, send_displacements, type, receive, receive_counts,
                           receive_displacements, type, communicator_, &request),
            "MPI_Ialltoallv", what);
  wait_for_collective(request, communicator_, "MPI_Ialltoallv", what, timeout_);
}

}  // namespace haloflow
