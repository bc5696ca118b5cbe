#pragma once
//! \file
//! \brief What every model run shares: how it runs (executor, steps, warm-up) and how long its
//! steps took.

#include <chrono>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/step_clock.hpp"
#include "run_listener.hpp"

namespace haloflow::models {

//! The most steps one frame of any model takes (heat3d's steps_per_frame, up to 4): a run of N
//! frames needs at most N times this many steps.
inline constexpr int kMostStepsPerFrame = 4;

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
  //! Told what the run does as it goes (RunListener: the field, lines, samples, checkpoints,
  //! progress, the frames); null: nothing is told, no copy of the field, nothing waits.
  RunListener* listener = nullptr;
  //! The steps between outputs of the field (RunListener::field); 0: only before the first and
  //! after the last.
  int output_every = 0;
  //! The steps between the samples a model takes for its per-step lines (RunListener::sample).
  int sample_every = 10;
  //! The steps between checkpoints (RunListener::checkpoint); 0: none.
  int checkpoint_every = 0;
  //! Continue from a checkpoint: the state after `restart_step` timed steps (the warm-up is
  //! skipped, the steps before it are not run). 0: from the start.
  int restart_step = 0;
  std::vector<unsigned char> restart_state;
  //! The steps between progress reports (RunListener::progress).
  int progress_every = 10;
  //! The most frames one launch runs (run.frames_per_launch): above 1, a model whose frames can
  //! loop on the device (FrameLoop) repeats them in one graph launch up to the next step the loop
  //! must see; 1: a launch a frame.
  int frames_per_launch = 1;
  //! After the warm-up, time the step frame, its interior (bulk lane) alone and its
  //! communication chain alone, `overlap_rounds` times each, and report the hidden fraction
  //! (StepTimes::overlap). GPU executors only; the fields are reset afterwards.
  bool measure_overlap = false;
  int overlap_rounds = 20;
  //! The timed run ends after this many frames even if steps are left (replay asks for the frames
  //! it records, whatever steps they take); 0: no limit.
  int frames_limit = 0;
  //! Stop between frames on SIGINT or SIGTERM (catch_stop_signals): the ranks agree after which
  //! frame (StopAgreement) and the timed steps end there with models::Interrupted, outputs and
  //! checkpoints of the steps before whole. False: signals are not looked at.
  bool stop_on_signal = false;
  //! The run's listener, or a silent one when there is none.
  [[nodiscard]] RunListener& tell() const {
    return listener != nullptr ? *listener : RunListener::silent();
  }
  //! What the listener asks for (nothing without one).
  [[nodiscard]] RunListener::Wants wants() const {
    return listener != nullptr ? listener->wants() : RunListener::Wants{};
  }

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
  //! What the steps' launches held (frames_per_launch_line): empty for a frame a launch.
  std::string launches;
};

//! \brief What every stepping model's run measures besides its own figures, held once: by the
//! model's result and, for the report, by its StepSummary.
struct StepMeasures {
  Coord3 process_grid{1, 1, 1};
  StepTimes times;
  //! What one step physically moves, all ranks (the model's report says what): a k-step frame
  //! reads and writes each array once for its k steps, so it moves a pass's bytes over k.
  double bytes_per_step = 0;
  int steps_per_pass = 1;  //!< k: the steps one pass over memory takes (k-step frames)
  //! Bytes of the arrays a step touches, all ranks (whether a rank's fit in the L2); 0: one pass's
  //! bytes (bytes_per_step x steps_per_pass), right where a pass reads and writes each array once.
  double working_set = 0;
};

}  // namespace haloflow::models
