#pragma once
//! \file
//! \brief A frame plan: one timestep as a DAG of named nodes, plain data before any GPU work.
//!
//! The plan is what every executor runs and what tests inspect: node kinds, dependencies,
//! priority lanes. Nothing here touches CUDA; lowering to a cudaGraph happens in graphs/.

#include <concepts>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "haloflow/kernel.hpp"
#include "haloflow/launch.hpp"

namespace haloflow {

//! \brief Priority class of a node. Communication runs at the device's highest stream
//! priority so its small kernels slip between the blocks of the bulk (lowest priority) work.
enum class Lane { bulk, communication };

//! \brief Where a buffer lives. `host` means pinned host memory (what copies need to overlap).
enum class Memory { device, host };

enum class NodeKind { kernel, copy, host, empty };
enum class CopyKind { device_to_host, host_to_device, device_to_device };

[[nodiscard]] std::string_view to_string(Lane lane);
[[nodiscard]] std::string_view to_string(NodeKind kind);
[[nodiscard]] std::string_view to_string(CopyKind kind);

//! \brief A non-owning view of a buffer, named so errors can say which one.
struct BufferView {
  void* data = nullptr;
  std::size_t bytes = 0;
  Memory memory = Memory::device;
  std::string name;
};

//! \brief What every node has: a unique name, its lane, and the names it runs after.
struct NodeOptions {
  std::string name;
  Lane lane = Lane::bulk;
  std::vector<std::string> after;
};

struct KernelWork {
  const void* device_entry = nullptr;
  HostKernelRunner host;  //!< empty when the kernel has no host twin
  LaunchShape shape;
  KernelArgs args;
  std::string label;
};

struct CopyWork {
  BufferView destination;
  BufferView source;
  std::size_t bytes = 0;
  [[nodiscard]] std::optional<CopyKind> kind() const;  //!< empty for host to host
};

//! \brief Host work. `run` is what a graph host node (or a stream callback) calls. Work that can
//! be split in two (an MPI exchange: post, then wait) also sets `post` and `finish`; executors
//! without graphs then call them on the launching thread, split-phase: `post` once the node's
//! dependencies are done, `finish` just before a node that depends on it is issued, with
//! independent work issued in between.
struct HostWork {
  std::function<void()> run;
  std::function<void()> post;
  std::function<void()> finish;
  [[nodiscard]] bool split_phase() const { return post && finish; }
};

struct EmptyWork {};

struct Node {
  NodeOptions options;
  std::variant<KernelWork, CopyWork, HostWork, EmptyWork> work;

  [[nodiscard]] const std::string& name() const { return options.name; }
  [[nodiscard]] Lane lane() const { return options.lane; }
  [[nodiscard]] NodeKind kind() const { return static_cast<NodeKind>(work.index()); }
};

//! \brief Handle to a kernel node, typed by the kernel's parameter list so that
//! `Frame::update` is checked against it at compile time.
template <class... Params>
struct KernelNode {
  std::size_t index = 0;
  std::string name;
};

//! \brief `From` converts to `To` without narrowing (so `update(node, 1)` into a double is refused
//! at compile time rather than silently converted).
template <class From, class To>
concept converts_exactly = std::is_convertible_v<From, To> && requires(From&& from) {
  To{std::forward<From>(from)};
};

class FramePlan {
 public:
  explicit FramePlan(std::string name);

  //! \brief Adds a kernel node; `args` must convert to the kernel's parameters without
  //! narrowing. \returns a handle for typed patching.
  template <class... Params, class... Args>
  requires(sizeof...(Params) == sizeof...(Args) && (converts_exactly<Args, Params> && ...))
      KernelNode<Params...> add_kernel(NodeOptions options, KernelRef<Params...> kernel,
                                       LaunchShape shape, Args&&... args) {
    KernelWork work{.device_entry = kernel.device ? device_entry_address(kernel.device) : nullptr,
                    .host = {},
                    .shape = shape,
                    .args = KernelArgs::make<Params...>(Params{std::forward<Args>(args)}...),
                    .label = kernel.label};
    if (kernel.host != nullptr) {
      work.host = [host = kernel.host](const LaunchShape& launch, const KernelArgs& stored) {
        std::apply([&](auto&... values) { host(launch, values...); }, stored.values<Params...>());
      };
    }
    std::string name = options.name;
    const std::size_t index = append(std::move(options), std::move(work));
    return KernelNode<Params...>{index, std::move(name)};
  }

  //! \brief Copies `bytes` from `source` to `destination`; the direction follows the views'
  //! memory (device to host, host to device, device to device).
  void add_copy(NodeOptions options, BufferView destination, BufferView source, std::size_t bytes);
  //! \brief Runs `run` on the host. Under the GPU executors it runs on a CUDA driver thread, so
  //! it must not call CUDA; an exception it throws is reported by `Frame::wait`.
  void add_host(NodeOptions options, std::function<void()> run);
  //! \brief A host node that executors without graphs may run split-phase (see HostWork).
  void add_split_host(NodeOptions options, std::function<void()> post,
                      std::function<void()> finish);
  //! \brief A node that only joins dependencies.
  void add_empty(NodeOptions options);

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
  [[nodiscard]] Node& node(std::size_t index) { return nodes_.at(index); }
  [[nodiscard]] const Node& node(std::size_t index) const { return nodes_.at(index); }
  [[nodiscard]] std::optional<std::size_t> find(std::string_view name) const;

  //! \brief Every problem in the plan, each one sentence naming the node (empty when valid).
  [[nodiscard]] std::vector<std::string> problems() const;
  //! \brief \throws Error listing every problem, when there is any.
  void validate() const;
  //! \brief Resolved dependencies per node, by index. \pre the plan is valid.
  [[nodiscard]] std::vector<std::vector<std::size_t>> dependencies() const;
  //! \brief Nodes ordered so each follows its dependencies; ties keep insertion order.
  //! \throws Error naming a cycle.
  [[nodiscard]] std::vector<std::size_t> topological_order() const;
  //! \brief Graphviz text: one box per node (shape by kind, colour by lane), one edge per
  //! dependency.
  [[nodiscard]] std::string to_dot() const;
  //! \brief The sub-plan of one lane (e.g. the interior alone), with dependencies through
  //! dropped nodes kept as direct ones.
  [[nodiscard]] FramePlan only(Lane lane) const;

 private:
  std::size_t append(NodeOptions options,
                     std::variant<KernelWork, CopyWork, HostWork, EmptyWork> work);

  std::string name_;
  std::vector<Node> nodes_;
};

}  // namespace haloflow
