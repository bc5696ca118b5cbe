#include "collective.hpp"

#include <mpi.h>

#include <algorithm>

#include "json_input.hpp"

namespace haloflow::cases {
namespace {

// Rank 0's text on every rank, in chunks below MPI's int count limit.
void broadcast_text(std::string& text) {
  unsigned long long length = text.size();
  HALOFLOW_MPI(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "the case");
  text.resize(length);
  for (unsigned long long sent = 0; sent < length;) {
    const int chunk = static_cast<int>(std::min<unsigned long long>(length - sent, 1 << 30));
    HALOFLOW_MPI(MPI_Bcast(text.data() + sent, chunk, MPI_CHAR, 0, MPI_COMM_WORLD), "the case");
    sent += static_cast<unsigned long long>(chunk);
  }
}

}  // namespace

CaseFile read_case_everywhere(const std::string& path, const MachineLimits& limits,
                              const MpiSession& mpi,
                              const std::function<void(nlohmann::json&)>& adjust) {
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
    HALOFLOW_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD), "the case");
    broadcast_text(text);
  }
  if (failed != 0) throw CollectiveError(text);
  try {
    nlohmann::json root = input::parse_json(text, path);
    if (adjust) adjust(root);
    return parse_case(root, path, limits);
  } catch (const Error& error) {
    throw CollectiveError(error.what());
  }
}

void agree_everywhere(const std::string& failure, const MpiSession& mpi) {
  const int mine = failure.empty() ? mpi.world_size() : mpi.world_rank();
  int first = mine;
  HALOFLOW_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
               "the ranks' verdicts");
  if (first == mpi.world_size()) return;
  std::string message = failure;
  unsigned long long length = message.size();
  HALOFLOW_MPI(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, first, MPI_COMM_WORLD),
               "the failure's message");
  message.resize(length);
  HALOFLOW_MPI(MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, first, MPI_COMM_WORLD),
               "the failure's message");
  throw CollectiveError(message);
}

}  // namespace haloflow::cases
