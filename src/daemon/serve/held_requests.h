// Requests that come while a call waits on the loop for the store (EventLoop::WaitFor): only
// what needs no store (a ping) is answered then; the rest wait in their connections, in the
// order they came, and are handed on once the wait is over (SPEC 6, "the loop never blocks").
#pragma once

#include <deque>
#include <string>

#include "daemon/host/event_loop.h"
#include "daemon/serve/server.h"

namespace tq {

/// Holds the frames that must wait for the store, and lets them go after the wait. A frame held
/// stays in its connection's input (Server::HoldFrame), counted in its user's buffers, and the
/// connection is not read meanwhile: its answers keep their order.
class HeldRequests {
 public:
  HeldRequests(EventLoop& loop, Server& server) : loop_(loop), server_(server) {}

  /// True when `payload`, just handed on from `conn`, must wait, and is then held: the loop
  /// waits for the store and the frame needs it (`store_free` false).
  bool Hold(ConnId conn, const std::string& payload, bool store_free);

 private:
  /// Lets each connection held go on, in the order they were held.
  void Release();

  EventLoop& loop_;
  Server& server_;
  std::deque<ConnId> held_;
};

}  // namespace tq
