#include "daemon/handlers/handlers.h"

namespace tq {

void HandleWait(Daemon& d, ConnId conn, const Owner& peer, const WaitRequest& r) {
  auto tasks = VisibleTasks(d, peer, r.ids);
  if (!tasks.ok()) {
    d.server().Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  d.server().SetBusy(conn, true);
  d.waiters().Add(conn, Waiters::Kind::kStream, *tasks);
}

}  // namespace tq
