#pragma once
//! \file
//! \brief NVTX ranges, so that frames show up by name in Nsight Systems.

namespace haloflow {

//! \brief Pushes an NVTX range on the calling thread for its lifetime. Without a tool attached
//! NVTX calls return at once, so ranges can mark every frame, traced or not.
class NvtxRange {
 public:
  //! \brief Pushes a range named `name` (copied by NVTX) on the calling thread.
  explicit NvtxRange(const char* name);
  //! \brief Pops the range.
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
  NvtxRange(NvtxRange&&) = delete;
  NvtxRange& operator=(NvtxRange&&) = delete;
};

}  // namespace haloflow
