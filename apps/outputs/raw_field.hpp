#pragma once
// The global field as a raw file: what --dump writes (native-endian values, x fastest) and
// --compare reads back, so that runs on other executors or rank counts compare bitwise.

#include <cstddef>
#include <cstdint>
#include <string>

#include "model.hpp"

namespace haloflow::outputs {

//! Writes `field` to `path` (replacing a file there only with `replace`: --force). \returns the
//! line the command prints. \throws Error naming the file.
std::string write_field_dump(const std::string& path, const models::GlobalField& field,
                             bool replace);

//! The bytes write_field_dump writes for `field`.
[[nodiscard]] std::uint64_t field_bytes(const models::GlobalField& field);

//! What comparing a field with a raw file found.
struct FieldComparison {
  std::size_t values = 0;
  double largest = 0;         //!< the largest |difference|
  bool not_a_number = false;  //!< some difference is NaN
  bool ok = false;            //!< no NaN, and largest <= the tolerance
  std::string line;           //!< what the command prints
};

//! Compares `field` with the raw file `path` value by value. \throws Error naming the file when
//! it cannot be read, its size is not a whole number of values, or it holds another count.
[[nodiscard]] FieldComparison compare_field(const std::string& path,
                                            const models::GlobalField& field, double tolerance);

}  // namespace haloflow::outputs
