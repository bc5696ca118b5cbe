#pragma once
// Checking CUDA runtime calls: one throwing form, one for destructors. Internal header.

#include <cuda_runtime_api.h>

#include <string_view>

namespace haloflow::detail {

//! Throws Error("<call> failed for <context>: <CUDA error name>: <description>") unless
//! `status` is cudaSuccess. Clears the runtime's last error so later calls start clean.
void cuda_check(cudaError_t status, const char* call, std::string_view context);
//! For destructors, which must not throw: prints the failure to stderr instead.
void cuda_warn(cudaError_t status, const char* call, std::string_view context) noexcept;

}  // namespace haloflow::detail

//! Checks a CUDA runtime call; `context` names the object or node the call was for.
#define HALOFLOW_CUDA(call, context) ::haloflow::detail::cuda_check((call), #call, (context))
#define HALOFLOW_CUDA_NOTHROW(call, context) ::haloflow::detail::cuda_warn((call), #call, (context))
