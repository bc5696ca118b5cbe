#pragma once
//! \file
//! \brief What a model hands its listener as the run goes: the field (for VTK and PNG) and what it
//! learns by a step.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

}  // namespace haloflow::models
