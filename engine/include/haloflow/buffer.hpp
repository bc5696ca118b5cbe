#pragma once
//! \file
//! \brief Move-only owners of frame memory: device buffers and pinned host buffers.

#include <cstddef>
#include <string>

#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

namespace haloflow {

//! \brief Which machinery backs memory: CUDA allocations for the GPU executors, plain host
//! memory standing in for both kinds when the host executor runs the frame.
enum class Backend { cuda, cpu };

//! \brief The memory backend an executor needs: `cpu` for the host executor (it never touches
//! CUDA), `cuda` for the others.
[[nodiscard]] constexpr Backend backend_of(ExecutorKind kind) {
  return kind == ExecutorKind::host ? Backend::cpu : Backend::cuda;
}

//! \brief Owns one allocation: `Memory::device` through cudaMalloc, `Memory::host` pinned and
//! mapped through cudaHostAlloc (copies overlap with kernels, and kernels may read and write it
//! directly at the same address: unified addressing), or plain host memory under `Backend::cpu`.
class Buffer {
 public:
  //! \brief An empty buffer (owns nothing), to be moved into.
  Buffer() = default;
  //! \throws Error naming the buffer and size when the allocation fails.
  Buffer(Memory memory, std::size_t bytes, std::string name, Backend backend);
  ~Buffer();
  //! \brief Takes over `other`'s allocation. \post `other` owns nothing (null, 0 bytes).
  Buffer(Buffer&& other) noexcept;
  //! \brief Frees this buffer's allocation, then takes over `other`'s.
  //! \post `other` owns nothing (null, 0 bytes).
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  //! \brief Start of the allocation; null for an empty buffer (or one of 0 bytes).
  [[nodiscard]] void* data() const { return data_; }
  //! \brief data() typed as `T*`, for kernel arguments and host access; no checks.
  template <class T>
  [[nodiscard]] T* as() const {
    return static_cast<T*>(data_);
  }
  //! \brief Size in bytes; 0 for an empty or moved-from buffer.
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  //! \brief Where the buffer lives as the plan sees it (device or pinned host).
  [[nodiscard]] Memory memory() const { return memory_; }
  //! \brief Which machinery allocated it (`cpu`: plain host memory whatever memory() says).
  [[nodiscard]] Backend backend() const { return backend_; }
  //! \brief The name given at construction, used in error messages and plan views.
  [[nodiscard]] const std::string& name() const { return name_; }

  //! \brief The whole buffer as a plan view.
  [[nodiscard]] BufferView view() const;
  //! \brief `bytes` starting at `offset`. \throws Error when that runs past the end.
  [[nodiscard]] BufferView view(std::size_t offset, std::size_t bytes) const;

  //! \brief Synchronous copy from host memory into the buffer at `offset`.
  void upload(const void* from, std::size_t bytes, std::size_t offset = 0);
  //! \brief Synchronous copy from the buffer at `offset` into host memory.
  void download(void* to, std::size_t bytes, std::size_t offset = 0) const;

 private:
  void release() noexcept;
  void check_range(std::size_t offset, std::size_t bytes, const char* what) const;

  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  Memory memory_ = Memory::device;
  Backend backend_ = Backend::cpu;
  std::string name_;
};

}  // namespace haloflow
