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

#include "haloflow/access.hpp"
#include "haloflow/argument_check.hpp"
#include "haloflow/kernel.hpp"
#include "haloflow/launch.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*; declared here so this header needs no CUDA

namespace haloflow {

//! \brief Priority class of a node. Communication runs at the device's highest stream
//! priority so its small kernels slip between the blocks of the bulk (lowest priority) work.
enum class Lane { bulk, communication };

//! \brief Where a buffer lives. `host` means pinned host memory (what copies need to overlap).
enum class Memory { device, host };

//! \brief What a node does; in the order of Node::work's alternatives, so Node::kind() is the
//! variant's index.
enum class NodeKind { kernel, copy, host, empty, stream };
//! \brief Direction of a copy node, from its views' Memory; host to host is not a copy node.
enum class CopyKind { device_to_host, host_to_device, device_to_device };

//! \brief "bulk" or "communication", for messages and Graphviz labels.
[[nodiscard]] std::string_view to_string(Lane lane);
//! \brief "kernel", "copy", "host", "empty" or "stream", for messages and Graphviz labels.
[[nodiscard]] std::string_view to_string(NodeKind kind);
//! \brief "device to host", "host to device" or "device to device".
[[nodiscard]] std::string_view to_string(CopyKind kind);

//! \brief A non-owning view of a buffer, named so errors can say which one.
struct BufferView {
  void* data = nullptr;            //!< first byte; a copy node refuses null
  std::size_t bytes = 0;           //!< bytes available from `data`; copies may not move more
  Memory memory = Memory::device;  //!< decides the direction of a copy
  std::string name;                //!< for messages; may be empty
};

//! \brief What every node has: a unique name, its lane, and the names it runs after.
struct NodeOptions {
  //! Non-empty and unique in the plan: how handles, `after` and error messages name the node.
  std::string name;
  Lane lane = Lane::bulk;  //!< stream priority class; default bulk (lowest priority)
  //! Names of nodes of the same plan this one runs after; neither itself nor a missing name.
  std::vector<std::string> after;
  //! The cells the node reads and writes (`{haloflow::reads(u, box), haloflow::writes(v, box)}`):
  //! the plan derives or checks its dependencies from them (EdgeRule). A node that declares none
  //! is ordered by `after` alone.
  std::vector<Access> access;
};

//! \brief A kernel node's work, as FramePlan::add_kernel builds it from a KernelRef.
struct KernelWork {
  //! The `__global__` function (device_entry_address); null: the host executor only.
  const void* device_entry = nullptr;
  HostKernelRunner host;  //!< empty when the kernel has no host twin
  LaunchShape shape;      //!< must have a non-empty grid and block
  KernelArgs args;        //!< the parameter values; Frame::update rewrites them in place
  std::string label;      //!< the kernel's name (KernelRef::label), for messages
  //! How many cells the launch reaches with these arguments (KernelRef::reach); empty when the
  //! kernel does not say. The plan refuses a launch that reaches fewer cells than it declares it
  //! writes.
  std::function<std::uint64_t(const LaunchShape&, const KernelArgs&)> reach;
  //! Optional, as StreamWork::check: called after the frame has finished and before the next
  //! launch; throws when the kernel reported a failure (the peer transport's receive kernel: a
  //! halo that never came).
  std::function<void()> check;
};

//! \brief A copy node's work: one contiguous copy between two views.
struct CopyWork {
  BufferView destination;  //!< where the bytes go
  BufferView source;       //!< where they come from
  std::size_t bytes = 0;   //!< how many: at least 1, at most either view's `bytes`
  [[nodiscard]] std::optional<CopyKind> kind() const;  //!< empty for host to host
};

//! \brief Host work. `run` is what a graph host node (or a stream callback) calls. Work that can
//! be split in two (an MPI exchange: post, then wait) also sets `post` and `finish`; executors
//! without graphs then call them on the launching thread, split-phase: `post` once the node's
//! dependencies are done, `finish` just before a node that depends on it is issued, with
//! independent work issued in between.
struct HostWork {
  std::function<void()> run;     //!< the whole work; required
  std::function<void()> post;    //!< first phase; empty unless split-phase
  std::function<void()> finish;  //!< second phase; set exactly when `post` is
  //! \brief True when executors without graphs may run it as post, then finish.
  [[nodiscard]] bool split_phase() const { return post && finish; }
};

//! \brief An empty node's work: nothing; the node only joins its dependencies.
struct EmptyWork {};

//! \brief Work a library issues onto a CUDA stream itself (NCCL's send and receive): the graph
//! executor captures `issue` once into a child graph, the stream executors call it at every
//! launch; the host executor cannot run it.
struct StreamWork {
  //! Issues the work on the stream (a `cudaStream_t`); it must not wait for it. Required.
  std::function<void(CUstream_st*)> issue;
  //! Optional: called after the frame has finished (Frame::wait) and before the next launch;
  //! throws when the work failed (e.g. a peer that never answered), naming what failed.
  std::function<void()> check;
};

//! \brief One node of a plan: its options and its work, one of four kinds.
struct Node {
  NodeOptions options;  //!< name, lane and dependencies
  //! What the node does; the alternatives are in NodeKind order.
  std::variant<KernelWork, CopyWork, HostWork, EmptyWork, StreamWork> work;

  //! \brief The node's name (`options.name`).
  [[nodiscard]] const std::string& name() const { return options.name; }
  //! \brief The node's lane (`options.lane`).
  [[nodiscard]] Lane lane() const { return options.lane; }
  //! \brief Which alternative `work` holds.
  [[nodiscard]] NodeKind kind() const { return static_cast<NodeKind>(work.index()); }
};

//! \brief Handle to a kernel node, typed by the kernel's parameter list so that
//! `Frame::update` is checked against it at compile time.
template <class... Params>
struct KernelNode {
  using parameters = std::tuple<Params...>;  //!< the parameter list, for arguments_fit
  std::size_t index = 0;  //!< position in the plan; a hint, checked against `name` before use
  std::string name;       //!< the node's name; finds it when `index` does not (e.g. in a subset)
};

//! \brief One timestep's DAG, built node by node and checked as a whole by validate() (a Frame
//! validates it too). Nodes are never removed, so indices and handles stay valid.
class FramePlan {
 public:
  //! \brief An empty plan; `name` appears in every message about it and in its Graphviz title;
  //! `edges` says how its dependencies follow from its nodes' accesses.
  explicit FramePlan(std::string name, EdgeRule edges = EdgeRule::derive);

  //! \brief Adds a kernel node; `args` must convert to the kernel's parameters without
  //! narrowing (checked at compile time; a mismatch names the parameter's position, its type and
  //! the argument's, see argument_check.hpp). \returns a handle for typed patching.
  template <class... Params, class... Args>
  KernelNode<Params...> add_kernel(NodeOptions options, KernelRef<Params...> kernel,
                                   LaunchShape shape, Args&&... args) {
    if constexpr (kernel_arguments_check<std::tuple<Params...>, std::tuple<Args...>>::fit) {
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
      if (kernel.reach != nullptr) {
        work.reach = [reach = kernel.reach](const LaunchShape& launch, const KernelArgs& stored) {
          return std::apply([&](auto&... values) { return reach(launch, values...); },
                            stored.values<Params...>());
        };
      }
      std::string name = options.name;
      const std::size_t index = append(std::move(options), std::move(work));
      return KernelNode<Params...>{index, std::move(name)};
    } else {
      return {};  // not compiled: the check has already failed with its diagnosis
    }
  }
  //! \brief Refuses, at compile time and saying what to do, a kernel that is not a KernelRef
  //! (typically a `__global__` function passed as it is).
  template <class NotAKernelRef, class... Args>
  requires(!detail::is_kernel_ref<NotAKernelRef>) KernelNode<> add_kernel(NodeOptions,
                                                                          NotAKernelRef,
                                                                          LaunchShape, Args&&...) {
    static_assert(detail::is_kernel_ref<NotAKernelRef>,
                  "haloflow: add_kernel takes a haloflow::KernelRef, not a function: wrap a "
                  "__global__ function as haloflow::device_kernel(&my_kernel, \"my_kernel\"), or "
                  "write the kernel once per cell and pass "
                  "haloflow::per_cell_kernel<MyOp, Params...>(\"my_kernel\") (per_cell.cuh).");
    return {};
  }

  //! \brief Copies `bytes` from `source` to `destination`; the direction follows the views'
  //! memory (device to host, host to device, device to device). Without accesses in `options`
  //! it declares a read of all of `source` and a write of all of `destination` (every_cell()).
  void add_copy(NodeOptions options, BufferView destination, BufferView source, std::size_t bytes);
  //! \brief Runs `run` on the host. Under the GPU executors it runs on a CUDA driver thread, so
  //! it must not call CUDA; an exception it throws is reported by `Frame::wait`.
  void add_host(NodeOptions options, std::function<void()> run);
  //! \brief A host node that executors without graphs may run split-phase (see HostWork).
  void add_split_host(NodeOptions options, std::function<void()> post,
                      std::function<void()> finish);
  //! \brief A node that only joins dependencies.
  void add_empty(NodeOptions options);
  //! \brief Work issued onto a stream by `issue` (see StreamWork); `check` may be empty.
  void add_stream_work(NodeOptions options, std::function<void(CUstream_st*)> issue,
                       std::function<void()> check = {});

  //! \brief The name given at construction (a subset from only() gets "<name>:<lane>").
  [[nodiscard]] const std::string& name() const { return name_; }
  //! \brief How the dependencies follow from the accesses (EdgeRule).
  [[nodiscard]] EdgeRule edges() const { return edges_; }
  //! \brief Changes the rule; a Frame does this for FrameOptions::edges or HALOFLOW_EDGES.
  void set_edges(EdgeRule edges) { edges_ = edges; }
  //! \brief Names the field at `field` in messages about accesses (an access's own name wins).
  void name_field(const void* field, std::string name);
  //! \brief True when name_field has named the field at `field`.
  [[nodiscard]] bool names_field(const void* field) const;
  //! \brief How messages name the field at `field`: its name, or its address.
  [[nodiscard]] std::string field_name(const void* field) const;
  //! \brief Every node, in insertion order (their indices).
  [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
  //! \brief The node at `index`, to inspect or adjust before the plan becomes a Frame.
  //! \throws std::out_of_range for an index past the end.
  [[nodiscard]] Node& node(std::size_t index) { return nodes_.at(index); }
  //! \brief The node at `index`. \throws std::out_of_range for an index past the end.
  [[nodiscard]] const Node& node(std::size_t index) const { return nodes_.at(index); }
  //! \brief Index of the first node named `name`, or nullopt when there is none.
  [[nodiscard]] std::optional<std::size_t> find(std::string_view name) const;

  //! \brief Every problem in the plan, each one sentence naming the node (empty when valid).
  [[nodiscard]] std::vector<std::string> problems() const;
  //! \brief \throws Error listing every problem, when there is any.
  void validate() const;
  //! \brief Dependencies per node, by index, in increasing index order: the explicit ones and
  //! those derived from the accesses, as edges() says. \pre the plan is valid.
  [[nodiscard]] std::vector<std::vector<std::size_t>> dependencies() const;
  //! \brief The explicit dependencies alone (NodeOptions::after), by index. \pre every name
  //! resolves. \throws Error naming a node that depends on an unknown one.
  [[nodiscard]] std::vector<std::vector<std::size_t>> explicit_dependencies() const;
  //! \brief Nodes ordered so each follows its dependencies; ties keep insertion order.
  //! \throws Error naming a cycle.
  [[nodiscard]] std::vector<std::size_t> topological_order() const;
  //! \brief Graphviz text: one box per node (shape by kind, colour by lane), one edge per
  //! dependency (dependencies(): derived ones included), in node order.
  [[nodiscard]] std::string to_dot() const;
  //! \brief The sub-plan of one lane (e.g. the interior alone), with dependencies through
  //! dropped nodes kept as direct ones.
  [[nodiscard]] FramePlan only(Lane lane) const;

 private:
  // What accesses reveal: null fields, launches too small for their writes, and in strict mode
  // conflicts the explicit edges leave unordered. \pre every `after` name resolves.
  [[nodiscard]] std::vector<std::string> access_problems() const;
  std::size_t append(NodeOptions options,
                     std::variant<KernelWork, CopyWork, HostWork, EmptyWork, StreamWork> work);

  std::string name_;
  EdgeRule edges_ = EdgeRule::derive;
  std::vector<Node> nodes_;
  std::vector<std::pair<const void*, std::string>> field_names_;
};

}  // namespace haloflow
