#pragma once
// advection2d's command line: what to run (executors, steps, frames to record) and how the halos
// travel. Parsed by CLI11 in options.cpp, host C++ that nvcc need not see.

#include <haloflow/haloflow.hpp>

#include <optional>
#include <vector>

// How the halos travel on the GPU executors (the host executor always uses MPI).
struct Travel {
  haloflow::Transport transport = haloflow::Transport::automatic;
  haloflow::Handoff handoff = haloflow::Handoff::automatic;
  bool self_on_device = true;
};

struct Options {
  std::vector<haloflow::ExecutorKind> executors;
  int steps = 200;
  int record = 0;  // frames to record after the run; 0: none
  // The boundary slabs' edges written by hand too, and checked against the accesses
  // (EdgeRule::strict); otherwise the plan derives them.
  bool edges_by_hand = false;
  Travel travel;
};

// The options, or the exit status when there are none to run with: 0 after --help, non-zero when
// an option is refused (an unknown option, a value that is not a number or lies outside its
// range, a name that is not one of the choices: the message names the option and the value).
struct Parsed {
  std::optional<Options> options;
  int status = 0;
};

// `gpu`: whether this rank has a device (the executor "auto" is then graph, otherwise host).
// `talk`: whether to print the help or the refusal (one rank of many should).
[[nodiscard]] Parsed parse_options(int argc, char** argv, bool gpu, bool talk);
