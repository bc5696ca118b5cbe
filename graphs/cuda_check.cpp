#include "cuda_check.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "haloflow/error.hpp"

namespace haloflow::detail {
namespace {
std::string describe(cudaError_t status, const char* call, std::string_view context) {
  return fmt::format("{} failed for {}: {}: {}", call, context, cudaGetErrorName(status),
                     cudaGetErrorString(status));
}
}  // namespace

void cuda_check(cudaError_t status, const char* call, std::string_view context) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // a non-sticky error must not resurface at an unrelated call
  throw Error(describe(status, call, context));
}

void cuda_warn(cudaError_t status, const char* call, std::string_view context) noexcept {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  try {
    std::fprintf(stderr, "haloflow: %s\n", describe(status, call, context).c_str());
  } catch (...) {  // NOLINT(bugprone-empty-catch): formatting failed; nothing else to report
  }
}

}  // namespace haloflow::detail
