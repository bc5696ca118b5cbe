#pragma once
//! \file
//! \brief Physical boundaries: a kernel node that fills the ghost cells beyond the walls of a
//! HaloPlan (HaloPlan::walls, the faces where a rank has no neighbour) by a rule per field.
//!
//! The node is one kernel for every wall face and every field of a set, with a host twin, so the
//! host executor runs it as the GPU executors do. A rank without walls (or with none along the
//! axes asked for) gets an empty node of the same name, so that every rank's plan has the same
//! node names.

#include <cstdint>
#include <span>

#include "haloflow/halo.hpp"
#include "haloflow/kernel.hpp"
#include "haloflow/plan.hpp"

namespace haloflow {

//! \brief How the ghost layers beyond a wall are filled; layer l counts from the wall (0 is the
//! layer next to it), and the owned layers likewise from the other side.
enum class WallRule {
  zero_gradient,    //!< every ghost layer = the nearest owned layer (no flux by diffusion)
  reflect,          //!< ghost layer l = owned layer l (a mirror at the wall)
  reflect_negated,  //!< ghost layer l = -(owned layer l): a no-penetration velocity component
  fixed,            //!< every ghost cell = FieldWall::value
};

//! \brief The wall rule of one field.
struct FieldWall {
  WallRule rule = WallRule::zero_gradient;  //!< how its ghosts are filled
  double value = 0;                         //!< the ghost value of WallRule::fixed, else unused
};

//! \brief Wall faces one wall node fills: at most the 6 of a 3D rank.
inline constexpr int kWallFaces = 6;
//! \brief Fields one wall node fills: at most 8 (their pointers travel in the kernel's
//! parameters, like kInlineHaloFields).
inline constexpr int kWallFields = 8;

//! \brief One face of a wall node, as its kernel sees it.
struct WallSegment {
  std::int64_t offset = 0;             //!< first element (ghost cell) of this face in the node
  std::int64_t lower[3] = {0, 0, 0};   //!< first ghost cell, local index space with ghosts
  std::int64_t extent[3] = {1, 1, 1};  //!< ghost cells per axis, each >= 1
  std::int64_t wall = 0;  //!< the index where the owned cells start (low) or end (high)
  std::int32_t axis = 0;  //!< the wall's axis
  std::int32_t side = 0;  //!< -1: a low wall (ghosts below `wall`), +1: a high one
};

//! \brief The faces of one wall node, sorted by `offset`; passed by value.
struct WallSegments {
  int count = 0;                       //!< faces, 1 to kWallFaces in a launched node
  WallSegment items[kWallFaces] = {};  //!< the faces
};

//! \brief The fields of one wall node and their rules, passed by value.
template <class T>
struct WallFields {
  int count = 0;                         //!< fields, 1 to kWallFields
  T* fields[kWallFields] = {};           //!< one pointer per field, each laid out as the plan's
  std::int32_t rules[kWallFields] = {};  //!< WallRule per field, as an integer
  T values[kWallFields] = {};            //!< the value of WallRule::fixed per field
  std::int64_t stride_y = 0;             //!< elements between rows
  std::int64_t stride_z = 0;             //!< elements between planes
};

//! wall(elements, faces, fields): each ghost cell of each face, for every field, by its rule.
template <class T>
KernelRef<std::size_t, WallSegments, WallFields<T>> wall_kernel();

//! \brief Adds ONE kernel node that fills the wall ghosts (HaloPlan::walls) of every field of
//! `fields` on the wall faces along `axes` (1: that axis's walls; default all) by `rules`: one
//! per field, or one for all. Each field is one array laid out as `halo.layout` (device memory
//! under the GPU executors, host memory under the host executor). Only the ghosts of
//! WallFace::ghosts are written: corners (beyond two walls at once) are not. A rank with no wall
//! along `axes` gets an empty node named `options.name`, so every rank has the same node names.
//! \throws Error for no field or more than kWallFields, a rules count that is neither 1 nor the
//! fields', a null field, axes not 0 or 1, or a reflecting rule on a rank that owns fewer cells
//! than the ghost width along a wall's axis, each message naming the field, value and limit.
//! Defined for T = float and double.
template <class T>
void add_wall_node(FramePlan& plan, NodeOptions options, const HaloPlan& halo,
                   std::span<T* const> fields, std::span<const FieldWall> rules,
                   Coord3 axes = {1, 1, 1});

}  // namespace haloflow
