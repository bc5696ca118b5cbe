#pragma once
//! \file
//! \brief What every model run shares: how it runs (executor, steps, warm-up) and how long its
//! steps took.

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/step_clock.hpp"

namespace haloflow::models {

//! \brief A rank's owned cells of the current field, copied to the host for output (VTK, PNG).
struct OwnedField {
  int step = 0;                                //!< timed steps done
  std::array<std::int64_t, 3> global_cells{};  //!< the whole grid
  std::array<std::int64_t, 3> offset{};        //!< global index of this rank's first owned cell
  std::array<std::int64_t, 3> cells{};         //!< owned cells per axis
  std::array<double, 3> spacing{1, 1, 1};      //!< cell size per axis
  std::vector<std::string> names;              //!< one per component
  std::vector<double> values;  //!< per component (names' order): owned cells, x fastest
};

//! \brief Watches a run's frames and timed steps: `haloflow replay` records them. Called on every
//! rank, from the thread that runs the steps.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  //! Every frame the model built, once, after they are all built and before the warm-up.
  virtual void frames_ready(const std::vector<Frame*>& frames) = 0;
  //! Timed step `step` is about to be patched and launched.
  virtual void step_begins(int step) = 0;
  //! Timed step `step` has finished: every frame it launched was waited for.
  virtual void step_ends(int step) = 0;
};

struct RunOptions {
  ExecutorKind executor = ExecutorKind::graph;
  int steps = 100;
  //! Steps run first and thrown away (the fields are set back to the initial state), so that the
  //! timed steps do not pay for first-launch costs; the result is that of `steps` steps.
  int warmup = 0;
  //! Rank 0 receives the global field at the end (MPI_Gatherv of the owned cells).
  bool gather = false;
  //! How the graph executor hands host nodes (the MPI exchange) to the host (FrameOptions).
  Handoff handoff = Handoff::automatic;
  //! How halos travel between ranks (ExchangeOptions::transport).
  Transport transport = Transport::automatic;
  //! A rank that is its own neighbour copies those halos on the device; false sends them through
  //! MPI like any other (ExchangeOptions::self_on_device: the host path measured on one rank).
  bool self_on_device = true;
  //! A rank that has not answered a halo exchange or a collective (a norm, a time step, a
  //! gather, the step times) after this long ends the run (run.timeout_s, --timeout).
  std::chrono::duration<double> exchange_timeout = std::chrono::seconds(60);
  //! Called on every rank (collectively) after each `output_every`-th timed step and after the
  //! last, with the current field. Unset: no copy, no synchronisation.
  std::function<void(const OwnedField&)> output;
  int output_every = 0;  //!< 0: only after the last step
  //! Called on every rank (collectively) after each `checkpoint_every`-th timed step with the
  //! rank's whole model state (an opaque byte string the model reads back). Unset: nothing.
  std::function<void(int done, const std::vector<unsigned char>& state)> checkpoint;
  int checkpoint_every = 0;
  //! Continue from a checkpoint: the state after `restart_step` timed steps (the warm-up is
  //! skipped, the steps before it are not run). 0: from the start.
  int restart_step = 0;
  std::vector<unsigned char> restart_state;
  //! Called as timed steps finish on the device (not when they are queued): with the steps done
  //! so far (restarts count from restart_step) and `steps`, at most once per `progress_every`
  //! steps and after the last. Polled without waiting, so it never stalls the queue. Unset: none.
  std::function<void(int done, int steps)> progress;
  int progress_every = 10;
  //! After the warm-up, time the step frame, its interior (bulk lane) alone and its
  //! communication chain alone, `overlap_rounds` times each, and report the hidden fraction
  //! (StepTimes::overlap). GPU executors only; the fields are reset afterwards.
  bool measure_overlap = false;
  int overlap_rounds = 20;
  //! Sees every frame and timed step (replay); each timed step then ends with a wait for its
  //! frames, so the observer sees it finished. Null: nothing watches, nothing waits.
  StepObserver* observer = nullptr;

  //! The options every frame of the run is built with.
  //! The GPU waits for a host node a little longer than the exchange's own bound, so that the
  //! exchange is the one to report a silent peer.
  [[nodiscard]] FrameOptions frame_options() const {
    return FrameOptions{.handoff = handoff,
                        .release_timeout = exchange_timeout + std::chrono::seconds(5)};
  }
};

//! \brief What the overlap measurement found: medians of whole frames, each the slowest rank's.
struct OverlapTimes {
  bool measured = false;
  double frame_s = 0;          //!< the step frame, launched and waited for
  double interior_s = 0;       //!< its bulk-lane nodes alone
  double communication_s = 0;  //!< its communication-lane nodes alone (exchange, boundary)
  double hidden = 0;           //!< haloflow::hidden_fraction of the three
};

//! \brief The warm-up steps a run takes unless told: 10 on the GPU executors (first launches pay
//! for set-up), none on the host executor (nothing to warm).
[[nodiscard]] inline int default_warmup(ExecutorKind executor) {
  return executor == ExecutorKind::host ? 0 : 10;
}

//! \brief \throws Error unless a restart state holds `expected` bytes.
inline void check_state_size(const char* model, std::size_t got, std::size_t expected) {
  if (got != expected) {
    throw Error(model + std::string(" restart: the state holds ") + std::to_string(got) +
                " bytes; this rank's state needs " + std::to_string(expected));
  }
}

//! \brief The timed steps, each figure the slowest rank's (haloflow::StepTimes: the per-step
//! figures are over the intervals between consecutive steps' ends, at most the first 4096
//! steps), and the hidden fraction when it was measured.
struct StepTimes : haloflow::StepTimes {
  OverlapTimes overlap;  //!< when RunOptions::measure_overlap
};

}  // namespace haloflow::models
