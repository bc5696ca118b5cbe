#pragma once
// Every rank's recording on rank 0, on rank 0's clock: each rank measures how far its recorder's
// clock is from rank 0's (the round trip with the smallest delay, as NTP does), packs its trace
// into bytes and sends it; rank 0 unpacks them and moves each onto its own clock.

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "haloflow/recorder.hpp"
#include "haloflow/trace.hpp"

namespace haloflow::cases {

//! One rank's recording and what it cost.
struct RankRecording {
  Trace trace;
  double untraced_frame_us = 0;      //!< median frame, recorder off
  double traced_frame_us = 0;        //!< median frame, recorder on
  double frame_noise_us = 0;         //!< how far two medians of the same frames land apart
  double untraced_before_us = 0;     //!< median frame of the untraced frames before the traced
  double untraced_after_us = 0;      //!< and after them: their gap is the machine's drift
  std::int64_t clock_offset_ns = 0;  //!< rank 0's clock minus this rank's, when measured
};

//! `recording` as bytes, and back: every field of the trace, so that rank 0 gets the typed value
//! each rank recorded. \throws Error for bytes that are not a packed recording.
[[nodiscard]] std::vector<char> pack(const RankRecording& recording);
[[nodiscard]] RankRecording unpack(const std::vector<char>& bytes);

//! Rank 0's clock minus this rank's, from `rounds` round trips with rank 0 on the recorder's
//! clock (0 on rank 0). Collective over `communicator`; each message waits at most `timeout`.
//! \throws Error naming the rank that did not answer in time.
[[nodiscard]] std::int64_t clock_offset_ns(
    FrameRecorder& recorder, MPI_Comm communicator, int rounds = 8,
    std::chrono::duration<double> timeout = std::chrono::seconds(60));

//! On rank 0: every rank's recording, in rank order, each trace shifted onto rank 0's clock
//! (times from rank 0's first recorded frame); elsewhere: empty. Collective, each call bounded
//! by `timeout` (BoundedCollectives).
[[nodiscard]] std::vector<RankRecording> gather_recordings(
    const RankRecording& mine, MPI_Comm communicator,
    std::chrono::duration<double> timeout = std::chrono::seconds(60));

}  // namespace haloflow::cases
