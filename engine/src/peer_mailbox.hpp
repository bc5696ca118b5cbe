#pragma once
// The peer transport's set-up (the protocol: peer_protocol.hpp): this rank's mailbox, and where
// each of its messages goes in its receiver's. On a GPU the mailbox is device memory that the
// neighbours map through CUDA IPC; on the host executor it is this rank's part of an MPI-3
// shared-memory window over the ranks of the node (MPI_Win_allocate_shared), so that CI runs the
// same protocol on the CPU.

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "haloflow/buffer.hpp"

namespace haloflow::detail {

//! One message of the exchange with another rank, as the peer set-up needs it.
struct PeerMessage {
  int peer = 0;                     //!< the other rank
  int send_tag = 0;                 //!< HaloMessage's: what this rank sends is tagged so
  int receive_tag = 0;              //!< and what it receives so (the sender's send_tag)
  std::int64_t receive_offset = 0;  //!< elements from this rank's slot 0 to the message
  std::string direction;            //!< "+x"
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
  //! Whether to insist on the peer transport or only take it where it works.
  enum class Want { required, if_possible };
  //! Collective over `communicator` (every rank of it calls it, with or without messages).
  //! Decides with the other ranks whether every message can travel peer to peer (the peer on
  //! this node; on a GPU, its device reachable; and, when `want` is if_possible, not on this
  //! very device, where waiting kernels of two processes would take turns on the GPU). When they
  //! all can, allocates the mailbox and learns every receiver's. Bounded by `timeout`.
  //! \throws Error when `want` is required and some message cannot travel so (naming it), or a
  //! neighbour does not answer in time.
  PeerMailbox(MPI_Comm communicator, Backend backend, std::vector<PeerMessage> messages,
              std::size_t element_size, std::int64_t receive_elements, Want want,
              std::chrono::duration<double> timeout, std::string context);
  ~PeerMailbox();
  PeerMailbox(const PeerMailbox&) = delete;
  PeerMailbox& operator=(const PeerMailbox&) = delete;
  PeerMailbox(PeerMailbox&&) = delete;
  PeerMailbox& operator=(PeerMailbox&&) = delete;

  //! True when every rank takes the peer transport (always, when it was required).
  [[nodiscard]] bool in_use() const;
  //! Per message: how it travels and why.
  [[nodiscard]] const std::vector<PeerRoute>& routes() const;
  //! Per message, in the given order: where it goes. \pre in_use().
  [[nodiscard]] const std::vector<PeerTarget>& targets() const;
  //! This rank's slot 0 (slot 1 follows `receive_elements` elements later). \pre in_use().
  [[nodiscard]] std::byte* slots() const;
  //! This rank's first flag (the others kPeerFlagBytes apart, in message order). \pre in_use().
  [[nodiscard]] std::uint64_t* flags() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace haloflow::detail
