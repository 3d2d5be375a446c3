// update: change a pending task's priority, queue, labels, start time, timeout or retries.
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleUpdate(RequestContext& ctx, ConnId conn, const Owner& peer, const UpdateRequest& r) {
  auto task = VisibleTask(ctx, peer, r.id);
  if (!task.ok()) {
    ctx.server.Send(conn, ErrorResponse(task.status()));
    return;
  }
  if (r.changes.queue) {
    if (Status allowed = ctx.access.CheckQueue(peer, *r.changes.queue); !allowed.ok()) {
      ctx.server.Send(conn, ErrorResponse(allowed));
      return;
    }
  }
  auto made_queue = ctx.store.UpdatePending(r.id, r.changes, ctx.clock.WallNow());
  if (!made_queue.ok()) {
    ctx.server.Send(conn, ErrorResponse(made_queue.status()));
    return;
  }
  auto changed = ctx.store.Get(r.id);
  if (!changed.ok()) {
    ctx.server.Send(conn, ErrorResponse(changed.status()));
    return;
  }
  nlohmann::json answer{{"task", TaskWithWaiting(ctx, *changed)}};
  if (IsNewUncappedQueue(ctx, changed->spec.queue, *made_queue)) answer["new_queue"] = true;
  ctx.server.Send(conn, OkResponse(std::move(answer)));
  ctx.events.Reread({r.id}, "updated");
  ctx.dispatch.Schedule();
}

}  // namespace tq
