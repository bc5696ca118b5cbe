// HostOrdering: the host executor's order of unordered nodes, from code or HALOFLOW_HOST_ORDER.

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>

#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"

namespace haloflow {
namespace {

constexpr const char* kAllowed = "insertion, reverse, shuffled, shuffled:SEED or threads";

// One seed per process for `shuffled` without one, said once so that the run can be repeated.
std::uint64_t process_seed() {
  static std::once_flag drawn;
  static std::uint64_t seed = 0;
  std::call_once(drawn, [] {
    std::random_device device;
    seed = (std::uint64_t{device()} << 32) ^ device();
    std::fprintf(stderr,
                 "haloflow: the host executor runs unordered nodes shuffled with seed %llu "
                 "(HALOFLOW_HOST_ORDER=shuffled:%llu repeats the order)\n",
                 static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  });
  return seed;
}

}  // namespace

HostOrdering HostOrdering::parse(std::string_view text) {
  if (text == "insertion") return {HostOrder::insertion, 0};
  if (text == "reverse") return {HostOrder::reverse, 0};
  if (text == "threads") return {HostOrder::threads, 0};
  if (text == "shuffled") return {HostOrder::shuffled, process_seed()};
  constexpr std::string_view prefix = "shuffled:";
  if (text.starts_with(prefix)) {
    const std::string_view digits = text.substr(prefix.size());
    std::uint64_t seed = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
    if (!digits.empty() && error == std::errc() && end == digits.data() + digits.size()) {
      return {HostOrder::shuffled, seed};
    }
    throw Error(fmt::format("host order '{}': the seed '{}' is not an unsigned 64-bit integer",
                            text, digits));
  }
  throw Error(fmt::format("host order '{}' is not one of {}", text, kAllowed));
}

HostOrdering HostOrdering::from_environment() {
  const char* value = std::getenv("HALOFLOW_HOST_ORDER");
  if (value == nullptr || *value == '\0') return {};
  try {
    return parse(value);
  } catch (const Error& error) {
    throw Error(fmt::format("HALOFLOW_HOST_ORDER={}: {}", value, error.what()));
  }
}

std::string to_string(const HostOrdering& ordering) {
  switch (ordering.order) {
    case HostOrder::insertion:
      return "insertion";
    case HostOrder::reverse:
      return "reverse";
    case HostOrder::shuffled:
      return fmt::format("shuffled:{}", ordering.seed);
    case HostOrder::threads:
      return "threads";
  }
  return "insertion";
}

}  // namespace haloflow
