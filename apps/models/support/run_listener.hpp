#pragma once
//! \file
//! \brief What a run tells the command that runs it as it goes, through one interface: every call
//! has an empty default, so that a command overrides what it handles and says which of the calls
//! that cost the run work it wants.

#include <optional>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/frame.hpp"
#include "owned_field.hpp"

namespace haloflow::models {

class RunListener {
 public:
  virtual ~RunListener() = default;

  //! The calls that cost the run work, made only when asked for.
  struct Wants {
    //! field(): the field copied to the host before the first timed step (step 0, or the
    //! restart's step), after each RunOptions::output_every-th step and after the last.
    bool fields = false;
    //! say(): the header and the per-step lines, on every rank alike, since what a model samples
    //! for them can be collective (jacobi2d's norms); a command prints rank 0's.
    bool lines = false;
    //! sample(): what the model learns as the steps go. jacobi2d: the norms of the steps that are
    //! multiples of RunOptions::sample_every and of the last, waited for after those steps;
    //! euler2d: the clock as its last look saw it, every sample_every steps (no wait); heat3d: its
    //! errors at the outputs (the field is on the host then).
    bool samples = false;
    //! checkpoint(): after each RunOptions::checkpoint_every-th timed step.
    bool checkpoints = false;
    //! progress(): as timed steps finish on the device, polled without waiting.
    bool progress = false;
    //! frame_begins() and frame_ends(): each timed frame then ends with a wait for the model's
    //! frames, so that the listener sees it finished (replay records them).
    bool every_frame = false;
  };
  [[nodiscard]] virtual Wants wants() const { return {}; }

  //! Every frame the model built, once, after they are all built and before the warm-up (--dot;
  //! replay attaches its recorder). Nothing waits for it.
  virtual void frames_built(const std::vector<Frame*>& /*frames*/) {}
  //! The timed run's frame `frame` (counted from 0; a frame may take several steps) is about to be
  //! patched and launched.
  virtual void frame_begins(int /*frame*/) {}
  //! Frame `frame` has finished: it was waited for.
  virtual void frame_ends(int /*frame*/) {}
  //! Once, before the first timed step (after the warm-up), with the model's process grid.
  virtual void started(const Coord3& /*process_grid*/) {}
  //! The current field (collectively, on every rank).
  virtual void field(const OwnedField& /*field*/) {}
  //! What the model learnt by a step.
  virtual void sample(const StepSample& /*sample*/) {}
  //! A line for the command to print as the run goes.
  virtual void say(const std::string& /*line*/) {}
  //! The rank's whole model state after `done` timed steps (an opaque byte string the model reads
  //! back), collectively on every rank.
  virtual void checkpoint(int /*done*/, const std::vector<unsigned char>& /*state*/) {}
  //! The timed steps done so far (restarts count from the restart's step) of `steps`, at most once
  //! per RunOptions::progress_every steps and after the last.
  virtual void progress(int /*done*/, int /*steps*/) {}

  //! A listener that wants nothing: what a run without one tells.
  [[nodiscard]] static RunListener& silent() {
    static RunListener none;
    return none;
  }
};

}  // namespace haloflow::models
