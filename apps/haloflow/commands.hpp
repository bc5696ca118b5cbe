#pragma once
// The haloflow command's subcommands beside run and validate (apps/cases/run_case.hpp): replay
// and info. main.cpp parses the command line and calls one of them, on every rank.

#include "haloflow/mpi_session.hpp"
#include "replay.hpp"

namespace haloflow::app {

//! Replays a case's frames with every node recorded; rank 0 prints what overlapped.
int replay_command(const cases::ReplayOptions& options, const MpiSession& mpi);
//! Describes the device, MPI and this build (rank 0 prints).
int show_info(const MpiSession& mpi);

}  // namespace haloflow::app
