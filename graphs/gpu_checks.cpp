#include <fmt/format.h>

#include "cuda_owners.hpp"
#include "haloflow/error.hpp"

namespace haloflow::detail {

void require_device_entries(const FramePlan& plan, std::string_view executor) {
  for (const Node& node : plan.nodes()) {
    const auto* kernel = std::get_if<KernelWork>(&node.work);
    if (kernel != nullptr && kernel->device_entry == nullptr) {
      throw Error(
          fmt::format("the {} executor cannot run kernel node '{}' of frame '{}': kernel "
                      "'{}' has no device entry",
                      executor, node.name(), plan.name(), kernel->label));
    }
  }
}

}  // namespace haloflow::detail
