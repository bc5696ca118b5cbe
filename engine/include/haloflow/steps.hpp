#pragma once
//! \file
//! \brief Frames of k steps (communication-avoiding time steps): from what one step of a stencil
//! update reads and where a rank sits, the ghost depth, the exchange and the region each sub-step
//! computes when one halo exchange serves k steps.
//!
//! With ghosts k * r deep (r the radius one step reads), a rank exchanges once and then takes k
//! steps on its own: sub-step s (1..k) computes its owned box grown by (k - s) * r along the axes
//! that exchange, so that sub-step s + 1 finds every cell it reads; the last sub-step computes the
//! owned box. The cells computed outside the owned box are the redundant work (also computed by
//! the neighbour that owns them), the price of k - 1 exchanges fewer. Plain arithmetic on boxes, no
//! MPI or CUDA: a model builds its halo plan and its sub-steps' boxes from the same StepFrame.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/halo.hpp"

namespace haloflow {

//! \brief One step of a stencil update as one rank of a decomposition sees it.
struct OneStep {
  //! What one step reads: its radius r, star or box, and the axes it reads across.
  Stencil stencil;
  int dimensions = 3;            //!< active axes, 1 to 3
  Index3 owned{1, 1, 1};         //!< cells this rank owns per axis
  Index3 thinnest{1, 1, 1};      //!< the fewest cells any rank owns per axis (for refusals)
  Coord3 process_grid{1, 1, 1};  //!< ranks per axis (for messages)
  //! [axis][0]: a rank lies below this rank's first cell, [axis][1]: above its last (this rank
  //! itself on a periodic axis it spans alone). No neighbour: a physical boundary, where the
  //! sub-steps' regions stop at the owned box.
  std::array<std::array<bool, 2>, 3> neighbour{};
};

//! \brief `stencil` as this rank of `grid` sees it: its share, the thinnest share of every rank
//! and its neighbours (CartesianDecomposition::neighbour).
[[nodiscard]] OneStep one_step(const CartesianDecomposition& grid, const Stencil& stencil);

//! \brief The axes whose ghosts an exchange fills for `step`: read by its stencil, active, and
//! with a neighbour on at least one side.
[[nodiscard]] std::array<bool, 3> exchanged_axes(const OneStep& step);

//! \brief The most steps a frame of `step` can take, at most `limit`: ghosts k * r deep must fit
//! in the thinnest rank's share along every exchanged axis (the rule of make_halo_plan). 0 when
//! not even one step fits.
[[nodiscard]] int most_steps_per_frame(const OneStep& step, int limit);

//! \brief Why `steps` steps a frame of `step` cannot run, in words naming `field` (the setting
//! that asked for them, "/heat3d/steps_per_frame"), the value and what is allowed; nothing when
//! they can. Refused: fewer than 1 or more than `limit` steps, and ghosts k * r deeper than the
//! thinnest rank's share along an exchanged axis. Every rank gives the same answer.
[[nodiscard]] std::optional<std::string> step_frame_refusal(const OneStep& step, int steps,
                                                            int limit, std::string_view field);

//! \brief How much faster a deeper frame must be, as a fraction of the fastest, for an automatic
//! choice to take it: within this, the frame with fewer steps wins (a deeper one costs memory and
//! redundant work for a gain the measurement cannot tell from its noise).
inline constexpr double kStepsPerFrameTolerance = 0.03;

//! \brief The steps a frame an automatic choice takes from what was measured:
//! `seconds_per_step[k - 1]` is the time one step took with k steps a frame (k = 1, 2, ...). The
//! fewest steps a frame whose time is within `tolerance` (a fraction) of the fastest. Every rank
//! given the same times gives the same answer. \throws Error for no times, or a time that is
//! negative or not finite, or a tolerance that is.
[[nodiscard]] int fastest_steps_per_frame(const std::vector<double>& seconds_per_step,
                                          double tolerance = kStepsPerFrameTolerance);

//! \brief A frame of k steps of one OneStep: the ghost depth and exchange it needs, the region
//! each sub-step computes and the redundant cells that costs.
class StepFrame {
 public:
  //! \throws Error with step_frame_refusal's message (`limit` the most steps the caller allows)
  //! when `steps` steps a frame of `step` cannot run.
  StepFrame(const OneStep& step, int steps, int limit, std::string_view field);

  //! \brief k.
  [[nodiscard]] int steps() const { return steps_; }
  //! \brief k * r: the ghost layers (make_halo_plan's ghost_width) the exchange fills.
  [[nodiscard]] int ghost_depth() const { return steps_ * step_.stencil.radius; }
  //! \brief The stencil to build the frame's halo plan with: radius k * r, on the same axes; the
  //! step's own shape for one step, a box beyond (the grown regions of the first sub-steps read
  //! the edge and corner ghosts too, so that every cell they compute is a true value).
  [[nodiscard]] Stencil exchange_stencil() const;
  //! \brief The axes the sub-steps' regions grow along (exchanged_axes).
  [[nodiscard]] const std::array<bool, 3>& exchanged() const { return exchanged_; }
  //! \brief The cells sub-step `sub_step` (1..k) computes: `owned` (this rank's owned box, in
  //! whatever index space the caller uses) grown by (k - sub_step) * r along the exchanged axes,
  //! on each side where a neighbour lies. \throws Error for a sub-step outside 1..k or an owned
  //! box of another size than the OneStep's.
  [[nodiscard]] Box computed(int sub_step, const Box& owned) const;
  //! \brief The cells of sub-step `sub_step` (1..k) that depend on no ghost that travels:
  //! computed(sub_step, owned) less sub_step * r cells inside the owned box along each axis of
  //! `travelling` (those whose halos come from other ranks, HaloExchange::remote_axes()). Through
  //! the sub-steps before, its cells read only owned cells and the ghosts a rank copies to itself,
  //! so each sub-step's part can run while the halos travel, after the part of the sub-step
  //! before; the rest of the sub-step (split_box) waits for the halos. Empty (hi == lo on an
  //! axis) where the share is too thin. \throws Error as computed() does.
  [[nodiscard]] Box before_halos(int sub_step, const Box& owned,
                                 const std::array<bool, 3>& travelling) const;
  //! \brief The cells computed outside the owned box over the k sub-steps of one frame.
  [[nodiscard]] std::int64_t redundant_cells() const;
  //! \brief redundant_cells() over the k owned boxes the frame advances: the share of extra work.
  [[nodiscard]] double redundant_fraction() const;

 private:
  OneStep step_;
  int steps_ = 1;
  std::array<bool, 3> exchanged_{};
};

}  // namespace haloflow
