// The peer transport's route choice (peer_routes.hpp): both ends of a route always pick the same
// transport, whatever each found; across nodes mpi, within a node peer only when both ends can,
// refused (peer asked for) or mpi (auto) otherwise, with the reason of the end that cannot.

#include "peer_routes.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace haloflow::detail;

namespace {

// Every view one end can have of a route.
std::vector<RouteEnd> every_end() {
  std::vector<RouteEnd> ends;
  for (const bool same_node : {false, true}) {
    for (const bool can_store : {false, true}) {
      ends.push_back({same_node, can_store,
                      std::string(same_node ? "same node" : "other node") +
                          (can_store ? ", can store" : ", cannot store")});
    }
  }
  return ends;
}

const RouteEnd kSameNode{true, true, "same node (MPI shared-memory window)"};
const RouteEnd kSharesGpu{true, false, "rank 0 shares this GPU"};
const RouteEnd kOtherNode{false, false, "rank 3 is on another node"};

}  // namespace

TEST_CASE("both ends of a route choose the same transport, and refuse alike") {
  for (const PeerWant want : {PeerWant::required, PeerWant::if_possible}) {
    for (const RouteEnd& a : every_end()) {
      for (const RouteEnd& b : every_end()) {
        CAPTURE(a.reason);
        CAPTURE(b.reason);
        const RouteChoice here = choose_route(a, b, 1, want);
        const RouteChoice there = choose_route(b, a, 0, want);
        CHECK(here.peer == there.peer);
        CHECK(here.refused == there.refused);
        CHECK_FALSE((here.peer && here.refused));
        CHECK_FALSE(here.reason.empty());
      }
    }
  }
}

TEST_CASE("a route across nodes goes by mpi, peer asked for or not, saying so") {
  for (const PeerWant want : {PeerWant::required, PeerWant::if_possible}) {
    const RouteChoice choice = choose_route(kOtherNode, kOtherNode, 3, want);
    CHECK_FALSE(choice.peer);
    CHECK_FALSE(choice.refused);
    CHECK(choice.reason == "rank 3 is on another node");
  }
  // One end's view alone is enough to keep the route off the peer path.
  CHECK_FALSE(choose_route(kSameNode, kOtherNode, 3, PeerWant::required).peer);
  CHECK_FALSE(choose_route(kSameNode, kOtherNode, 3, PeerWant::required).refused);
}

TEST_CASE("a route within a node goes peer when both ends can, with this end's reason") {
  const RouteChoice choice = choose_route(kSameNode, kSameNode, 2, PeerWant::if_possible);
  CHECK(choice.peer);
  CHECK(choice.reason == "same node (MPI shared-memory window)");
}

TEST_CASE("a route within a node that one end cannot store: mpi (auto) or refused (peer)") {
  const RouteChoice automatic = choose_route(kSameNode, kSharesGpu, 0, PeerWant::if_possible);
  CHECK_FALSE(automatic.peer);
  CHECK_FALSE(automatic.refused);
  CHECK(automatic.reason == "rank 0: rank 0 shares this GPU");  // the other end's reason
  const RouteChoice required = choose_route(kSharesGpu, kSameNode, 1, PeerWant::required);
  CHECK_FALSE(required.peer);
  CHECK(required.refused);
  CHECK(required.reason == "rank 0 shares this GPU");  // this end's own
}

TEST_CASE("a route end's view travels whole, its reason cut to the message") {
  const RouteEnd end{true, false, "rank 5 cannot share its mailbox (no CUDA IPC there)"};
  const RouteEnd back = from_message(to_message(end));
  CHECK(back.same_node);
  CHECK_FALSE(back.can_store);
  CHECK(back.reason == end.reason);
  const RouteEnd long_one{false, true, std::string(1000, 'r')};
  const RouteEnd cut = from_message(to_message(long_one));
  CHECK(cut.reason == std::string(sizeof(RouteEndMessage::reason) - 1, 'r'));
  CHECK_FALSE(cut.same_node);
  CHECK(cut.can_store);
}
