#include "collective.hpp"

#include <mpi.h>

#include <algorithm>

#include "haloflow/bounded_mpi.hpp"
#include "json_input.hpp"

namespace haloflow::cases {
namespace {

// `root`'s text on every rank, in chunks below MPI's int count limit.
void broadcast_text(std::string& text, int root, const BoundedCollectives& world,
                    const std::string& what) {
  unsigned long long length = text.size();
  world.broadcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, what + " (its length)");
  text.resize(length);
  for (unsigned long long sent = 0; sent < length;) {
    const int chunk = static_cast<int>(std::min<unsigned long long>(length - sent, 1 << 30));
    world.broadcast(text.data() + sent, chunk, MPI_CHAR, root, what);
    sent += static_cast<unsigned long long>(chunk);
  }
}

}  // namespace

CaseFile read_case_everywhere(const std::string& path, const MachineLimits& limits,
                              const MpiSession& mpi, Seconds timeout,
                              const std::function<void(nlohmann::json&)>& adjust,
                              const std::string& source) {
  std::string text;
  int failed = 0;
  if (mpi.world_rank() == 0) {
    try {
      text = read_case_text(path);
    } catch (const Error& error) {
      text = error.what();
      failed = 1;
    }
  }
  if (mpi.world_size() > 1) {
    const BoundedCollectives world(MPI_COMM_WORLD, timeout);
    world.broadcast(&failed, 1, MPI_INT, 0, "the case file's verdict (rank 0 reads it)");
    broadcast_text(text, 0, world, "the case file's text (rank 0 reads it)");
  }
  if (failed != 0) throw CollectiveError(text);
  try {
    nlohmann::json root = input::parse_json(text, path);
    if (adjust) adjust(root);
    return parse_case(root, source.empty() ? path : source, limits);
  } catch (const Error& error) {
    throw CollectiveError(error.what());
  }
}

void agree_everywhere(const std::string& failure, const MpiSession& mpi, Seconds timeout,
                      const std::string& what) {
  if (mpi.world_size() == 1) {
    if (!failure.empty()) throw CollectiveError(failure);
    return;
  }
  const BoundedCollectives world(MPI_COMM_WORLD, timeout);
  const int mine = failure.empty() ? mpi.world_size() : mpi.world_rank();
  int first = mine;
  world.allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, what + " (the ranks' verdicts)");
  if (first == mpi.world_size()) return;
  std::string message = failure;
  broadcast_text(message, first, world, what + " (the failure's message)");
  throw CollectiveError(message);
}

}  // namespace haloflow::cases
