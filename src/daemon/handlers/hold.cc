// hold and release: keep pending tasks from starting until released (qhold and qrls).
#include "core/model/quote.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleHold(RequestContext& ctx, ConnId conn, const Owner& peer, const HoldRequest& r) {
  const char* verb = r.release ? "release" : "hold";
  auto tasks = SelectedTasks(ctx, peer, r.select, {TaskState::kPending}, verb);
  if (!tasks.ok()) {
    ctx.server.Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  // Tasks named by id must all be pending, or nothing changes.
  for (const Task& t : *tasks) {
    if (t.state != TaskState::kPending) {
      ctx.server.Send(conn, ErrorResponse(Status::Invalid(
                                "state", "state: task " + std::to_string(t.id) + " is " +
                                             StateName(t.state) + "; only a pending task can be " +
                                             (r.release ? "released" : "held"))));
      return;
    }
  }
  auto changed = ctx.store.SetHeld(IdsOf(*tasks), !r.release, ctx.clock.WallNow());
  if (!changed.ok()) {
    ctx.server.Send(conn, ErrorResponse(changed.status()));
    return;
  }
  ctx.server.Send(conn, OkResponse({{"ids", *changed}}));
  ctx.events.Reread(*changed, r.release ? "released" : "held");
  if (r.release && !changed->empty()) ctx.dispatch.Schedule();
}

}  // namespace tq
