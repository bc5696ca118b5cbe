#pragma once
//! \file
//! \brief What the current CUDA device is, asked without CUDA headers.

#include <optional>
#include <string>

namespace haloflow {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int multiprocessors = 0;
  double memory_gib = 0;
  int priority_lowest = 0;   //!< bulk work runs here
  int priority_highest = 0;  //!< communication runs here (numerically lower: runs first)
  int driver_version = 0;
  int runtime_version = 0;
};

//! \brief True when a CUDA device can be used (so the GPU executors can run). Never throws:
//! no driver, no device and an unusable device all answer false.
[[nodiscard]] bool gpu_available();

//! \brief The current device, or nothing when `gpu_available()` is false.
[[nodiscard]] std::optional<DeviceInfo> current_device();

}  // namespace haloflow
