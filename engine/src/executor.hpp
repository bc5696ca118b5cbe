#pragma once
// The interface each executor implements; internal to the engine (Frame is the public face).

#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

namespace haloflow {

//! Collects the first failure of a host node: host nodes run on a CUDA driver thread, where an
//! exception cannot propagate, so it is kept here and rethrown by Frame::wait.
class HostNodeFailures {
 public:
  void record(const std::string& node, const std::string& what) noexcept;
  //! Throws the first recorded failure, and forgets it.
  void rethrow();

 private:
  std::mutex mutex_;
  std::string first_;
};

//! What a host node needs when CUDA calls it back: the function, its name, where failures go.
struct HostCallback {
  const std::function<void()>* run;
  const std::string* node;
  HostNodeFailures* failures;
  //! The `cudaHostFn_t` trampoline: `data` is a HostCallback.
  static void invoke(void* data) noexcept;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void launch(CUstream_st* stream) = 0;  //!< null: the executor's own stream
  virtual void wait() = 0;
  virtual void kernel_args_changed(std::size_t node) = 0;
};

// Each factory reads `plan` during construction and keeps a reference: the Frame owns both.
std::unique_ptr<Executor> make_graph_executor(FramePlan& plan, HostNodeFailures& failures);
std::unique_ptr<Executor> make_stream_executor(FramePlan& plan, int lanes,
                                               HostNodeFailures& failures);
std::unique_ptr<Executor> make_host_executor(FramePlan& plan);

}  // namespace haloflow
