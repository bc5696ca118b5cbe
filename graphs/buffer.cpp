#include "haloflow/buffer.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "cuda_check.hpp"
#include "haloflow/error.hpp"

namespace haloflow {
namespace {
constexpr std::size_t kHostAlignment = 256;  // what cudaMalloc guarantees; kernels may rely on it
}

Buffer::Buffer(Memory memory, std::size_t bytes, std::string name, Backend backend)
    : bytes_(bytes), memory_(memory), backend_(backend), name_(std::move(name)) {
  if (bytes == 0) return;
  const std::string context = fmt::format("buffer '{}' ({} bytes)", name_, bytes);
  if (backend == Backend::cpu) {
    const std::size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    data_ = std::aligned_alloc(kHostAlignment, rounded);
    if (data_ == nullptr) throw Error(fmt::format("out of host memory allocating {}", context));
  } else if (memory == Memory::device) {
    HALOFLOW_CUDA(cudaMalloc(&data_, bytes), context);
  } else {
    HALOFLOW_CUDA(cudaHostAlloc(&data_, bytes, cudaHostAllocMapped | cudaHostAllocPortable),
                  context);
  }
}

Buffer::~Buffer() {
  release();
}

Buffer::Buffer(Buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      memory_(other.memory_),
      backend_(other.backend_),
      name_(std::move(other.name_)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    memory_ = other.memory_;
    backend_ = other.backend_;
    name_ = std::move(other.name_);
  }
  return *this;
}

void Buffer::release() noexcept {
  if (data_ == nullptr) return;
  if (backend_ == Backend::cpu) {
    std::free(data_);
  } else if (memory_ == Memory::device) {
    HALOFLOW_CUDA_NOTHROW(cudaFree(data_), name_);
  } else {
    HALOFLOW_CUDA_NOTHROW(cudaFreeHost(data_), name_);
  }
  data_ = nullptr;
}

void Buffer::check_range(std::size_t offset, std::size_t bytes, const char* what) const {
  if (offset > bytes_ || bytes > bytes_ - offset) {
    throw Error(
        fmt::format("{} of {} bytes at offset {} runs past the end of buffer '{}' ({} "
                    "bytes)",
                    what, bytes, offset, name_, bytes_));
  }
}

BufferView Buffer::view() const {
  return BufferView{data_, bytes_, memory_, name_};
}

BufferView Buffer::view(std::size_t offset, std::size_t bytes) const {
  check_range(offset, bytes, "a view");
  return BufferView{static_cast<std::byte*>(data_) + offset, bytes, memory_, name_};
}

void Buffer::upload(const void* from, std::size_t bytes, std::size_t offset) {
  check_range(offset, bytes, "an upload");
  void* to = static_cast<std::byte*>(data_) + offset;
  if (backend_ == Backend::cpu || memory_ == Memory::host) {
    std::memcpy(to, from, bytes);
  } else {
    HALOFLOW_CUDA(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice), name_);
    // From pageable memory cudaMemcpy may return before its last DMA lands, queued on the legacy
    // default stream, which a frame's own (non-blocking) stream does not wait for: the upload is
    // complete when this returns.
    HALOFLOW_CUDA(cudaStreamSynchronize(cudaStreamLegacy), name_);
  }
}

void Buffer::download(void* to, std::size_t bytes, std::size_t offset) const {
  check_range(offset, bytes, "a download");
  const void* from = static_cast<const std::byte*>(data_) + offset;
  if (backend_ == Backend::cpu || memory_ == Memory::host) {
    std::memcpy(to, from, bytes);
  } else {
    HALOFLOW_CUDA(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost), name_);
  }
}

}  // namespace haloflow
