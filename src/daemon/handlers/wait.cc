#include "daemon/handlers/handlers.h"

namespace tq {

void HandleWait(RequestContext& ctx, ConnId conn, const Owner& peer, const WaitRequest& r) {
  auto tasks = SelectedTasks(ctx, peer, r.select, AnyState(), "wait for");
  if (!tasks.ok()) {
    ctx.server.Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  // Told first, so the client knows what it waits for, and for which ids to ask again after a
  // reconnect: what the filters matched, or the shards a group's id stands for.
  if (r.select.ByFilter() || WithShards(ctx, peer, r.select.ids) != r.select.ids)
    ctx.server.Send(conn, OkResponse({{"selected", IdsOf(*tasks)}}));
  ctx.server.SetBusy(conn, true);
  ctx.waiters.Add(conn, Waiters::Kind::kStream, *tasks);
}

}  // namespace tq
