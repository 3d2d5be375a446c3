// hold and release: keep pending tasks from starting until released (qhold and qrls).
#include "core/model/stage_progress.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// Whether `t` can be held or released: pending, or running with a stage after this one.
bool Holdable(const Task& t) {
  return t.state == TaskState::kPending ||
         (t.state == TaskState::kRunning && !IsLastStage(t.spec, t.stage));
}

}  // namespace

void HandleHold(RequestContext& ctx, ConnId conn, const Owner& peer, const HoldRequest& r) {
  const char* verb = r.release ? "release" : "hold";
  auto tasks = SelectedTasks(ctx, peer, r.select, {TaskState::kPending, TaskState::kRunning}, verb);
  if (!tasks.ok()) {
    ctx.server.Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  // Tasks named by id must all be holdable, or nothing changes; filters pass over the others.
  if (r.select.ByFilter()) {
    std::erase_if(*tasks, [](const Task& t) { return !Holdable(t); });
  } else {
    for (const Task& t : *tasks) {
      if (Holdable(t)) continue;
      const std::string why = t.state != TaskState::kRunning ? ""
                              : t.spec.stages.empty() ? " and has no stages to " + std::string(verb)
                                                      : " at its last stage";
      ctx.server.Send(
          conn, ErrorResponse(Status::Invalid(
                    "state", "state: task " + std::to_string(t.id) + " is " + StateName(t.state) +
                                 why + "; only a pending task (or the next stage of a running " +
                                 "one) can be " + (r.release ? "released" : "held"))));
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
