#include "haloflow/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>

namespace haloflow {

NvtxRange::NvtxRange(const char* name) {
  nvtxRangePushA(name);
}

NvtxRange::~NvtxRange() {
  nvtxRangePop();
}

}  // namespace haloflow
