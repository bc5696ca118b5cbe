#pragma once
//! \file
//! \brief Compile-time checks of kernel arguments (FramePlan::add_kernel, Frame::update) against
//! the kernel's parameter list.
//!
//! A mismatch fails a `static_assert` inside a class template whose name reads as the diagnosis:
//! g++ prints `kernel_parameter<2>::expects<double>::given<int>`, nvcc prints
//! `kernel_parameter<position>::expects<Expected>::given<Given> [with position=2UL,
//! Expected=double, Given=int]`. Parameters count from 1; every wrong argument is reported.

#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "haloflow/kernel.hpp"

namespace haloflow {

//! \brief `From` converts to `To` without narrowing (so `update(node, 1)` into a double is refused
//! at compile time rather than silently converted).
template <class From, class To>
concept converts_exactly = std::is_convertible_v<From, To> && requires(From&& from) {
  To{std::forward<From>(from)};
};

//! \brief True when `Args...` are as many as the types of the `std::tuple` `Parameters` and each
//! converts to its parameter without narrowing. Never fails to compile: for generic code.
template <class Parameters, class... Args>
inline constexpr bool arguments_fit = false;
//! \brief arguments_fit for a parameter list given as `std::tuple<Params...>`.
template <class... Params, class... Args>
requires(sizeof...(Params) ==
         sizeof...(Args)) inline constexpr bool arguments_fit<std::tuple<Params...>, Args...> =
    (converts_exactly<Args, Params> && ...);

//! \brief The diagnosis of one kernel argument: parameter `position` (from 1) of the kernel.
template <std::size_t position>
struct kernel_parameter {
  //! \brief ... whose type is `Expected` ...
  template <class Expected>
  struct expects {
    //! \brief ... was given a `Given` (reference and const of the argument itself dropped).
    //! Instantiating it fails to compile exactly when `Given` does not convert to `Expected`
    //! without narrowing; the compiler's instantiation note then names all three.
    template <class Given>
    struct given {
      //! Whether the argument is acceptable.
      static constexpr bool converts_without_narrowing = converts_exactly<Given, Expected>;
      static_assert(converts_without_narrowing,
                    "haloflow: a kernel argument does not convert to its parameter without "
                    "narrowing. The instantiation of kernel_parameter<N>::expects<T>::given<U> "
                    "around this line says which: parameter N (counted from 1) is a T, the "
                    "argument a U. Pass exactly the kernel's type, e.g. std::size_t{n}, or "
                    "static_cast<const double*>(p) for a const parameter.");
    };
  };
};

//! \brief The diagnosis of an argument count: a kernel with `parameters` parameters ...
template <std::size_t parameters>
struct kernel_parameter_count {
  //! \brief ... was given `arguments` arguments; instantiating it fails to compile when they
  //! differ, naming both counts.
  template <std::size_t arguments>
  struct given_arguments {
    //! Whether the counts agree.
    static constexpr bool matches = parameters == arguments;
    static_assert(matches,
                  "haloflow: wrong number of kernel arguments. The instantiation of "
                  "kernel_parameter_count<P>::given_arguments<A> around this line says how many: "
                  "the kernel takes P parameters, the call gave A arguments.");
  };
};

namespace detail {

template <class Parameters, class Arguments, class Positions>
struct each_argument;
template <class... Params, class... Args, std::size_t... positions>
struct each_argument<std::tuple<Params...>, std::tuple<Args...>,
                     std::index_sequence<positions...>> {
  // Every position is instantiated (not short-circuited), so every wrong argument is reported.
  static constexpr bool shown_fit =
      (kernel_parameter<positions + 1>::template expects<Params>::template given<
           std::remove_cvref_t<Args>>::converts_without_narrowing &&
       ...);
  static constexpr bool fit = shown_fit && arguments_fit<std::tuple<Params...>, Args...>;
  // The diagnosis above drops the argument's reference; an argument that only fails with it
  // (a move-only lvalue) still gets a message.
  static_assert(!shown_fit || fit,
                "haloflow: a kernel argument cannot be copied into the kernel's parameter list "
                "(kernel parameters are stored by value)");
};

template <bool same_count, class Parameters, class Arguments>
struct argument_list {
  static constexpr bool fit = false;  // the count's own diagnosis has been shown
};
template <class... Params, class... Args>
struct argument_list<true, std::tuple<Params...>, std::tuple<Args...>> {
  static constexpr bool fit = each_argument<std::tuple<Params...>, std::tuple<Args...>,
                                            std::index_sequence_for<Params...>>::fit;
};

template <class T>
inline constexpr bool is_kernel_ref = false;
template <class... Params>
inline constexpr bool is_kernel_ref<KernelRef<Params...>> = true;

}  // namespace detail

//! \brief Checks `Args...` against the kernel parameters `Params...` (both as `std::tuple`s),
//! reporting each mismatch through kernel_parameter and kernel_parameter_count. `fit` is true
//! when the call may go ahead; when it is false the compiler has already printed why.
template <class Parameters, class Arguments>
struct kernel_arguments_check;
//! \brief kernel_arguments_check for parameter and argument lists given as `std::tuple`s.
template <class... Params, class... Args>
struct kernel_arguments_check<std::tuple<Params...>, std::tuple<Args...>> {
  //! True when the arguments fit the parameters.
  static constexpr bool fit = detail::argument_list<
      kernel_parameter_count<sizeof...(Params)>::template given_arguments<sizeof...(Args)>::matches,
      std::tuple<Params...>, std::tuple<Args...>>::fit;
};

}  // namespace haloflow
