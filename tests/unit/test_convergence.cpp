// Convergence studies (haloflow/convergence.hpp): the observed order between runs, the refusals
// of a study that cannot be one, and the tables and plot it is written as.

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "haloflow/convergence.hpp"
#include "haloflow/error.hpp"

using haloflow::Error;
namespace convergence = haloflow::convergence;

namespace {

// Errors C h^p exactly: every observed order is p.
convergence::Study power_law(double order) {
  convergence::Study study;
  study.title = "a <power> & law";
  study.design_order = order;
  for (const double h : {0.1, 0.05, 0.025}) {
    study.points.push_back(
        {.h = h,
         .errors = {3 * std::pow(h, order), 2 * std::pow(h, order), std::pow(h, order)},
         .label = "n=" + std::to_string(static_cast<int>(1 / h))});
  }
  return study;
}

}  // namespace

TEST_CASE("convergence: the observed order is log(e0 / e1) / log(h0 / h1)") {
  CHECK(convergence::observed_order(0.1, 4e-2, 0.05, 1e-2) == doctest::Approx(2));
  CHECK(convergence::observed_order(1, 1, 3, 27) == doctest::Approx(3));  // h growing too
  CHECK(convergence::observed_order(0.1, 1e-3, 0.05, 1e-3) == doctest::Approx(0));
  // Undefined: an error of 0, equal h, a negative or infinite error.
  CHECK(std::isnan(convergence::observed_order(0.1, 0, 0.05, 1e-3)));
  CHECK(std::isnan(convergence::observed_order(0.1, 1e-3, 0.1, 1e-4)));
  CHECK(std::isnan(convergence::observed_order(0.1, -1, 0.05, 1e-3)));
  CHECK(std::isnan(convergence::observed_order(0.1, INFINITY, 0.05, 1e-3)));
}

TEST_CASE("convergence: orders per pair of consecutive points and norm") {
  const auto orders = convergence::observed_orders(power_law(2));
  REQUIRE(orders.size() == 2);
  for (const auto& row : orders) {
    REQUIRE(row.size() == 3);
    for (const double order : row) CHECK(order == doctest::Approx(2).epsilon(1e-12));
  }
}

TEST_CASE("convergence: a study that cannot be one is refused, naming why") {
  convergence::Study study = power_law(1);
  study.points.resize(1);
  CHECK_THROWS_WITH_AS((void)convergence::observed_orders(study),
                       "a convergence study needs at least 2 points; it has 1", Error);
  study = power_law(1);
  study.points[1].errors.pop_back();
  CHECK_THROWS_WITH_AS((void)convergence::observed_orders(study),
                       "point 1: 2 errors for 3 norms; expected one per norm", Error);
  study = power_law(1);
  study.points[2].h = 0;
  CHECK_THROWS_WITH_AS((void)convergence::table_csv(study),
                       "point 2: h = 0 is not allowed; expected a positive number", Error);
  study = power_law(1);
  study.points[0].errors[1] = NAN;
  CHECK_THROWS_AS((void)convergence::svg_plot(study), Error);
}

TEST_CASE("convergence: CSV, Markdown and text tables hold every point and order") {
  const convergence::Study study = power_law(2);
  const std::string csv = convergence::table_csv(study);
  CHECK(csv.rfind("point,label,h,L1,order_L1,L2,order_L2,Linf,order_Linf\r\n", 0) == 0);
  CHECK(csv.find("\r\n0,n=10,0.10000000000000001,") != std::string::npos);
  CHECK(csv.find(",2.0000,") != std::string::npos);
  // A label with a comma or a quote is one quoted field.
  convergence::Study quoted = study;
  quoted.points[0].label = "a,\"b\"";
  CHECK(convergence::table_csv(quoted).find("\r\n0,\"a,\"\"b\"\"\",") != std::string::npos);
  const std::string markdown = convergence::table_markdown(study);
  CHECK(markdown.find("# a <power> & law") == 0);
  CHECK(markdown.find("| point | label | h | L1 | order | L2 | order | Linf | order |") !=
        std::string::npos);
  CHECK(markdown.find("design order: 2") != std::string::npos);
  const std::string text = convergence::table_text(study);
  CHECK(text.find("2.00") != std::string::npos);
  CHECK(text.find("design order: 2") != std::string::npos);
}

TEST_CASE("convergence: the SVG plot escapes its text and draws each norm and the design slope") {
  const std::string svg = convergence::svg_plot(power_law(2));
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  CHECK(svg.find("a &lt;power&gt; &amp; law") != std::string::npos);
  CHECK(svg.find("<power>") == std::string::npos);
  std::size_t lines = 0;
  for (auto at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1)) {
    ++lines;
  }
  CHECK(lines == 3);
  CHECK(svg.find("stroke-dasharray") != std::string::npos);
  CHECK(svg.find("order 2") != std::string::npos);
  CHECK(svg.rfind("</svg>\n") == svg.size() - 7);
  // Without a design order: no dashed line.
  convergence::Study none = power_law(2);
  none.design_order = 0;
  CHECK(convergence::svg_plot(none).find("stroke-dasharray") == std::string::npos);
}
