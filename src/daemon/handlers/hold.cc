// hold and release: keep pending tasks from starting until released (qhold and qrls).
#include <memory>

#include "core/model/stage_progress.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// Whether `t` can be held or released: pending, or running with a stage after this one.
bool Holdable(const Task& t) {
  return t.state == TaskState::kPending ||
         (t.state == TaskState::kRunning && !IsLastStage(t.spec, t.stage));
}

// Holds (or releases) the holdable tasks of `tasks`. Tasks named by id must all be holdable, or
// nothing changes; filters pass over the others. Adds those it changed to `changed`.
Status HoldPage(RequestContext& ctx, std::vector<Task> tasks, bool by_filter, bool release,
                std::vector<TaskId>& changed) {
  const std::string verb = release ? "release" : "hold";
  if (by_filter) {
    std::erase_if(tasks, [](const Task& t) { return !Holdable(t); });
  } else {
    for (const Task& t : tasks) {
      if (Holdable(t)) continue;
      const std::string why = t.state != TaskState::kRunning ? ""
                              : t.spec.stages.empty()        ? " and has no stages to " + verb
                                                             : " at its last stage";
      return Status::Invalid("state", "state: task " + std::to_string(t.id) + " is " +
                                          StateName(t.state) + why +
                                          "; only a pending task (or the next stage of a running " +
                                          "one) can be " + (release ? "released" : "held"));
    }
  }
  auto page = ctx.store.SetHeld(IdsOf(tasks), !release, ctx.clock.WallNow());
  if (!page.ok()) return page.status();
  ctx.events.Reread(*page, release ? "released" : "held");
  if (release && !page->empty()) ctx.dispatch.Schedule();
  changed.insert(changed.end(), page->begin(), page->end());
  return Status::Ok();
}

}  // namespace

void HandleHold(RequestContext& ctx, ConnId conn, const Owner& peer, const HoldRequest& r) {
  // By filters a page at a time (WalkSelected): each page's tasks are held as it is read.
  auto changed = std::make_shared<std::vector<TaskId>>();
  WalkSelected(
      ctx, conn, peer, r.select, {TaskState::kPending, TaskState::kRunning},
      r.release ? "release" : "hold",
      [&ctx, changed, by_filter = r.select.ByFilter(),
       release = r.release](const std::vector<Task>& tasks) {
        return HoldPage(ctx, tasks, by_filter, release, *changed);
      },
      [&ctx, conn, changed](const Status& st) {
        ctx.server.Send(conn, st.ok() ? OkResponse({{"ids", *changed}}) : ErrorResponse(st));
      });
}

}  // namespace tq
