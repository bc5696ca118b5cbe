#pragma once
// The peer transport's protocol, as its kernels see it (a send and a receive, or both in one). The
// exchange (halo_exchange.cpp, peer_mailbox.cpp) sets it up; the kernels (kernels/peer_kernels.cu)
// run it on the GPU and, as their host twins, on the CPU, where the mailboxes are MPI-3
// shared-memory windows.
//
// Every rank owns a mailbox: one flag per message it receives (each on its own cache line), then
// two slots that each hold all of its received halos. In frame n (n = 1, 2, ...) a sender stores
// each halo straight into slot n % 2 of its receiver's mailbox, then raises the message's flag to
// n (release, system scope); the receiver waits until every flag is at least n (acquire), then
// copies slot n % 2 into its ghosts. Sequence numbers only grow, so nothing is reset between
// frames and an old flag is never taken for a new one. Two slots are enough without an
// acknowledgement because halos are mutual: a sender can only start frame n + 2 after its own
// frame n + 1 received its receiver's halo n + 1, which that receiver sends in its frame n + 1,
// after its frame n (and so its read of slot n % 2) finished. docs/architecture.md has the whole
// argument. Host-only header: no CUDA type in it.

#include <cstddef>
#include <cstdint>

#include "haloflow/halo_exchange.hpp"

namespace haloflow::detail {

//! A rank has at most 26 neighbours (a 3D box stencil), so it sends and receives at most 26
//! messages an exchange.
inline constexpr int kMostPeerMessages = 26;
//! The failure word's value when the exchange failed on its mpi routes, not on a flag.
inline constexpr std::uint64_t kPeerFailedElsewhere = ~std::uint64_t{0};
//! Bytes between two flags: one cache line each, so that two senders never write one line.
inline constexpr std::size_t kPeerFlagBytes = 64;
//! Where slot 0 starts in a mailbox: after the flags of kMostPeerMessages, on a 256-byte boundary
//! (what cudaMalloc aligns to, so every element type stays aligned).
inline constexpr std::size_t kPeerSlotsOffset = 2048;
static_assert(kMostPeerMessages * kPeerFlagBytes <= kPeerSlotsOffset);

//! One field's box of one message a rank sends, and where it goes in the receiver's mailbox.
struct PeerSegment {
  //! First element of the segment in the sender's order (messages back to back, each field's box
  //! after the other's); segments are sorted by it, as HaloSegment's.
  std::int64_t buffer_offset = 0;
  std::int64_t lower[3] = {0, 0, 0};   //!< first cell of the box, local index space with ghosts
  std::int64_t extent[3] = {1, 1, 1};  //!< cells of the box per axis
  std::int32_t field = 0;              //!< which field of the set
  //! Where the segment's first element goes in the receiver's slot 0 (its address in this
  //! process: mapped through CUDA IPC, or in the shared window).
  void* target = nullptr;
  std::int64_t slot_elements = 0;  //!< elements from the receiver's slot 0 to its slot 1
};
//! The send kernel's segments.
using PeerSegments = HaloSegmentList<PeerSegment>;

//! What the send kernel needs besides the halos: its own counters and its receivers' flags.
struct PeerSend {
  //! This rank's words (device memory): [0] frames sent, [1] blocks of the send kernel that have
  //! finished storing, summed over every launch (the last block of a launch raises the flags),
  //! [2] when the last launch raised them (ns: the GPU's global timer, or the host's steady
  //! clock), from which the receive counts its deadline.
  std::uint64_t* counters = nullptr;
  //! The flag of each message in its receiver's mailbox, in this process's address space.
  std::uint64_t* flags[kMostPeerMessages] = {};
  int messages = 0;  //!< flags in use
};

//! What the receive kernel needs besides the ghost boxes: its mailbox, counters and deadline.
template <class T>
struct PeerReceive {
  const T* slots = nullptr;        //!< this rank's slot 0; slot 1 follows `slot_elements` later
  std::int64_t slot_elements = 0;  //!< elements per slot (all received halos)
  const std::uint64_t* flags = nullptr;  //!< this rank's first flag; the others kPeerFlagBytes on
  int messages = 0;                      //!< flags to wait for
  //! The send kernel's counters: [0] is the frame whose halos this rank has just sent, which is
  //! the frame to receive (the send kernel of a frame finishes before its receive kernel starts,
  //! and the next frame's send starts after it); [2] is when it raised its flags.
  const std::uint64_t* counters = nullptr;
  //! How long after this rank raised its own flags a block waits for the last of its flags.
  std::uint64_t timeout_ns = 0;
  //! Host-mapped words the host reads after the frame: [0] the message (index + 1) whose flag
  //! never came, [1] the frame it was waited for in; 0 while nothing failed. [0] is
  //! kPeerFailedElsewhere when the exchange failed on its mpi routes (a mixed exchange): no block
  //! waits long after either.
  std::uint64_t* failure = nullptr;
};

//! Stores every halo this rank sends into its receivers' slots, then raises their flags.
template <class T>
KernelRef<std::size_t, PeerSegments, FieldTable<T>, PeerSend> peer_send_kernel();
//! Waits for every flag of this frame (or the deadline), then copies the slot into the ghosts.
template <class T>
KernelRef<std::size_t, HaloSegments, FieldTable<T>, PeerReceive<T>> peer_receive_kernel();

//! (send elements, send segments, receive elements, receive segments, fields, send, receive):
//! the send, then the receive of the same frame, in one kernel, for an exchange whose remote
//! halos all travel peer to peer: the chain is one kernel, not two in a row.
template <class T>
using PeerExchangeKernel = KernelRef<std::size_t, PeerSegments, std::size_t, HaloSegments,
                                     FieldTable<T>, PeerSend, PeerReceive<T>>;
template <class T>
PeerExchangeKernel<T> peer_exchange_kernel();

}  // namespace haloflow::detail
