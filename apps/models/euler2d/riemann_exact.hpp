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
