// Requests that come while a call waits on the loop for the store (EventLoop::WaitFor): only
// what needs no store (a ping) is answered then; the rest are kept, in the order they came, and
// handed on once the wait is over (SPEC 6, "the loop never blocks").
#pragma once

#include <deque>
#include <functional>
#include <string>

#include "core/model/task.h"
#include "daemon/host/event_loop.h"
#include "daemon/serve/server.h"

namespace tq {

/// Keeps the frames that must wait for the store, and hands them on after the wait. A
/// connection with a frame kept is not read meanwhile (Server::HoldInput): it keeps at most one,
/// and its answers keep their order.
class HeldRequests {
 public:
  /// What takes a frame once it may be handled (the daemon's frame handler).
  using Handler = std::function<void(ConnId conn, const Owner& peer, const std::string& payload)>;

  HeldRequests(EventLoop& loop, Server& server, Handler handle);

  /// True when `payload` from `conn` must wait, and is then kept: the loop waits and the frame
  /// needs the store (`store_free` false), or a frame of `conn` is kept already.
  bool Keep(ConnId conn, const Owner& peer, const std::string& payload, bool store_free);

 private:
  /// A frame kept, with whom it came from.
  struct Held {
    ConnId conn;
    Owner peer;
    std::string payload;
  };
  /// True when a frame of `conn` is kept.
  bool Holds(ConnId conn) const;
  /// Hands each frame kept on, in order, and reads its connection again.
  void HandOn();

  EventLoop& loop_;
  Server& server_;
  Handler handle_;
  std::deque<Held> held_;
};

}  // namespace tq
