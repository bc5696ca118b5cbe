#pragma once
//! \file
//! \brief Convergence studies of any solver: given the errors of a series of runs at decreasing
//! grid spacings (or time steps), the observed orders between consecutive runs, and the study
//! written as a table (text, CSV, Markdown) and as a log-log SVG plot. Host code only; no MPI,
//! no CUDA. `haloflow converge` uses it for the built-in models; a solver of one's own passes
//! its own (h, errors) series.

#include <string>
#include <vector>

namespace haloflow::convergence {

//! \brief One run of a study: its spacing and its error in each of the study's norms.
struct Point {
  double h = 0;                //!< the grid spacing (or time step) of this run, > 0
  std::vector<double> errors;  //!< one per Study::norms, >= 0
  std::string label;           //!< what distinguishes the run ("nx=64"); may be empty
};

//! \brief A series of runs and what the scheme promises.
struct Study {
  std::string title;                                   //!< the plot's title, the tables' heading
  std::string h_name = "h";                            //!< what h is: "h", "dt"
  std::vector<std::string> norms{"L1", "L2", "Linf"};  //!< the names of the error columns
  std::vector<Point> points;                           //!< at least 2, in the order they were run
  double design_order = 0;  //!< the order the scheme is designed to reach; 0: none stated
  std::string design_note;  //!< why that order ("second order on smooth data")
};

//! The observed order between two runs: log(e0 / e1) / log(h0 / h1). NaN when it is undefined
//! (an error that is 0, negative or not finite, or h0 == h1).
[[nodiscard]] double observed_order(double h0, double e0, double h1, double e1);

//! \throws Error naming what is wrong: fewer than 2 points, no norms, a point without one error
//! per norm, an h that is not a positive finite number, an error that is negative or not finite.
void check(const Study& study);

//! orders[i][n]: the observed order between points i and i + 1 in norm n (observed_order; NaN
//! where undefined). Checks the study first.
[[nodiscard]] std::vector<std::vector<double>> observed_orders(const Study& study);

//! The table as aligned text for a terminal: a row per point, each norm's error and the order
//! from the row before, then the design order.
[[nodiscard]] std::string table_text(const Study& study);

//! The table as CSV (RFC 4180): point, label, h, then per norm the error and the observed order
//! from the point before (empty in the first row and where undefined).
[[nodiscard]] std::string table_csv(const Study& study);

//! The table as a Markdown document: a heading, the table, the design order.
[[nodiscard]] std::string table_markdown(const Study& study);

//! A log-log SVG plot (a standalone document): error against h, one series per norm, and a
//! dashed line of the design order's slope across the same h, starting at half the smallest error
//! of the coarsest point (none when the design order is 0). Every text is XML-escaped.
[[nodiscard]] std::string svg_plot(const Study& study);

}  // namespace haloflow::convergence
