#pragma once
//! \file
//! \brief What every model run shares: how it runs (executor, steps, warm-up) and how long its
//! steps took.

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/step_clock.hpp"

namespace haloflow::models {

//! \brief Where a field's values sit: at the grid's points (finite differences: heat3d's u at
//! x = i / n, jacobi2d's a) or as averages over its cells (finite volumes: euler2d). VTK writes
//! them as point data or cell data, so that ParaView places them where the scheme does.
enum class Centring { points, cells };

//! \brief One named quantity of an OwnedField.
struct FieldArray {
  std::string name;            //!< "u", "density", "velocity"
  int components = 1;          //!< 3: a vector (ParaView's glyphs want three)
  std::string units;           //!< what the PNG's colour bar says ("dimensionless")
  std::vector<double> values;  //!< the owned samples, x fastest, a sample's components together
};

//! \brief A rank's owned samples of the current field, copied to the host for output (VTK, PNG),
//! with where they sit in space and time.
struct OwnedField {
  int step = 0;  //!< steps that advanced the state (euler2d with t_end: fewer than those run)
  //! The model's time of the state; a steady iteration (jacobi2d) gives the step instead.
  double time = 0;
  bool steady = false;  //!< an iteration to a steady state: no physical time (jacobi2d)
  int dimensions = 3;   //!< 2: the z axis has one layer and is no axis of the pictures or cells
  Centring centring = Centring::cells;
  std::array<std::int64_t, 3> global_samples{};  //!< the whole grid's samples per axis
  std::array<std::int64_t, 3> offset{};          //!< global index of this rank's first sample
  std::array<std::int64_t, 3> samples{};         //!< owned samples per axis
  //! Points: where global sample 0 sits; cells: the lower corner of cell 0.
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};  //!< between samples (cells: the cell size)
  //! Points on a periodic axis: the sample after the last is sample 0 again, so VTK can close
  //! the box with it (heat3d's x = 1 is x = 0).
  std::array<bool, 3> periodic{false, false, false};
  std::vector<FieldArray> arrays;  //!< at least one; the first is the one pictured
};

//! \brief What a model learns of its run as the steps go, for the lines printed meanwhile: a
//! norm (jacobi2d), the clock (euler2d), errors against the exact solution (heat3d).
struct StepSample {
  int step = 0;  //!< the step the figures are of (steps done)
  std::optional<double> norm;
  std::optional<double> time;
  std::optional<double> dt;
  std::optional<double> error_max;
  std::optional<double> error_rms;
};

//! The most steps one frame of any model takes (jacobi2d's two-step sweep): a run of N frames
//! needs at most N times this many steps.
inline constexpr int kMostStepsPerFrame = 2;

//! \brief Watches a run's frames as the timed steps launch them: `haloflow replay` records them.
//! Called on every rank, from the thread that runs the steps. The timed run's frames are counted
//! from 0; a frame may take several steps (kMostStepsPerFrame).
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  //! Every frame the model built, once, after they are all built and before the warm-up.
  virtual void frames_ready(const std::vector<Frame*>& frames) = 0;
  //! The timed run's frame `frame` is about to be patched and launched.
  virtual void frame_begins(int frame) = 0;
  //! Frame `frame` has finished: it was waited for.
  virtual void frame_ends(int frame) = 0;
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
  //! Called on every rank (collectively) before the first timed step (step 0, or the restart's
  //! step), after each `output_every`-th and after the last, with the current field. Unset: no
  //! copy, no synchronisation.
  std::function<void(const OwnedField&)> output;
  int output_every = 0;  //!< 0: only at the first and after the last step
  //! Lines for the command to print as the run goes (the header, the models' per-step lines), set
  //! on every rank alike, since what a model samples for them can be collective (jacobi2d's norms);
  //! a command prints rank 0's. Unset: the model says nothing until its report. A model that
  //! speaks sets `started` and `sample` from it (say_as_the_run_goes, step_report.hpp).
  std::function<void(const std::string& line)> say;
  //! Called once, before the first timed step (after the warm-up), with the process grid: a
  //! command prints the run's header then. Unset: nothing.
  std::function<void(const Coord3& process_grid)> started;
  //! Called with what the model learns as the timed steps go (StepSample); unset: the model
  //! gathers nothing for it and nothing waits. jacobi2d: the norms of the steps that are
  //! multiples of `sample_every` and of the last, waited for after those steps; euler2d: the
  //! clock as its last look saw it, every `sample_every` steps (no wait); heat3d: its errors at
  //! the outputs (the field is on the host then).
  std::function<void(const StepSample&)> sample;
  int sample_every = 10;
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
  //! The timed run ends after this many frames even if steps are left (replay asks for the frames
  //! it records, whatever steps they take); 0: no limit.
  int frames_limit = 0;
  //! Stop between frames on SIGINT or SIGTERM (catch_stop_signals): the ranks agree after which
  //! frame (StopAgreement) and the timed steps end there with models::Interrupted, outputs and
  //! checkpoints of the steps before whole. False: signals are not looked at.
  bool stop_on_signal = false;
  //! Shown every frame the model built, once, before the warm-up (--dot); nothing waits for it.
  std::function<void(const std::vector<Frame*>& frames)> frames_built;

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
