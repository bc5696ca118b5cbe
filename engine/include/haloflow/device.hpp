#pragma once
//! \file
//! \brief What the current CUDA device is, asked without CUDA headers.

#include <optional>
#include <string>

namespace haloflow {

//! \brief What a run reports about its GPU, and the stream priorities the executors use.
struct DeviceInfo {
  int ordinal = 0;           //!< CUDA device number (as cudaSetDevice takes it)
  std::string name;          //!< product name, e.g. "NVIDIA H200"
  int multiprocessors = 0;   //!< streaming multiprocessors (SMs)
  double memory_gib = 0;     //!< total global memory, GiB (2^30 bytes)
  int priority_lowest = 0;   //!< bulk work runs here
  int priority_highest = 0;  //!< communication runs here (numerically lower: runs first)
  int driver_version = 0;    //!< CUDA driver version, 1000*major + 10*minor (e.g. 12040)
  int runtime_version = 0;   //!< CUDA runtime version, same encoding
};

//! \brief True when a CUDA device can be used (so the GPU executors can run). Never throws:
//! no driver, no device and an unusable device all answer false.
[[nodiscard]] bool gpu_available();

//! \brief The current device, or nothing when `gpu_available()` is false.
[[nodiscard]] std::optional<DeviceInfo> current_device();

}  // namespace haloflow
