#pragma once
//! \file
//! \brief The sine mode heat3d starts from, and its amplitude under the equation and under the
//! scheme: the exact answers heat3d is checked against.

#include <array>
#include <vector>

#include "haloflow/decomposition.hpp"

namespace haloflow::models {

//! \brief sin(2 pi k x) sin(2 pi k y) sin(2 pi k z) at the cells x_i = i / n_x (likewise y, z).
class SineMode {
 public:
  SineMode(const Index3& cells, int k);
  //! The mode at global cell (i, j, k); each factor is tabulated, the product formed x * y * z.
  [[nodiscard]] double at(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return axes_[0][static_cast<std::size_t>(i)] * axes_[1][static_cast<std::size_t>(j)] *
           axes_[2][static_cast<std::size_t>(k)];
  }
  //! The largest |mode| over the grid (1 when every n is a multiple of 4k).
  [[nodiscard]] double largest() const { return largest_; }

 private:
  std::array<std::vector<double>, 3> axes_;
  double largest_ = 1;
};

//! \brief exp(-3 (2 pi k)^2 nu t): the mode's amplitude under the heat equation.
[[nodiscard]] double exact_amplitude(int k, double nu, double t);

//! \brief g^steps with g = 1 - sum_axis 4 c_axis sin^2(pi k / n_axis): the mode's amplitude under
//! explicit Euler with the 7-point Laplacian, c_axis = nu dt n_axis^2 as the kernel holds it.
[[nodiscard]] double scheme_amplitude(const std::array<double, 3>& coefficients,
                                      const Index3& cells, int k, int steps);

}  // namespace haloflow::models
