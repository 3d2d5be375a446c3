#include "daemon/handlers/handlers.h"

namespace tq {

void HandleWait(RequestContext& ctx, ConnId conn, const Owner& peer, const WaitRequest& r) {
  auto tasks = VisibleTasks(ctx, peer, r.ids);
  if (!tasks.ok()) {
    ctx.server.Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  ctx.server.SetBusy(conn, true);
  ctx.waiters.Add(conn, Waiters::Kind::kStream, *tasks);
}

}  // namespace tq
