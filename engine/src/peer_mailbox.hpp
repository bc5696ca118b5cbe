#pragma once
// The peer transport's set-up (the protocol: peer_protocol.hpp): this rank's mailbox, and where
// each of its messages goes in its receiver's. On a GPU the mailbox is device memory that the
// neighbours map through CUDA IPC; on the host executor it is this rank's part of an MPI-3
// shared-memory window over the ranks of the node (MPI_Win_allocate_shared), so that CI runs the
// same protocol on the CPU. Each route (a message and its neighbour's opposite one) travels peer
// to peer or by host-staged MPI, as both of its ends decide (peer_routes.hpp): one exchange may mix
// the two.

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "haloflow/buffer.hpp"
#include "peer_routes.hpp"

namespace haloflow::detail {

//! One message of the exchange with another rank, as the peer set-up needs it.
struct PeerMessage {
  int peer = 0;               //!< the other rank
  int send_tag = 0;           //!< HaloMessage's: what this rank sends is tagged so
  int receive_tag = 0;        //!< and what it receives so (the sender's send_tag)
  std::int64_t elements = 0;  //!< elements it carries each way
  std::string direction;      //!< "+x"
};

//! Where one message this rank sends goes, in this process's addresses.
struct PeerTarget {
  std::byte* slot = nullptr;       //!< the message's first element in the receiver's slot 0
  std::int64_t slot_elements = 0;  //!< elements from the receiver's slot 0 to its slot 1
  std::uint64_t* flag = nullptr;   //!< the message's flag in the receiver's mailbox
};

//! How the halos to one neighbour travel, and why: what the run header prints.
struct PeerRoute {
  int peer = 0;
  std::string direction;
  bool peer_transport = false;  //!< false: host-staged MPI
  std::string reason;           //!< "same node, same GPU (CUDA IPC)"
};

class PeerMailbox {
 public:
  using Want = PeerWant;
  //! Collective over `communicator` (every rank of it calls it, with or without messages).
  //! Decides with each neighbour, route by route (choose_route), whether the route travels peer
  //! to peer (the neighbour on this node; on a GPU, its device reachable, both mailboxes shared
  //! and mapped; and, when `want` is if_possible, not on this very device, where waiting kernels
  //! of two processes would take turns on the GPU) or by MPI. Allocates the mailbox, and learns
  //! where each peer route's halos go in its receiver's: the peer routes' halos back to back in
  //! message order, their flags numbered alike. Bounded by `timeout` at every step.
  //! \throws Error on every rank, with the same reason, when `want` is required and a route
  //! within a node cannot travel peer to peer; or when a neighbour does not answer in time.
  PeerMailbox(MPI_Comm communicator, Backend backend, std::vector<PeerMessage> messages,
              std::size_t element_size, Want want, std::chrono::duration<double> timeout,
              std::string context);
  ~PeerMailbox();
  PeerMailbox(const PeerMailbox&) = delete;
  PeerMailbox& operator=(const PeerMailbox&) = delete;
  PeerMailbox(PeerMailbox&&) = delete;
  PeerMailbox& operator=(PeerMailbox&&) = delete;

  //! True when some route of this rank travels peer to peer.
  [[nodiscard]] bool in_use() const;
  //! Per message: how it travels and why.
  [[nodiscard]] const std::vector<PeerRoute>& routes() const;
  //! Per message, in the given order: where it goes; null pointers for a route by MPI.
  [[nodiscard]] const std::vector<PeerTarget>& targets() const;
  //! This rank's slot 0 (slot 1 follows slot_elements() later). \pre in_use().
  [[nodiscard]] std::byte* slots() const;
  //! Elements of one slot: the halos of this rank's peer routes, back to back in message order.
  [[nodiscard]] std::int64_t slot_elements() const;
  //! This rank's first flag (one per peer route, kPeerFlagBytes apart, in message order).
  //! \pre in_use().
  [[nodiscard]] std::uint64_t* flags() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace haloflow::detail
