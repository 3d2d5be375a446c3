#include "daemon/serve/held_requests.h"

#include <algorithm>
#include <utility>

namespace tq {

HeldRequests::HeldRequests(EventLoop& loop, Server& server, Handler handle)
    : loop_(loop), server_(server), handle_(std::move(handle)) {}

bool HeldRequests::Keep(ConnId conn, const Owner& peer, const std::string& payload,
                        bool store_free) {
  if (!Holds(conn) && (!loop_.waiting() || store_free)) return false;
  held_.push_back(Held{conn, peer, payload});
  server_.HoldInput(conn, true);
  loop_.Defer(this, [this] { HandOn(); });  // deferred calls run only once no call waits
  return true;
}

bool HeldRequests::Holds(ConnId conn) const {
  return std::any_of(held_.begin(), held_.end(), [conn](const Held& h) { return h.conn == conn; });
}

void HeldRequests::HandOn() {
  std::deque<Held> batch = std::move(held_);
  held_.clear();
  for (const Held& h : batch) {
    handle_(h.conn, h.peer, h.payload);  // its connection is still held: nothing overtakes it
    server_.HoldInput(h.conn, false);
  }
}

}  // namespace tq
