#pragma once
//! \file
//! \brief What `haloflow_model` was asked for, and running it: the model at the chosen precision,
//! the report on rank 0, the optional dump and comparison of the global field.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "haloflow/frame.hpp"
#include "haloflow/halo_exchange.hpp"
#include "run_options.hpp"

namespace haloflow::models {

//! \brief The command line, with model-dependent defaults left unset (0 or empty).
struct DriverOptions {
  std::string model;        //!< jacobi2d or heat3d
  std::int64_t nx = 0;      //!< jacobi2d: 16384; heat3d: 256
  std::int64_t ny = 0;      //!< jacobi2d: 16384; heat3d: nx
  std::int64_t nz = 0;      //!< heat3d: nx
  int steps = 0;            //!< jacobi2d: 1000; heat3d: 100
  int warmup = -1;          //!< -1: 10 steps on GPU executors, none on the host
  int norm_every = 100;     //!< jacobi2d
  int print_every = 100;    //!< jacobi2d: which computed norms are printed
  int rows_per_thread = 8;  //!< jacobi2d: consecutive rows per GPU thread
  ExecutorKind executor = ExecutorKind::graph;
  Handoff handoff = Handoff::automatic;        //!< graph executor: host-node or proxy
  Transport transport = Transport::automatic;  //!< how halos travel: mpi or nccl
  bool self_on_device = true;                  //!< false: a rank's halos to itself through MPI
  std::string precision;                       //!< float or double; jacobi2d: float, heat3d: double
  std::string split;                           //!< jacobi2d: 1d (default) or 2d; heat3d: 3d only
  double nu = 1.0;                             //!< heat3d
  int mode = 1;                                //!< heat3d
  double dt = 0;                               //!< heat3d; 0: h^2 / (8 nu)
  double timeout_s = 60;                       //!< halo exchange bound
  double copy_bandwidth = 4.3e12;  //!< bytes/s (read + written), for the fraction printed
  std::string dump;                //!< write the global field here (rank 0)
  std::string compare;             //!< compare the global field with this file (rank 0)
  double tolerance = 0;            //!< largest |difference| --compare accepts
  // euler2d (docs/models.md)
  std::string euler_case = "vortex";  //!< vortex, sod-x, sod-y or kh
  double cfl = 0.4;                   //!< dt = cfl / max((|u|+c)/dx + (|v|+c)/dy)
  double t_end = 0;                   //!< stop at this time; 0: run --steps steps
  int rk = 3;                         //!< SSP Runge-Kutta stages: 2 or 3
  std::string limiter = "vanleer";    //!< minmod or vanleer
  std::string riemann = "hllc";       //!< hllc or rusanov
  //! Called with the current field every `output_every` timed steps and after the last (see
  //! RunOptions::output); unset: nothing is copied.
  std::function<void(const OwnedField&)> output;
  int output_every = 0;
  //! Checkpoints and restart (see RunOptions); unset: none.
  std::function<void(int done, const std::vector<unsigned char>& state)> checkpoint;
  int checkpoint_every = 0;
  int restart_step = 0;
  std::vector<unsigned char> restart_state;
  //! Progress as steps finish (see RunOptions::progress); unset: none.
  std::function<void(int done, int steps)> progress;
  int progress_every = 10;
  bool overlap = false;  //!< measure the hidden fraction (RunOptions::measure_overlap)
};

//! \brief Runs the model on MPI_COMM_WORLD and reports on rank 0.
//! \returns 0, or 1 when --compare found a larger difference than allowed (every rank).
//! \throws Error for a bad option (naming it, its value and what is allowed) or a failed run.
int run_driver(DriverOptions options, int rank, int ranks);

}  // namespace haloflow::models
