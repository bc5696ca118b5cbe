#pragma once
// How each route of the peer transport travels, decided from what its two ends found: plain host
// code, so that the rule every mixed exchange stands on (both ends of a route pick the same
// transport, or the two would wait for halos that never come) is unit-tested on its own
// (engine/tests/test_peer_routes.cpp). A route is one message of this rank and the neighbour's
// message of the opposite direction: the pair carries the halos both ways, so it travels one way.

#include <cstdint>
#include <string>

namespace haloflow::detail {

//! Whether to insist on the peer transport for the routes within a node, or take it where it works.
enum class PeerWant { required, if_possible };

//! What one end of a route found out on its own, before the two compare.
struct RouteEnd {
  bool same_node = false;  //!< the neighbour is on this rank's node (MPI_COMM_TYPE_SHARED)
  //! This end can take part peer to peer: its mailbox shared, the neighbour's mapped, the GPU
  //! reachable (and, unless peer is required, another GPU than this one).
  bool can_store = false;
  std::string reason;  //!< why, either way: "same node (MPI shared-memory window)"
};

//! How one route travels, as both of its ends decide it.
struct RouteChoice {
  bool peer = false;     //!< true: peer to peer; false: host-staged mpi
  bool refused = false;  //!< peer was required and this route, within one node, cannot be peer
  std::string reason;    //!< what the run header prints for it
};

//! The route to `neighbour` from `here`'s point of view. Symmetric: swapping the ends (what the
//! neighbour computes) gives the same `peer` and `refused`, so the two ends never disagree.
//! Across nodes: mpi, whatever was wanted. Within a node: peer when both ends can store; else mpi
//! (if_possible) or refused (required), with the reason of the end that cannot.
[[nodiscard]] RouteChoice choose_route(const RouteEnd& here, const RouteEnd& there, int neighbour,
                                       PeerWant want);

//! A RouteEnd as it travels to the other end (MPI_BYTE): fixed size, the reason cut to fit.
struct RouteEndMessage {
  std::int32_t same_node = 0;
  std::int32_t can_store = 0;
  char reason[248] = {};  //!< NUL-terminated
};
[[nodiscard]] RouteEndMessage to_message(const RouteEnd& end);
[[nodiscard]] RouteEnd from_message(const RouteEndMessage& message);

}  // namespace haloflow::detail
