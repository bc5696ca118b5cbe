#pragma once
//! \file
//! \brief A kernel as the plan sees it: a device entry, an optional host twin, and its
//! parameter values held in one type-erased, patchable block.

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>
#include <typeinfo>

#include "haloflow/launch.hpp"

namespace haloflow {

//! \brief A kernel with parameter list `Params...`.
//!
//! `device` is the address of a `__global__` function (what `<<<>>>` launches); `host`, when
//! set, runs the same launch on the CPU so the host executor can run the frame. A kernel
//! without a host twin runs only on GPU executors.
template <class... Params>
struct KernelRef {
  using parameters = std::tuple<Params...>;  //!< the parameter list, for arguments_fit
  void (*device)(Params...) = nullptr;  //!< the `__global__` function; null: host executor only
  //! The CPU twin, given the launch shape; null: GPU executors only.
  void (*host)(const LaunchShape&, Params...) = nullptr;
  //! Name in error messages and Graphviz output; FramePlan::add_kernel copies it.
  const char* label = "kernel";
  //! Optional: how many cells a launch of this shape reaches with these arguments, so that the
  //! plan can refuse a launch too small for the cells a node declares it writes (per_cell_kernel
  //! and grid_stride_kernel say; null: not checked).
  std::uint64_t (*reach)(const LaunchShape&, Params...) = nullptr;
};

//! \brief A user's own `__global__` function as a kernel for the GPU executors:
//! `device_kernel(&my_flux, "my_flux")`. It has no host twin, so the host executor refuses it.
template <class... Params>
[[nodiscard]] constexpr KernelRef<Params...> device_kernel(void (*entry)(Params...),
                                                           const char* label) {
  return KernelRef<Params...>{entry, nullptr, label};
}

//! \brief The parameter values of one kernel node, owned, with the array of pointers to them
//! that `cudaLaunchKernel` and `cudaKernelNodeParams::kernelParams` expect.
//! Assigning new values keeps the storage, so per-step patches never allocate.
class KernelArgs {
 public:
  //! \brief Stores `values` on the heap, so the pointer array stays valid when the KernelArgs
  //! moves.
  template <class... Params>
  static KernelArgs make(Params... values) {
    KernelArgs args;
    args.holder_ = std::make_unique<Holder<Params...>>(std::move(values)...);
    return args;
  }

  //! \brief No values: pointers() is null and holds() is false for every list.
  KernelArgs() = default;
  //! \brief A deep copy with its own values and pointer array, so a copied plan is patched
  //! independently of the original.
  KernelArgs(const KernelArgs& other) : holder_(other.holder_ ? other.holder_->clone() : nullptr) {}
  //! \brief Deep copy; see the copy constructor.
  KernelArgs& operator=(const KernelArgs& other) {
    if (this != &other) holder_ = other.holder_ ? other.holder_->clone() : nullptr;
    return *this;
  }
  //! \brief Takes over the values; pointers() stays the same, so a lowered node keeps reading
  //! them. \post `other` holds no values.
  KernelArgs(KernelArgs&&) noexcept = default;
  //! \brief Takes over the values, as the move constructor. \post `other` holds no values.
  KernelArgs& operator=(KernelArgs&&) noexcept = default;
  ~KernelArgs() = default;

  //! \brief Pointers to each parameter value, in order (null when there are none).
  [[nodiscard]] void** pointers() const { return holder_ ? holder_->pointers() : nullptr; }

  //! \brief True when the stored values have exactly the types `Params...`.
  template <class... Params>
  [[nodiscard]] bool holds() const {
    return holds(typeid(std::tuple<Params...>));
  }
  //! \brief True when the stored values are a `std::tuple` of type `params`.
  [[nodiscard]] bool holds(const std::type_info& params) const {
    return holder_ && holder_->type() == params;
  }

  //! \brief The stored values; precondition: `holds<Params...>()`.
  template <class... Params>
  [[nodiscard]] std::tuple<Params...>& values() const {
    return static_cast<Holder<Params...>*>(holder_.get())->values;
  }

 private:
  struct HolderBase {
    virtual ~HolderBase() = default;
    [[nodiscard]] virtual std::unique_ptr<HolderBase> clone() const = 0;
    [[nodiscard]] virtual void** pointers() = 0;
    [[nodiscard]] virtual const std::type_info& type() const = 0;
  };

  template <class... Params>
  struct Holder final : HolderBase {
    explicit Holder(Params... v) : values(std::move(v)...) {
      // The pointer array points into this object, which never moves (it lives on the heap).
      std::apply([this](auto&... each) { addresses = {static_cast<void*>(&each)...}; }, values);
    }
    Holder(const Holder&) = delete;
    Holder& operator=(const Holder&) = delete;
    ~Holder() override = default;
    [[nodiscard]] std::unique_ptr<HolderBase> clone() const override {
      return std::apply([](const auto&... v) { return std::make_unique<Holder>(v...); }, values);
    }
    [[nodiscard]] void** pointers() override {
      return sizeof...(Params) == 0 ? nullptr : addresses.data();
    }
    [[nodiscard]] const std::type_info& type() const override {
      return typeid(std::tuple<Params...>);
    }
    std::tuple<Params...> values;
    std::array<void*, sizeof...(Params)> addresses{};
  };

  std::unique_ptr<HolderBase> holder_;
};

//! \brief Runs a kernel's host twin on stored arguments (empty when the kernel has none).
using HostKernelRunner = std::function<void(const LaunchShape&, const KernelArgs&)>;

//! \brief The host-side address of a `__global__` function as the untyped pointer CUDA wants.
template <class... Params>
[[nodiscard]] const void* device_entry_address(void (*entry)(Params...)) {
  static_assert(sizeof(entry) == sizeof(const void*));
  const void* address = nullptr;
  std::memcpy(&address, &entry, sizeof address);  // function to object pointer, without UB casts
  return address;
}

}  // namespace haloflow
