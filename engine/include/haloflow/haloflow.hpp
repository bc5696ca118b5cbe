#pragma once
//! \file
//! \brief Everything an embedding solver uses, in one include: `#include <haloflow/haloflow.hpp>`.
//!
//! Compiled by nvcc (a `.cu` file) it also brings per_cell.cuh, whose kernels need nvcc; compiled
//! by a C++ compiler it brings every header that compiles without CUDA.

#include "haloflow/access.hpp"
#include "haloflow/argument_check.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/cell_box.hpp"
#include "haloflow/convergence.hpp"
#include "haloflow/decomposition.hpp"
#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/frame_loop.hpp"
#include "haloflow/graph_dot.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/kernel.hpp"
#include "haloflow/launch.hpp"
#include "haloflow/launch_stream.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/nvtx.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/plan.hpp"
#include "haloflow/ranks.hpp"
#include "haloflow/recorder.hpp"
#include "haloflow/step_clock.hpp"
#include "haloflow/steps.hpp"
#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"
#include "haloflow/trace_writers.hpp"
#include "haloflow/version.hpp"
#include "haloflow/walls.hpp"
#include "haloflow/xml_text.hpp"

#if defined(__CUDACC__)
#include "haloflow/per_cell.cuh"
#endif
