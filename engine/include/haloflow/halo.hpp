#pragma once
//! \file
//! \brief The geometry of one halo exchange: which boxes each rank sends and receives, where they
//! sit in the pinned buffers, which tags match them, and which owned cells can be computed before
//! the ghosts arrive.
//!
//! Plain data computed from a CartesianDecomposition, no MPI or CUDA: the pack/unpack kernels and
//! the host node that calls MPI both read the same HaloPlan, so they cannot disagree.

#include <cstdint>
#include <vector>

#include "haloflow/decomposition.hpp"

namespace haloflow {

//! \brief star: the stencil reads along the axes only (faces); box: also the diagonal cells
//! (faces, edges and corners).
enum class StencilShape { star, box };

//! \brief Which neighbouring cells a solver's update reads: it decides which directions are
//! exchanged and how thick the boundary slabs are.
//!
//! `axes` makes an exchange per direction: a sweep along x (`{.shape = StencilShape::star,
//! .radius = 2, .axes = {1, 0, 0}}`) reads no cell across y or z, so its plan has only the x
//! faces and its interior is cut only along x.
struct Stencil {
  StencilShape shape = StencilShape::star;  //!< faces only (star) or diagonals too (box)
  int radius = 1;                           //!< cells read on each side of every read axis
  //! 1 on the axes the stencil reads across, 0 on the others; each 0 or 1, with 1 on at least
  //! one active axis (axes beyond the decomposition's dimensions are ignored). Default: all.
  Coord3 axes{1, 1, 1};
};

//! \brief Storage of one rank's fields: each field is its own array of (nx+2g)(ny+2g)(nz+2g)
//! elements (g applied only on active axes, i.e. axes < dimensions), x fastest; owned cells at
//! [g, g+n).
struct FieldLayout {
  Index3 owned{1, 1, 1};  //!< cells this rank owns per axis (n), ghosts excluded
  int ghost_width = 1;    //!< ghost layers on each side of an active axis (g)
  int dimensions = 3;     //!< active axes, 1 to 3; the others get no ghosts
  int fields = 1;         //!< number of fields, each a separate array of this shape

  //! \brief Cells per axis with ghosts.
  [[nodiscard]] Index3 extent() const;
  //! \brief Elements of one field: the product of extent().
  [[nodiscard]] std::int64_t field_elements() const;
  //! \brief Element index of cell (i, j, k) within one field (ghost cells included).
  [[nodiscard]] std::int64_t offset(std::int64_t i, std::int64_t j, std::int64_t k) const;
  //! \brief [g, g+n) on active axes, [0, n) on the others.
  [[nodiscard]] Box owned_box() const;
};

//! \brief Tag code of a direction: (dx+1) + 3*(dy+1) + 9*(dz+1), from 0 to 26 (13 is no
//! direction). Unique per direction, so messages between the same two ranks never mix.
[[nodiscard]] int direction_code(Coord3 direction);

//! \brief One message to or from one neighbour direction. Boxes are in the local index space of
//! FieldLayout (ghosts included). All fields travel in the same message: the buffer holds field
//! 0's box elements (x fastest), then field 1's, and so on.
struct HaloMessage {
  Coord3 direction{0, 0, 0};        //!< towards the neighbour
  int peer = 0;                     //!< neighbour rank
  Box send;                         //!< owned cells the neighbour needs
  Box receive;                      //!< this rank's ghost cells it fills
  std::int64_t send_offset = 0;     //!< elements from the start of the send buffer
  std::int64_t receive_offset = 0;  //!< elements from the start of the receive buffer
  //! Elements of the whole message, all fields: fields * send.volume() (== fields *
  //! receive.volume()).
  std::int64_t elements = 0;
  int send_tag = 0;     //!< direction_code(direction): unique per direction within one exchange
  int receive_tag = 0;  //!< the tag the peer sends with: direction_code(-direction)
};

//! \brief One face of this rank at a physical boundary (the global edge of a `physical` axis):
//! no neighbour fills its ghosts, the solver does (add_wall_node, haloflow/walls.hpp).
struct WallFace {
  Coord3 direction{0, 0, 0};  //!< out of the domain: one nonzero component, -1 or +1
  //! The ghost cells beyond the face, in the local index space of FieldLayout: the ghost layers
  //! on that side along the wall's axis ([0, g) or [g+n, n+2g)), the owned range along the other
  //! active axes. Corners and edges (ghosts beyond two faces at once) are not included.
  Box ghosts;
};

//! \brief Everything one rank needs to exchange its ghosts: its storage layout and one message
//! per neighbour direction, packed back to back in one send and one receive buffer; and the
//! faces where it has no neighbour.
struct HaloPlan {
  FieldLayout layout;  //!< this rank's fields, with the plan's ghost width
  //! One per direction that has a neighbour, in increasing direction_code order.
  std::vector<HaloMessage> messages;
  //! One per face of an active axis where this rank has no neighbour (a physical boundary), in
  //! increasing direction_code order; whatever the stencil reads.
  std::vector<WallFace> walls;
  std::int64_t send_elements = 0;     //!< total, for the one pinned send buffer
  std::int64_t receive_elements = 0;  //!< total, for the one pinned receive buffer
};

//! \brief The messages of this rank's exchange: the 2*dimensions faces for a star stencil, all
//! 3^dimensions - 1 directions for a box stencil, except those across a physical boundary and
//! those that step along an axis the stencil does not read (`Stencil::axes`). Each carries
//! ghost_width layers. Also the plan's walls (HaloPlan::walls), whatever the stencil reads.
//! \throws Error when ghost_width < stencil.radius, radius < 1, stencil.axes is not 0 or 1 per
//! axis with 1 on an active axis, fields < 1, or a rank owns fewer cells than the ghost width on a
//! read, active axis that has neighbours (its ghost region would need cells from beyond the next
//! rank), each message naming the field and value. The last check looks at the smallest share on
//! the axis, so all ranks agree on it.
[[nodiscard]] HaloPlan make_halo_plan(const CartesianDecomposition& grid, const Stencil& stencil,
                                      int ghost_width, int fields);

//! \brief Owned cells split by whether they can be updated before the ghosts arrive.
//!
//! Interior = owned cells whose stencil (radius r on its read, active axes; for box stencils the
//! corner cells too, which changes nothing for the box shape) reads no ghost cell, i.e. the owned
//! box shrunk by r on each side of every active axis the stencil reads (`Stencil::axes`; empty if
//! too thin). Boundary = the rest of the
//! owned box as at most 2*dimensions disjoint boxes (slabs: x-low/x-high full in y,z; then y slabs
//! limited to the interior x range; then z slabs limited to interior x and y ranges), omitting
//! empty ones.
struct CellSplit {
  Box interior;               //!< never has hi < lo on an axis, even when empty
  std::vector<Box> boundary;  //!< disjoint non-empty slabs; with interior they tile the owned box
};

//! \throws Error when stencil.radius < 1 or exceeds layout.ghost_width, or for stencil.axes as
//! make_halo_plan refuses them.
[[nodiscard]] CellSplit split_owned_cells(const FieldLayout& layout, const Stencil& stencil);

//! \brief Splits any box `update` into the part inside `inner` (clamped into `update`) and up to
//! six slabs around it that tile the rest: the x slabs full in y and z, then the y slabs within
//! the interior's x range, then the z slabs within its x and y ranges; empty slabs omitted.
//! split_owned_cells is this with the owned box; a model that updates fewer cells than it owns
//! (fixed boundary columns) calls it with its own update box.
[[nodiscard]] CellSplit split_box(const Box& update, const Box& inner);

}  // namespace haloflow
