#pragma once
// The one place an executor is chosen, for every command: `auto` (graph with a GPU, host
// without), `all` (the model's comparison, limited to what this machine can run) or one by name,
// with the reason said, never silently.

#include <string>
#include <string_view>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "model.hpp"

namespace haloflow::cases {

//! A GPU executor asked for on a machine without a CUDA device (haloflow_model exits 77 on it,
//! so that ctest reports a GPU test as skipped).
class NoDeviceError : public Error {
 public:
  using Error::Error;
};

//! The executors chosen, in order, and what rank 0 says about the choice (empty: nothing).
struct ExecutorChoice {
  std::vector<ExecutorKind> executors;
  std::string note;
};

//! For `haloflow run` and haloflow_model: `requested` is all, auto or an executor's name.
//! \throws NoDeviceError for a GPU executor without a device; Error for an unknown name.
[[nodiscard]] ExecutorChoice choose_executors(std::string_view requested,
                                              const models::Model& model, bool have_gpu);

//! For `haloflow replay`, which records the graph and host executors: graph, host or auto.
//! \throws Error for another executor, NoDeviceError for graph without a device.
[[nodiscard]] ExecutorKind choose_replay_executor(std::string_view requested, bool have_gpu);

}  // namespace haloflow::cases
