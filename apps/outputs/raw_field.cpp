#include "raw_field.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "haloflow/error.hpp"
#include "input_files.hpp"
#include "output_files.hpp"

namespace haloflow::outputs {
namespace {

template <class T>
std::vector<T> read_raw(const std::string& path) {
  const std::optional<std::string> file = input::read_input_file(path, "a raw field file");
  if (!file) throw Error(fmt::format("{}: could not be opened", path));
  const std::size_t bytes = file->size();
  if (bytes % sizeof(T) != 0) {
    throw Error(fmt::format("{}: {} bytes is not a whole number of {}-byte values", path, bytes,
                            sizeof(T)));
  }
  std::vector<T> values(bytes / sizeof(T));
  std::memcpy(values.data(), file->data(), bytes);
  return values;
}

template <class T>
FieldComparison compare(const std::string& path, std::span<const T> field, double tolerance) {
  const std::vector<T> other = read_raw<T>(path);
  if (other.size() != field.size()) {
    throw Error(fmt::format("--compare {}: {} values; this run's field has {}", path, other.size(),
                            field.size()));
  }
  FieldComparison out{.values = field.size()};
  for (std::size_t i = 0; i < field.size(); ++i) {
    const double difference =
        std::abs(static_cast<double>(field[i]) - static_cast<double>(other[i]));
    if (std::isnan(difference)) out.not_a_number = true;
    if (difference > out.largest) out.largest = difference;
  }
  out.ok = !out.not_a_number && out.largest <= tolerance;
  out.line = fmt::format(
      "compare with {}: {} values, largest |difference| {:.3e}{} (tolerance {:.3e}): {}", path,
      field.size(), out.largest, out.not_a_number ? " and NaN" : "", tolerance,
      out.ok ? "ok" : "FAILED");
  return out;
}

}  // namespace

std::string write_field_dump(const std::string& path, const models::GlobalField& field,
                             bool replace) {
  return std::visit(
      [&](auto values) {
        using T = typename decltype(values)::value_type;
        write_output_file(
            path,
            std::string_view(reinterpret_cast<const char*>(values.data()), values.size_bytes()),
            {.replace = replace});
        return fmt::format("dump: {} values of {} bytes written to {}", values.size(), sizeof(T),
                           path);
      },
      field);
}

std::uint64_t field_bytes(const models::GlobalField& field) {
  return std::visit([](auto values) { return static_cast<std::uint64_t>(values.size_bytes()); },
                    field);
}

FieldComparison compare_field(const std::string& path, const models::GlobalField& field,
                              double tolerance) {
  return std::visit([&](auto values) { return compare(path, values, tolerance); }, field);
}

}  // namespace haloflow::outputs
