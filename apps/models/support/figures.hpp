#pragma once
// A result's named figures, each kept as a typed value and shown two ways from the same number:
// `key=value` on the benchmark line scripts read (tools/bench-models) and a number in
// results.json. Nothing is formatted and parsed back.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace haloflow::models {

class Figures {
 public:
  //! A text figure (a name: the model, the executor).
  Figures& add(std::string key, std::string value);
  //! A count.
  Figures& add(std::string key, long long value);
  //! A measured or computed number, shown on the line with `format` (fmt syntax, "{:.9f}").
  Figures& add(std::string key, double value, std::string_view format);
  //! Appends `other`'s figures after these.
  Figures& add(const Figures& other);

  //! "result: key=value key=value ...", the line the benchmarks grep.
  [[nodiscard]] std::string line() const;
  //! {"key": value, ...}: numbers as numbers, in full precision.
  [[nodiscard]] nlohmann::json json() const;

 private:
  struct Figure {
    std::string key;
    std::string text;
    nlohmann::json value;
  };
  std::vector<Figure> figures_;
};

}  // namespace haloflow::models
