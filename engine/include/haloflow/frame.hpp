#pragma once
//! \file
//! \brief An executable frame: a validated plan bound to one executor, launched every step and
//! patched only through typed kernel-parameter updates.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <typeinfo>

#include "haloflow/plan.hpp"

namespace haloflow {

//! \brief How a frame runs.
enum class ExecutorKind {
  graph,    //!< the product: a cudaGraph with per-node priorities, patched and relaunched
  streams,  //!< two streams at the device's highest and lowest priority, joined by events
  serial,   //!< one stream, nodes in topological order
  host,     //!< the CPU, nodes in topological order, kernels through their host twins
};

//! \brief How the graph executor hands a plan's host node (the MPI exchange) to the host. The plan
//! is the same either way; only its lowering differs.
enum class Handoff {
  automatic,  //!< the one measured faster across the sweep of docs/benchmarks.md: `proxy`
  host_node,  //!< cudaGraphAddHostNode: the CUDA driver's callback thread runs the function
  proxy,      //!< a doorbell kernel, haloflow's progress thread, a release flag the GPU waits on
};

//! \brief "auto", "host-node" or "proxy".
[[nodiscard]] std::string_view to_string(Handoff handoff);
//! \brief Parses "auto", "host-node" or "proxy".
[[nodiscard]] std::optional<Handoff> handoff_from_string(std::string_view text);

//! \brief How the host executor orders the nodes a plan leaves unordered. On a GPU such nodes run
//! concurrently, so a missing dependency is a race there; `insertion` (the default) runs them in
//! the order they were added, which hides it. The others run them in another order that the
//! dependencies allow, so that a missing dependency shows up on the CPU too: a result that
//! differs from the insertion order's means the plan lacks an edge.
enum class HostOrder {
  insertion,  //!< ready nodes in the order they were added
  reverse,    //!< the latest-added ready node first
  shuffled,   //!< a seeded random ready node, a new order at every launch
  threads,    //!< ready nodes concurrently, on worker threads
};

//! \brief A HostOrder and its seed. In every order but `insertion`, host nodes (the exchange)
//! keep their insertion order among themselves: they talk to other ranks, which must meet them
//! in the same order.
struct HostOrdering {
  HostOrder order = HostOrder::insertion;  //!< which order
  std::uint64_t seed = 0;                  //!< `shuffled`: the generator's seed
  //! \brief Parses `insertion`, `reverse`, `shuffled`, `shuffled:SEED` or `threads` (`shuffled`
  //! alone: a seed drawn once per process and printed to stderr, so that the order can be
  //! repeated). \throws Error naming the text and what is allowed.
  [[nodiscard]] static HostOrdering parse(std::string_view text);
  //! \brief What the environment variable HALOFLOW_HOST_ORDER says (parse()'s syntax), so that a
  //! user's CI runs their own binary in another order without recompiling; `insertion` when it is
  //! unset or empty. \throws Error naming the variable, its value and what is allowed.
  [[nodiscard]] static HostOrdering from_environment();
  //! \brief Member-wise equality.
  friend bool operator==(const HostOrdering&, const HostOrdering&) = default;
};

//! \brief "insertion", "reverse", "shuffled:SEED" or "threads".
[[nodiscard]] std::string to_string(const HostOrdering& ordering);

//! \brief Choices a Frame is built with, beyond its plan and executor.
struct FrameOptions {
  //! How host nodes are lowered under the graph executor (other executors ignore it).
  Handoff handoff = Handoff::automatic;
  //! Proxy handoff: how long the GPU waits for a host node's work before it gives up, lets the
  //! graph finish and has Frame::wait report the node. Longer than the work's own bound (an
  //! exchange's ExchangeOptions::timeout, 60 s by default), so that the work reports first.
  std::chrono::duration<double> release_timeout = std::chrono::seconds(90);
  //! The host executor's order of unordered nodes (other executors ignore it); empty: what
  //! HALOFLOW_HOST_ORDER says (HostOrdering::from_environment()).
  std::optional<HostOrdering> host_order;
  //! How the plan's dependencies follow from its accesses, for this frame; empty: what
  //! HALOFLOW_EDGES says, else the plan's own rule (FramePlan::edges()).
  std::optional<EdgeRule> edges;
};

//! \brief The executor's name as executor_from_string() parses it ("graph", ...).
[[nodiscard]] std::string_view to_string(ExecutorKind kind);
//! \brief Parses "graph", "streams", "serial" or "host".
[[nodiscard]] std::optional<ExecutorKind> executor_from_string(std::string_view text);

class Executor;
class Frame;
namespace detail {
//! The executor behind a frame: for the engine's internals only.
Executor& executor_of(Frame& frame);
}  // namespace detail

//! \brief A plan lowered for one executor. Move-only; the plan is owned and cannot change shape.
class Frame {
 public:
  //! \brief Validates `plan` and builds the executor (for `graph`: lowers, instantiates with
  //! node priorities, uploads). \throws Error for an invalid plan, a kernel the executor cannot
  //! run, or a failed CUDA call (naming the node).
  Frame(FramePlan plan, ExecutorKind kind, FrameOptions options = {});
  ~Frame();
  //! \brief Takes over the plan and executor; the CUDA graph and streams stay where they are.
  //! \post the moved-from frame may only be destroyed or assigned to.
  Frame(Frame&&) noexcept;
  //! \brief Releases this frame's executor, then takes over the other's.
  //! \post the moved-from frame may only be destroyed or assigned to.
  Frame& operator=(Frame&&) noexcept;
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  //! \brief Sets new parameter values for one kernel node; they take effect at the next launch.
  //! Checked at compile time against the node's parameter list (a mismatch names the
  //! parameter's position, its type and the argument's); never re-instantiates.
  //! \throws Error naming the node if it is not a kernel of this frame with these parameters,
  //! or if the executor refuses the update.
  template <class... Params, class... Args>
  void update(const KernelNode<Params...>& node, Args&&... args) {
    if constexpr (kernel_arguments_check<std::tuple<Params...>, std::tuple<Args...>>::fit) {
      const std::size_t index = locate(node.index, node.name, typeid(std::tuple<Params...>));
      kernel_args(index).template values<Params...>() =
          std::tuple<Params...>{Params{std::forward<Args>(args)}...};
      patched(index);
    }
  }

  //! \brief Issues one frame on the executor's own stream (the host executor runs it now).
  void launch();
  //! \brief Issues one frame on `stream`, after the work already queued there.
  void launch(CUstream_st* stream);
  //! \brief Waits for the last launch. \throws Error for a failed launch or host node.
  void wait();
  //! \brief `launch()` then `wait()`.
  void run();

  //! \brief The plan this frame runs, with the latest patched kernel parameters.
  [[nodiscard]] const FramePlan& plan() const;
  //! \brief The executor kind chosen at construction.
  [[nodiscard]] ExecutorKind executor() const;
  //! \brief The options given at construction.
  [[nodiscard]] const FrameOptions& options() const;
  //! \brief How many kernel-parameter updates the frame has taken: a FrameLoop lowered from
  //! the plan lowers it again when this has changed.
  [[nodiscard]] std::uint64_t updates() const;

 private:
  // The engine's own tools (CUPTI recording, graph inspection) reach the executor; users see
  // the plan and, through haloflow/graph_dot.hpp, the lowered graph.
  friend Executor& detail::executor_of(Frame& frame);
  // A loop launches the frames' work itself, and reports and checks them as launch() does.
  friend class FrameLoop;
  void before_launch();

  [[nodiscard]] std::size_t locate(std::size_t index, std::string_view name,
                                   const std::type_info& params) const;
  [[nodiscard]] KernelArgs& kernel_args(std::size_t index);
  void patched(std::size_t index);
  void check_nodes() const;

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace haloflow
