#pragma once
//! \file
//! \brief A stream that several frames share, so that they run in the order launched.
//!
//! `Frame::launch()` issues each frame on a stream of its own, so two frames launched back to
//! back may overlap on the GPU. Frames that must follow each other (an x sweep then a z sweep)
//! are launched on one LaunchStream instead: `frame.launch(stream.get())`.

#include <memory>
#include <string>

#include "haloflow/buffer.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*; declared so this header needs no CUDA

namespace haloflow {

//! \brief Owns one CUDA stream (Backend::cuda) or none (Backend::cpu, the host executor's
//! backend: get() is null there, which Frame::launch takes as it is). Move-only.
class LaunchStream {
 public:
  //! \brief A non-blocking CUDA stream under Backend::cuda (at the default priority, so it never
  //! waits for the legacy default stream), nothing under Backend::cpu. `name` appears in errors.
  //! \throws Error naming the CUDA call, `name` and CUDA's error when the stream cannot be made.
  explicit LaunchStream(Backend backend, std::string name = "launch stream");
  //! \brief Destroys the stream (a failure is reported on stderr, never thrown); work already on
  //! it still completes, as cudaStreamDestroy promises.
  ~LaunchStream();
  //! \brief Takes over `other`'s stream. \post `other` owns none (get() is null).
  LaunchStream(LaunchStream&& other) noexcept;
  //! \brief Destroys this stream, then takes over `other`'s. \post `other` owns none.
  LaunchStream& operator=(LaunchStream&& other) noexcept;
  LaunchStream(const LaunchStream&) = delete;
  LaunchStream& operator=(const LaunchStream&) = delete;

  //! \brief The stream, to pass to `Frame::launch(stream)`; null under Backend::cpu (or after a
  //! move).
  [[nodiscard]] CUstream_st* get() const;
  //! \brief The backend given at construction.
  [[nodiscard]] Backend backend() const { return backend_; }
  //! \brief Waits until everything issued on the stream so far has finished (nothing to wait
  //! for under Backend::cpu). \throws Error naming the call, the stream and CUDA's error.
  void synchronize() const;

 private:
  struct State;
  Backend backend_ = Backend::cpu;
  std::unique_ptr<State> state_;
};

}  // namespace haloflow
