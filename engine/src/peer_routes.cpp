#include "peer_routes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace haloflow::detail {

RouteChoice choose_route(const RouteEnd& here, const RouteEnd& there, int neighbour,
                         PeerWant want) {
  // Both ends' view of "same node" is asked, not one: a route decided on one end's view alone
  // could differ from the other end's.
  if (!here.same_node || !there.same_node) {
    return {.peer = false,
            .refused = false,
            .reason = fmt::format("rank {} is on another node", neighbour)};
  }
  if (here.can_store && there.can_store)
    return {.peer = true, .refused = false, .reason = here.reason};
  const std::string why =
      !here.can_store ? here.reason : fmt::format("rank {}: {}", neighbour, there.reason);
  return {.peer = false, .refused = want == PeerWant::required, .reason = why};
}

RouteEndMessage to_message(const RouteEnd& end) {
  RouteEndMessage message;
  message.same_node = end.same_node ? 1 : 0;
  message.can_store = end.can_store ? 1 : 0;
  const std::size_t length = std::min(end.reason.size(), sizeof(message.reason) - 1);
  std::memcpy(message.reason, end.reason.data(), length);
  message.reason[length] = '\0';
  return message;
}

RouteEnd from_message(const RouteEndMessage& message) {
  const char* end = std::find(message.reason, message.reason + sizeof(message.reason), '\0');
  return {.same_node = message.same_node != 0,
          .can_store = message.can_store != 0,
          .reason = std::string(message.reason, end)};
}

}  // namespace haloflow::detail
