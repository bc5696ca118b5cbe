#include "haloflow/frame.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>

#include "executor.hpp"
#include "gpu_ports.hpp"
#include "haloflow/error.hpp"

namespace haloflow {

namespace {
constexpr std::array kExecutorNames{
    std::pair{ExecutorKind::graph, "graph"}, std::pair{ExecutorKind::streams, "streams"},
    std::pair{ExecutorKind::serial, "serial"}, std::pair{ExecutorKind::host, "host"}};
constexpr std::array kHandoffNames{std::pair{Handoff::automatic, "auto"},
                                   std::pair{Handoff::host_node, "host-node"},
                                   std::pair{Handoff::proxy, "proxy"}};
}  // namespace

std::string_view to_string(Handoff handoff) {
  for (const auto& [each, name] : kHandoffNames) {
    if (each == handoff) return name;
  }
  return "unknown";
}

std::optional<Handoff> handoff_from_string(std::string_view text) {
  for (const auto& [each, name] : kHandoffNames) {
    if (text == name) return each;
  }
  return std::nullopt;
}

std::string_view to_string(ExecutorKind kind) {
  for (const auto& [each, name] : kExecutorNames) {
    if (each == kind) return name;
  }
  return "unknown";
}

std::optional<ExecutorKind> executor_from_string(std::string_view text) {
  for (const auto& [each, name] : kExecutorNames) {
    if (text == name) return each;
  }
  return std::nullopt;
}

namespace {

// The failures of every frame of the process not yet reported: how many, and the first's text.
struct UnreportedFailures {
  std::mutex mutex;
  std::string first;
  int count = 0;
  std::atomic<bool> any{false};  // count > 0, read without the lock on every host callback
};

UnreportedFailures& unreported() {
  static UnreportedFailures failures;
  return failures;
}

}  // namespace

HostNodeFailures::~HostNodeFailures() {
  const std::lock_guard lock(mutex_);
  forget();
}

void HostNodeFailures::record(const std::string& node, const std::string& what) noexcept {
  try {
    const std::lock_guard lock(mutex_);
    if (!first_.empty()) return;
    first_ = fmt::format("host node '{}' failed: {}", node, what);
    pending_.store(true, std::memory_order_release);
    UnreportedFailures& process = unreported();
    const std::lock_guard process_lock(process.mutex);
    if (process.count++ == 0) process.first = first_;
    process.any.store(true, std::memory_order_release);
  } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory while reporting; nothing left
  }
}

void HostNodeFailures::forget() noexcept {
  if (!pending_.load(std::memory_order_acquire)) return;
  pending_.store(false, std::memory_order_release);
  UnreportedFailures& process = unreported();
  const std::lock_guard process_lock(process.mutex);
  if (--process.count == 0) {
    process.first.clear();
    process.any.store(false, std::memory_order_release);
  }
}

void HostNodeFailures::rethrow() {
  std::string message;
  {
    const std::lock_guard lock(mutex_);
    message.swap(first_);
    forget();
  }
  if (!message.empty()) throw Error(message);
}

std::string HostNodeFailures::unreported_anywhere() {
  UnreportedFailures& process = unreported();
  if (!process.any.load(std::memory_order_acquire)) return {};
  const std::lock_guard lock(process.mutex);
  return process.first;
}

void HostCallback::invoke(void* data) noexcept {
  auto* callback = static_cast<HostCallback*>(data);
  // A failure not yet reported means this run has failed already: do not wait on a peer again.
  // One in another frame fails this frame too, so that no frame ends as if its work was done.
  if (!callback->failures->pending()) {
    try {
      if (const std::string earlier = HostNodeFailures::unreported_anywhere(); !earlier.empty()) {
        callback->failures->record(*callback->node,
                                   "not run: the run failed already (" + earlier + ")");
      } else {
        (*callback->run)();
      }
    } catch (const std::exception& error) {
      callback->failures->record(*callback->node, error.what());
    } catch (...) {
      callback->failures->record(*callback->node, "an exception that is not a std::exception");
    }
  }
  if (callback->calls != nullptr) callback->calls->fetch_add(1, std::memory_order_release);
}

struct Frame::State {
  State(FramePlan p, ExecutorKind k, FrameOptions o) : plan(std::move(p)), kind(k), options(o) {}
  FramePlan plan;
  ExecutorKind kind;
  FrameOptions options;
  std::vector<std::size_t> checked;  // nodes with a check, asked at launch and wait
  std::uint64_t updates = 0;         // kernel-parameter updates taken
  HostNodeFailures failures;
  std::unique_ptr<Executor> executor;  // declared last: destroyed first, while the plan lives
};

Frame::Frame(FramePlan plan, ExecutorKind kind, FrameOptions options)
    : state_(std::make_unique<State>(std::move(plan), kind, options)) {
  if (const auto rule = options.edges ? options.edges : edge_rule_from_environment()) {
    state_->plan.set_edges(*rule);
  }
  state_->plan.validate();
  for (std::size_t i = 0; i < state_->plan.nodes().size(); ++i) {
    const Node& node = state_->plan.node(i);
    const auto* stream = std::get_if<StreamWork>(&node.work);
    const auto* kernel = std::get_if<KernelWork>(&node.work);
    if ((stream != nullptr && stream->check) || (kernel != nullptr && kernel->check)) {
      state_->checked.push_back(i);
    }
  }
  switch (kind) {
    case ExecutorKind::graph:
      state_->executor = make_graph_executor(state_->plan, state_->failures, state_->options);
      break;
    case ExecutorKind::streams:
      state_->executor = make_stream_executor(state_->plan, 2, state_->failures);
      break;
    case ExecutorKind::serial:
      state_->executor = make_stream_executor(state_->plan, 1, state_->failures);
      break;
    case ExecutorKind::host:
      state_->executor = make_host_executor(
          state_->plan, state_->options.host_order.value_or(HostOrdering::from_environment()));
      break;
  }
}

Frame::~Frame() = default;
Frame::Frame(Frame&&) noexcept = default;
Frame& Frame::operator=(Frame&&) noexcept = default;

std::size_t Frame::locate(std::size_t index, std::string_view name,
                          const std::type_info& params) const {
  const FramePlan& plan = state_->plan;
  // The handle's index is right unless it came from another plan (e.g. a lane subset).
  std::optional<std::size_t> found = index;
  if (index >= plan.nodes().size() || plan.node(index).name() != name) found = plan.find(name);
  if (!found) {
    throw Error(fmt::format("update of kernel node '{}': frame '{}' has no node of that name", name,
                            plan.name()));
  }
  const auto* kernel = std::get_if<KernelWork>(&plan.node(*found).work);
  if (kernel == nullptr) {
    throw Error(fmt::format(
        "update of kernel node '{}' in frame '{}': that node is not a kernel (kind: {})", name,
        plan.name(), to_string(plan.node(*found).kind())));
  }
  if (!kernel->args.holds(params)) {
    throw Error(fmt::format(
        "update of kernel node '{}' in frame '{}': the handle's parameter list does not match "
        "the node's kernel '{}'",
        name, plan.name(), kernel->label));
  }
  return *found;
}

KernelArgs& Frame::kernel_args(std::size_t index) {
  return std::get<KernelWork>(state_->plan.node(index).work).args;
}

void Frame::patched(std::size_t index) {
  state_->executor->kernel_args_changed(index);
  ++state_->updates;
}

void Frame::launch() {
  launch(nullptr);
}

void Frame::launch(CUstream_st* stream) {
  before_launch();
  state_->executor->launch(stream);
}

void Frame::before_launch() {
  // A host node of an earlier launch failed: report it now rather than queue more frames that
  // would skip their host work anyway.
  if (state_->failures.pending()) {
    state_->executor->wait();
    state_->failures.rethrow();
  }
  check_nodes();
}

void Frame::wait() {
  state_->executor->wait();
  state_->failures.rethrow();
  check_nodes();
}

void Frame::check_nodes() const {
  for (const std::size_t index : state_->checked) {
    const Node& node = state_->plan.node(index);
    try {
      if (const auto* kernel = std::get_if<KernelWork>(&node.work)) {
        kernel->check();
      } else {
        std::get<StreamWork>(node.work).check();
      }
    } catch (const std::exception& error) {
      throw Error(fmt::format("{} node '{}' failed: {}", to_string(node.kind()), node.name(),
                              error.what()));
    }
  }
}

void Frame::run() {
  launch();
  wait();
}

const FramePlan& Frame::plan() const {
  return state_->plan;
}

ExecutorKind Frame::executor() const {
  return state_->kind;
}

const FrameOptions& Frame::options() const {
  return state_->options;
}

std::uint64_t Frame::updates() const {
  return state_->updates;
}

Executor& detail::executor_of(Frame& frame) {
  return *frame.state_->executor;
}

}  // namespace haloflow
