#pragma once
//! \file
//! \brief The machine's device copy bandwidth, measured: what a run's achieved bandwidth is a
//! fraction of (the reports' "% of the measured copy bandwidth"). Only a GPU has one.

namespace haloflow::models {

//! \brief Bytes per second read and written by a device-to-device copy of 256 MiB on the current
//! device: a graph frame of consecutive copies, the fastest of several launches. 0 without a GPU
//! (the host executor's runs show no fraction). Takes a few tens of milliseconds.
//! \throws Error when the device cannot allocate the buffers or a copy fails.
[[nodiscard]] double measure_copy_bandwidth();

}  // namespace haloflow::models
