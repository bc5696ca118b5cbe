#include "haloflow/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "haloflow/error.hpp"
#include "spelling.hpp"

namespace haloflow {

std::string_view to_string(Lane lane) {
  return lane == Lane::bulk ? "bulk" : "communication";
}

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::kernel:
      return "kernel";
    case NodeKind::copy:
      return "copy";
    case NodeKind::host:
      return "host";
    case NodeKind::empty:
      return "empty";
    case NodeKind::stream:
      return "stream";
  }
  return "unknown";
}

std::string_view to_string(CopyKind kind) {
  switch (kind) {
    case CopyKind::device_to_host:
      return "device to host";
    case CopyKind::host_to_device:
      return "host to device";
    case CopyKind::device_to_device:
      return "device to device";
  }
  return "unknown";
}

std::optional<CopyKind> CopyWork::kind() const {
  const bool from_device = source.memory == Memory::device;
  const bool to_device = destination.memory == Memory::device;
  if (from_device && to_device) return CopyKind::device_to_device;
  if (from_device) return CopyKind::device_to_host;
  if (to_device) return CopyKind::host_to_device;
  return std::nullopt;
}

FramePlan::FramePlan(std::string name, EdgeRule edges) : name_(std::move(name)), edges_(edges) {}

std::size_t FramePlan::append(
    NodeOptions options, std::variant<KernelWork, CopyWork, HostWork, EmptyWork, StreamWork> work) {
  nodes_.push_back(Node{std::move(options), std::move(work)});
  return nodes_.size() - 1;
}

void FramePlan::add_copy(NodeOptions options, BufferView destination, BufferView source,
                         std::size_t bytes) {
  if (options.access.empty() && source.data != nullptr && destination.data != nullptr) {
    // Bytes are not cells: the copy is taken to touch all of both buffers.
    options.access = {reads(static_cast<const char*>(source.data), every_cell()),
                      writes(static_cast<const char*>(destination.data), every_cell())};
  }
  append(std::move(options), CopyWork{std::move(destination), std::move(source), bytes});
}

void FramePlan::add_host(NodeOptions options, std::function<void()> run) {
  append(std::move(options), HostWork{std::move(run)});
}

void FramePlan::add_split_host(NodeOptions options, std::function<void()> post,
                               std::function<void()> finish) {
  auto run = [post, finish] {
    post();
    finish();
  };
  append(std::move(options), HostWork{std::move(run), std::move(post), std::move(finish)});
}

void FramePlan::add_empty(NodeOptions options) {
  append(std::move(options), EmptyWork{});
}

void FramePlan::add_stream_work(NodeOptions options, std::function<void(CUstream_st*)> issue,
                                std::function<void()> check) {
  append(std::move(options), StreamWork{std::move(issue), std::move(check)});
}

std::optional<std::size_t> FramePlan::find(std::string_view name) const {
  const auto it = std::find_if(nodes_.begin(), nodes_.end(),
                               [&](const Node& node) { return node.name() == name; });
  if (it == nodes_.end()) return std::nullopt;
  return static_cast<std::size_t>(it - nodes_.begin());
}

namespace {

void check_copy(const Node& node, const CopyWork& copy, std::vector<std::string>& problems) {
  const auto side = [&](const BufferView& view, std::string_view role) {
    const std::string label =
        view.name.empty() ? std::string(role) : fmt::format("'{}'", view.name);
    if (view.data == nullptr) {
      problems.push_back(
          fmt::format("copy '{}': its {} {} is a null pointer", node.name(), role, label));
    } else if (copy.bytes > view.bytes) {
      problems.push_back(fmt::format("copy '{}' moves {} bytes but its {} {} holds {} bytes",
                                     node.name(), copy.bytes, role, label, view.bytes));
    }
  };
  if (copy.bytes == 0) problems.push_back(fmt::format("copy '{}' moves 0 bytes", node.name()));
  side(copy.source, "source");
  side(copy.destination, "destination");
  if (!copy.kind()) {
    problems.push_back(fmt::format(
        "copy '{}' is host to host; allowed: device to host, host to device, device to device "
        "(do host-side copies in a host node)",
        node.name()));
  }
}

void check_work(const Node& node, std::vector<std::string>& problems) {
  if (const auto* kernel = std::get_if<KernelWork>(&node.work)) {
    if (kernel->device_entry == nullptr && !kernel->host) {
      problems.push_back(
          fmt::format("kernel '{}' has neither a device entry nor a host twin", node.name()));
    }
    if (kernel->shape.grid.volume() == 0 || kernel->shape.block.volume() == 0) {
      problems.push_back(fmt::format("kernel '{}' has an empty launch ({} blocks of {} threads)",
                                     node.name(), kernel->shape.grid.volume(),
                                     kernel->shape.block.volume()));
    }
  } else if (const auto* copy = std::get_if<CopyWork>(&node.work)) {
    check_copy(node, *copy, problems);
  } else if (const auto* stream = std::get_if<StreamWork>(&node.work)) {
    if (!stream->issue) {
      problems.push_back(fmt::format("stream node '{}' has no function", node.name()));
    }
  } else if (const auto* host = std::get_if<HostWork>(&node.work)) {
    if (!host->run) problems.push_back(fmt::format("host node '{}' has no function", node.name()));
    if (static_cast<bool>(host->post) != static_cast<bool>(host->finish)) {
      problems.push_back(
          fmt::format("host node '{}' has only one of its post and finish phases", node.name()));
    }
  }
}

// Names along one cycle among `remaining` nodes (those Kahn's algorithm could not order).
std::string describe_cycle(const FramePlan& plan, const std::vector<std::vector<std::size_t>>& deps,
                           const std::vector<bool>& remaining) {
  std::size_t start = 0;
  while (!remaining[start]) ++start;
  // Walk dependencies inside the remaining set until a node repeats: that closes a cycle.
  std::vector<std::size_t> walk{start};
  std::map<std::size_t, std::size_t> seen_at{{start, 0}};
  for (;;) {
    const auto& candidates = deps[walk.back()];
    const auto next = *std::find_if(candidates.begin(), candidates.end(),
                                    [&](std::size_t d) { return remaining[d]; });
    if (const auto it = seen_at.find(next); it != seen_at.end()) {
      std::string text;
      // Dependencies point backwards in time; print the cycle in execution order.
      for (std::size_t i = walk.size(); i-- > it->second;) {
        text += fmt::format("'{}' -> ", plan.node(walk[i]).name());
      }
      return text + fmt::format("'{}'", plan.node(walk.back()).name());
    }
    seen_at[next] = walk.size();
    walk.push_back(next);
  }
}

}  // namespace

std::vector<std::string> FramePlan::problems() const {
  std::vector<std::string> problems;
  if (nodes_.empty()) problems.push_back(fmt::format("plan '{}' has no nodes", name_));
  std::map<std::string, std::size_t> first_index;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& node = nodes_[i];
    if (node.name().empty()) {
      problems.push_back(fmt::format("node #{} ({}) has an empty name", i, to_string(node.kind())));
    } else if (const auto [it, fresh] = first_index.emplace(node.name(), i); !fresh) {
      problems.push_back(fmt::format("node name '{}' is used twice (nodes #{} and #{})",
                                     node.name(), it->second, i));
    }
    names.push_back(node.name());
    check_work(node, problems);
  }
  for (const Node& node : nodes_) {
    for (const auto& dependency : node.options.after) {
      if (dependency == node.name()) {
        problems.push_back(fmt::format("node '{}' depends on itself", node.name()));
      } else if (!first_index.contains(dependency)) {
        const auto hint = detail::closest_match(dependency, names);
        problems.push_back(fmt::format("node '{}' depends on '{}', which is not in plan '{}'{}",
                                       node.name(), dependency, name_,
                                       hint ? fmt::format(" (did you mean '{}'?)", *hint) : ""));
      }
    }
  }
  if (problems.empty()) {
    problems = access_problems();
    try {
      (void)topological_order();
    } catch (const Error& cycle) {
      problems.emplace_back(cycle.what());
    }
  }
  return problems;
}

void FramePlan::validate() const {
  const auto found = problems();
  if (found.empty()) return;
  std::string message = fmt::format("plan '{}' is invalid:", name_);
  for (const auto& problem : found) message += "\n  - " + problem;
  throw Error(message);
}

std::vector<std::size_t> FramePlan::topological_order() const {
  const auto deps = dependencies();
  std::vector<std::size_t> waiting_on(nodes_.size());
  std::vector<std::vector<std::size_t>> dependents(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    waiting_on[i] = deps[i].size();
    for (const std::size_t d : deps[i]) dependents[d].push_back(i);
  }
  // Ready nodes in insertion order, so the order (and so every executor) is deterministic.
  std::set<std::size_t> ready;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (waiting_on[i] == 0) ready.insert(i);
  }
  std::vector<std::size_t> order;
  order.reserve(nodes_.size());
  while (!ready.empty()) {
    const std::size_t next = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(next);
    for (const std::size_t dependent : dependents[next]) {
      if (--waiting_on[dependent] == 0) ready.insert(dependent);
    }
  }
  if (order.size() != nodes_.size()) {
    std::vector<bool> remaining(nodes_.size(), true);
    for (const std::size_t done : order) remaining[done] = false;
    throw Error(
        fmt::format("plan '{}' has a cycle: {}", name_, describe_cycle(*this, deps, remaining)));
  }
  return order;
}

std::string FramePlan::to_dot() const {
  const auto quoted = [](std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
      if (c == '\n') {
        out += "\\n";  // DOT's own line break inside a label
        continue;
      }
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  };
  std::string dot =
      fmt::format("digraph {} {{\n  rankdir=LR;\n  node [style=filled];\n", quoted(name_));
  for (const Node& node : nodes_) {
    std::string detail{to_string(node.kind())};
    std::string shape = "box";
    if (const auto* kernel = std::get_if<KernelWork>(&node.work)) {
      detail = fmt::format("kernel {}", kernel->label);
    } else if (const auto* copy = std::get_if<CopyWork>(&node.work)) {
      const auto kind = copy->kind();
      detail = fmt::format("copy {} B, {}", copy->bytes, kind ? to_string(*kind) : "host to host");
      shape = "parallelogram";
    } else if (node.kind() == NodeKind::host) {
      shape = "ellipse";
    } else if (node.kind() == NodeKind::stream) {
      shape = "hexagon";
    } else {
      shape = "point";
    }
    const std::string_view colour =
        node.lane() == Lane::communication ? "lightsalmon" : "lightblue";
    dot += fmt::format(
        "  {} [shape={}, fillcolor={}, label={}];\n", quoted(node.name()), shape, colour,
        quoted(fmt::format("{}\n{} ({})", node.name(), detail, to_string(node.lane()))));
  }
  // The edges the executors follow (derived ones included); a plan whose names do not resolve
  // shows its explicit edges as written.
  std::optional<std::vector<std::vector<std::size_t>>> deps;
  try {
    deps = dependencies();
  } catch (const Error&) {
  }
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (deps) {
      for (const std::size_t d : (*deps)[i]) {
        dot += fmt::format("  {} -> {};\n", quoted(nodes_[d].name()), quoted(nodes_[i].name()));
      }
    } else {
      for (const auto& dependency : nodes_[i].options.after) {
        dot += fmt::format("  {} -> {};\n", quoted(dependency), quoted(nodes_[i].name()));
      }
    }
  }
  return dot + "}\n";
}

FramePlan FramePlan::only(Lane lane) const {
  const auto deps = dependencies();
  // Nearest kept ancestors of node i: walk through dropped nodes, stop at kept ones.
  const auto kept_ancestors = [&](std::size_t i) {
    std::vector<std::string> found;
    std::vector<std::size_t> stack(deps[i].begin(), deps[i].end());
    std::set<std::size_t> visited;
    while (!stack.empty()) {
      const std::size_t d = stack.back();
      stack.pop_back();
      if (!visited.insert(d).second) continue;
      if (nodes_[d].lane() == lane) {
        found.push_back(nodes_[d].name());
      } else {
        stack.insert(stack.end(), deps[d].begin(), deps[d].end());
      }
    }
    std::sort(found.begin(), found.end());
    return found;
  };
  // Every ordering of the kept nodes is in their explicit edges now: nothing more to derive.
  FramePlan subset(fmt::format("{}:{}", name_, to_string(lane)), EdgeRule::derive);
  subset.field_names_ = field_names_;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].lane() != lane) continue;
    Node copy = nodes_[i];
    copy.options.after = kept_ancestors(i);
    subset.nodes_.push_back(std::move(copy));
  }
  return subset;
}

}  // namespace haloflow
