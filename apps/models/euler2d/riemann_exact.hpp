#pragma once
//! \file
//! \brief The exact solution of the Riemann problem of the 1D Euler equations for an ideal gas
//! (Toro, "Riemann Solvers and Numerical Methods for Fluid Dynamics", ch. 4): Newton iteration on
//! the star-region pressure, then sampling of the self-similar solution. euler2d's Sod cases are
//! checked against it.

namespace haloflow::models {

struct GasState {
  double rho = 1;
  double u = 0;
  double p = 1;
};

//! \brief Where the solution is not smooth, as speeds x / t: the left wave spans
//! [left_head, left_tail] (a rarefaction fan; one point for a shock), the contact moves at
//! `contact`, the right wave spans [right_tail, right_head]. In order, left to right.
struct RiemannWaves {
  double left_head = 0;
  double left_tail = 0;
  double contact = 0;
  double right_tail = 0;
  double right_head = 0;
};

class ExactRiemann {
 public:
  //! \throws Error when the data make a vacuum (the pressure positivity condition fails) or the
  //! Newton iteration does not converge.
  ExactRiemann(GasState left, GasState right, double gamma);
  //! The star region's pressure and velocity.
  [[nodiscard]] double p_star() const { return p_star_; }
  [[nodiscard]] double u_star() const { return u_star_; }
  //! The solution at x / t = `s` (the discontinuity initially at x = 0).
  [[nodiscard]] GasState sample(double s) const;
  //! The waves' speeds.
  [[nodiscard]] RiemannWaves waves() const;
  //! The mean density over x / t in [s0, s1] (s0 < s1): the exact solution integrated over a cell
  //! and divided by its width, to round-off (the interval is split at the waves; each piece is a
  //! constant state or part of a fan, whose density is a polynomial of degree 2 / (gamma - 1) in s
  //! for gamma = 1.4, integrated exactly by 8-point Gauss-Legendre).
  [[nodiscard]] double mean_density(double s0, double s1) const;

 private:
  [[nodiscard]] double pressure_function(double p, const GasState& k, double c,
                                         double* derivative) const;
  GasState l_;
  GasState r_;
  double gamma_;
  double cl_;
  double cr_;
  double p_star_ = 0;
  double u_star_ = 0;
};

}  // namespace haloflow::models
