#include "daemon/serve/held_requests.h"

#include <utility>

namespace tq {

bool HeldRequests::Hold(ConnId conn, const std::string& payload, bool store_free) {
  if (!loop_.waiting() || store_free) return false;
  server_.HoldFrame(conn, payload);
  held_.push_back(conn);
  loop_.Defer(this, [this] { Release(); });  // deferred calls run only once no call waits
  return true;
}

void HeldRequests::Release() {
  const std::deque<ConnId> held = std::move(held_);
  held_.clear();
  for (ConnId conn : held) server_.ReleaseInput(conn);  // each hands its frames on in its turn
}

}  // namespace tq
