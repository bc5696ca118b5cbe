#include "haloflow/launch_stream.hpp"

#include <utility>

#include "cuda_owners.hpp"

namespace haloflow {

struct LaunchStream::State {
  detail::Stream stream;
};

LaunchStream::LaunchStream(Backend backend, std::string name) : backend_(backend) {
  if (backend == Backend::cpu) return;
  // Priority 0 is the default priority: what cudaStreamCreateWithFlags would give.
  state_ = std::make_unique<State>(State{detail::make_stream(0, std::move(name))});
}

LaunchStream::~LaunchStream() = default;
LaunchStream::LaunchStream(LaunchStream&& other) noexcept = default;
LaunchStream& LaunchStream::operator=(LaunchStream&& other) noexcept = default;

CUstream_st* LaunchStream::get() const {
  return state_ ? state_->stream.get() : nullptr;
}

void LaunchStream::synchronize() const {
  if (!state_ || !state_->stream) return;
  HALOFLOW_CUDA(cudaStreamSynchronize(state_->stream.get()), state_->stream.name());
}

}  // namespace haloflow
