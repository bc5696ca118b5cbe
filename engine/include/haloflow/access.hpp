#pragma once
//! \file
//! \brief What a node reads and writes, as (field, box) pairs, and how a plan turns them into
//! dependencies.
//!
//! A field is named by the address of its array (the pointer the kernel gets); a box is in that
//! array's local index space (FieldLayout's, ghosts included), so the boxes of HaloPlan and
//! CellSplit are what accesses are made of. Two accesses conflict when they name the same field,
//! their boxes share a cell and at least one writes: their nodes must then run in some order,
//! which the plan either derives (in insertion order) or checks (EdgeRule).

#include <optional>
#include <string>
#include <string_view>

#include "haloflow/decomposition.hpp"

namespace haloflow {

//! \brief Whether a node reads or writes the cells of an access. A node that does both to the
//! same cells declares both.
enum class AccessMode { read, write };

//! \brief "read" or "write".
[[nodiscard]] std::string_view to_string(AccessMode mode);

//! \brief Cells of one field a node reads or writes.
struct Access {
  const void* field = nullptr;         //!< the field's array (its first element); not null
  Box box;                             //!< cells, in the field's local index space
  AccessMode mode = AccessMode::read;  //!< read or write
  //! How messages name the field; empty: the name FramePlan::name_field gave its address, or the
  //! address itself.
  std::string name;
};

//! \brief `node reads `box` of `field``: `haloflow::reads(u, box)`.
template <class T>
[[nodiscard]] Access reads(const T* field, const Box& box, std::string name = {}) {
  return {static_cast<const void*>(field), box, AccessMode::read, std::move(name)};
}
//! \brief `node writes `box` of `field``: `haloflow::writes(u_new, box)`.
template <class T>
[[nodiscard]] Access writes(const T* field, const Box& box, std::string name = {}) {
  return {static_cast<const void*>(field), box, AccessMode::write, std::move(name)};
}

//! \brief The cells `count` elements of a one-dimensional buffer span: [0, count) along x. How a
//! buffer that is not a field (a halo's send buffer) is named in an access.
[[nodiscard]] Box buffer_cells(std::int64_t count);

//! \brief `box` widened by `by[axis]` cells on both sides of each axis: the cells a stencil of
//! that reach reads around the cells it updates (`grown(box, {1, 1, 0})` for a 2D star).
[[nodiscard]] Box grown(const Box& box, const Coord3& by);

//! \brief A box that overlaps every other: an access to all of a field, whatever its layout (a
//! copy node's, which moves bytes, not cells).
[[nodiscard]] Box every_cell();

//! \brief The box both `a` and `b` contain; empty (volume 0) when they share no cell.
[[nodiscard]] Box intersection(const Box& a, const Box& b);

//! \brief How a plan's dependencies follow from its nodes' accesses.
enum class EdgeRule {
  //! The explicit edges (NodeOptions::after) and, for every pair of conflicting accesses the
  //! explicit edges leave unordered, an edge from the node added first to the other (the
  //! default). Only edges not implied by others are added.
  derive,
  //! The explicit edges only; a plan whose explicit edges leave a conflict unordered is refused,
  //! the message naming both nodes, the field and the cells both touch.
  strict,
  //! The edges the accesses imply, and explicit edges only into nodes that declare no access
  //! (joins, host work that says nothing): what `derive` would make of the plan without its
  //! hand-written edges, to check that the accesses describe it fully (the models' graphs are
  //! the same either way).
  accesses,
};

//! \brief "derive", "strict" or "accesses".
[[nodiscard]] std::string_view to_string(EdgeRule rule);
//! \brief Parses "derive", "strict" or "accesses".
[[nodiscard]] std::optional<EdgeRule> edge_rule_from_string(std::string_view text);
//! \brief What the environment variable HALOFLOW_EDGES says, so that a user's binary runs its
//! plans under another rule without recompiling; empty when it is unset or empty.
//! \throws Error naming the variable, its value and what is allowed.
[[nodiscard]] std::optional<EdgeRule> edge_rule_from_environment();

}  // namespace haloflow
