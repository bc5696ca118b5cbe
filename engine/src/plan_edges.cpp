// A plan's dependencies: the explicit edges, the ones its nodes' accesses imply (EdgeRule), and
// the problems accesses reveal (an edge strict mode misses, a launch too small for its writes).

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "haloflow/error.hpp"
#include "haloflow/plan.hpp"

namespace haloflow {
namespace {

using Reach = std::vector<std::vector<bool>>;  // reach[j][i]: node i runs before node j

// The first pair of accesses of nodes `a` and `b` that conflict (same field, a cell in common,
// at least one write): their positions and the cells both touch.
struct Conflict {
  std::size_t first_access = 0;
  std::size_t second_access = 0;
  Box cells;
};

// Whether two boxes share a cell, axis by axis (a volume could overflow for every_cell()).
bool overlap(const Box& a, const Box& b) {
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (std::max(a.lo[axis], b.lo[axis]) >= std::min(a.hi[axis], b.hi[axis])) return false;
  }
  return true;
}

// Cells of `box`, saturating rather than overflowing (every_cell() is huge).
std::int64_t cells_in(const Box& box) {
  constexpr std::int64_t kMost = std::int64_t{1} << 62;
  std::int64_t cells = 1;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const std::int64_t side = std::max<std::int64_t>(0, box.hi[axis] - box.lo[axis]);
    if (side == 0) return 0;
    cells = cells > kMost / side ? kMost : cells * side;
  }
  return cells;
}

std::optional<Conflict> conflict(const Node& a, const Node& b) {
  const auto& left = a.options.access;
  const auto& right = b.options.access;
  for (std::size_t i = 0; i < left.size(); ++i) {
    for (std::size_t j = 0; j < right.size(); ++j) {
      if (left[i].field != right[j].field) continue;
      if (left[i].mode == AccessMode::read && right[j].mode == AccessMode::read) continue;
      if (overlap(left[i].box, right[j].box)) {
        return Conflict{i, j, intersection(left[i].box, right[j].box)};
      }
    }
  }
  return std::nullopt;
}

// Transitive closure of `deps`: reach[j][i] when i is an ancestor of j. Relaxed until nothing
// changes, so it holds for edges in any direction (a cycle only makes nodes their own ancestors,
// which topological_order reports).
Reach closure(const std::vector<std::vector<std::size_t>>& deps) {
  const std::size_t n = deps.size();
  Reach reach(n, std::vector<bool>(n, false));
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t j = 0; j < n; ++j) {
      for (const std::size_t d : deps[j]) {
        if (!reach[j][d]) reach[j][d] = changed = true;
        for (std::size_t i = 0; i < n; ++i) {
          if (reach[d][i] && !reach[j][i]) reach[j][i] = changed = true;
        }
      }
    }
  }
  return reach;
}

// Records the edge i -> j in `reach`: j and everything after it now run after i and i's ancestors.
void add_to_reach(Reach& reach, std::size_t i, std::size_t j) {
  const std::size_t n = reach.size();
  for (std::size_t k = 0; k < n; ++k) {
    if (k != j && !reach[k][j]) continue;
    reach[k][i] = true;
    for (std::size_t a = 0; a < n; ++a) {
      if (reach[i][a]) reach[k][a] = true;
    }
  }
}

std::string describe(const Box& box) {
  if (box == every_cell()) return "all cells";
  return fmt::format("x [{}, {}) y [{}, {}) z [{}, {})", box.lo[0], box.hi[0], box.lo[1], box.hi[1],
                     box.lo[2], box.hi[2]);
}

}  // namespace

void FramePlan::name_field(const void* field, std::string name) {
  for (auto& [address, known] : field_names_) {
    if (address == field) {
      known = std::move(name);
      return;
    }
  }
  field_names_.emplace_back(field, std::move(name));
}

bool FramePlan::names_field(const void* field) const {
  return std::any_of(field_names_.begin(), field_names_.end(),
                     [&](const auto& named) { return named.first == field; });
}

std::string FramePlan::field_name(const void* field) const {
  for (const auto& [address, name] : field_names_) {
    if (address == field) return name;
  }
  return fmt::format("at {}", field);
}

std::vector<std::vector<std::size_t>> FramePlan::explicit_dependencies() const {
  std::map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < nodes_.size(); ++i) index.emplace(nodes_[i].name(), i);
  std::vector<std::vector<std::size_t>> deps(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (const auto& dependency : nodes_[i].options.after) {
      const auto it = index.find(dependency);
      if (it == index.end()) {
        throw Error(
            fmt::format("node '{}' depends on unknown node '{}'", nodes_[i].name(), dependency));
      }
      if (std::find(deps[i].begin(), deps[i].end(), it->second) == deps[i].end()) {
        deps[i].push_back(it->second);
      }
    }
  }
  return deps;
}

std::vector<std::vector<std::size_t>> FramePlan::dependencies() const {
  auto deps = explicit_dependencies();
  if (edges_ == EdgeRule::accesses) {
    // Nodes that declare accesses are ordered by them alone; the others (joins, host work that
    // says nothing) keep their explicit edges, since nothing else orders them.
    for (std::size_t j = 0; j < nodes_.size(); ++j) {
      if (!nodes_[j].options.access.empty()) deps[j].clear();
    }
  }
  if (edges_ != EdgeRule::strict) {
    // Nodes in insertion order, each against the earlier ones from the nearest back: an edge
    // from every earlier node it conflicts with that does not already run before it (nor after
    // it, where explicit edges say so), so that only edges no other implies are added.
    Reach reach = closure(deps);
    for (std::size_t j = 0; j < nodes_.size(); ++j) {
      if (nodes_[j].options.access.empty()) continue;
      for (std::size_t i = j; i-- > 0;) {
        if (reach[j][i] || reach[i][j] || !conflict(nodes_[i], nodes_[j])) continue;
        deps[j].push_back(i);
        add_to_reach(reach, i, j);
      }
    }
  }
  for (auto& list : deps) std::sort(list.begin(), list.end());
  return deps;
}

std::vector<std::string> FramePlan::access_problems() const {
  std::vector<std::string> problems;
  const auto field_label = [&](const Access& access) {
    return access.name.empty() ? field_name(access.field) : access.name;
  };
  for (const Node& node : nodes_) {
    for (const Access& access : node.options.access) {
      if (access.field == nullptr) {
        problems.push_back(fmt::format("node '{}' declares a {} of a null field ({})", node.name(),
                                       to_string(access.mode), describe(access.box)));
      }
    }
    // A launch that reaches fewer cells than the node writes of one field leaves some unwritten:
    // on the GPU and (its host twin honouring the shape) on the host alike.
    const auto* kernel = std::get_if<KernelWork>(&node.work);
    if (kernel == nullptr || !kernel->reach) continue;
    struct Written {
      std::int64_t cells = 0;
      int boxes = 0;
      Box first;
    };
    std::map<const void*, Written> written;
    for (const Access& access : node.options.access) {
      if (access.mode != AccessMode::write) continue;
      Written& field = written[access.field];
      if (field.boxes++ == 0) field.first = access.box;
      field.cells = std::min(field.cells + cells_in(access.box), std::int64_t{1} << 62);
    }
    const std::uint64_t reached = kernel->reach(kernel->shape, kernel->args);
    for (const auto& [field, total] : written) {
      if (static_cast<std::uint64_t>(total.cells) <= reached) continue;
      problems.push_back(fmt::format(
          "kernel '{}' declares it writes {} cells of field {} ({}{}) but its launch ({} blocks "
          "of {} threads) reaches {} of them; allowed: a launch that reaches every cell it "
          "writes, e.g. LaunchShape::cover(cells, block)",
          node.name(), total.cells, field_name(field),
          total.boxes > 1 ? fmt::format("{} boxes, the first ", total.boxes) : "",
          describe(total.first), kernel->shape.grid.volume(), kernel->shape.block.volume(),
          reached));
    }
  }
  if (edges_ != EdgeRule::strict || !problems.empty()) return problems;
  // Strict: every conflict must be ordered by the explicit edges, one way or the other.
  const Reach reach = closure(explicit_dependencies());
  for (std::size_t j = 0; j < nodes_.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      if (reach[j][i] || reach[i][j]) continue;
      const auto found = conflict(nodes_[i], nodes_[j]);
      if (!found) continue;
      const Access& first = nodes_[i].options.access[found->first_access];
      const Access& second = nodes_[j].options.access[found->second_access];
      problems.push_back(fmt::format(
          "nodes '{}' and '{}' both touch field {} at {} ('{}' {}s, '{}' {}s) but neither runs "
          "after the other: add '{}' to the `after` of '{}', or let the plan derive its edges "
          "(EdgeRule::derive)",
          nodes_[i].name(), nodes_[j].name(), field_label(first), describe(found->cells),
          nodes_[i].name(), to_string(first.mode), nodes_[j].name(), to_string(second.mode),
          nodes_[i].name(), nodes_[j].name()));
    }
  }
  return problems;
}

}  // namespace haloflow
