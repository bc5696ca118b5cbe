#include "figures.hpp"

#include <fmt/format.h>

namespace haloflow::models {

Figures& Figures::add(std::string key, std::string value) {
  std::string text = value;
  figures_.push_back({std::move(key), std::move(text), std::move(value)});
  return *this;
}

Figures& Figures::add(std::string key, long long value) {
  figures_.push_back({std::move(key), std::to_string(value), value});
  return *this;
}

Figures& Figures::add(std::string key, double value, std::string_view format) {
  figures_.push_back({std::move(key), fmt::format(fmt::runtime(format), value), value});
  return *this;
}

Figures& Figures::add(const Figures& other) {
  figures_.insert(figures_.end(), other.figures_.begin(), other.figures_.end());
  return *this;
}

std::string Figures::line() const {
  std::string text = "result:";
  for (const Figure& figure : figures_) text += fmt::format(" {}={}", figure.key, figure.text);
  return text;
}

nlohmann::json Figures::json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const Figure& figure : figures_) out[figure.key] = figure.value;
  return out;
}

}  // namespace haloflow::models
