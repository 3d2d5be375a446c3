#include <algorithm>
#include <map>
#include <memory>

#include "core/model/quote.h"
#include "core/model/stage_progress.h"

#include "daemon/handlers/handlers.h"

namespace tq {

namespace {
// Tasks re-queued per transaction (one sync each) by `tq retry`.
constexpr size_t kRequeueBatch = 250;

// Where each of `tasks` with stages starts again (SPEC 13): its first stage when `r` says so or
// the task succeeded (every stage ran: all run again), or the one named, which must be at or
// before the stage where it stopped (a stage that has not succeeded is never skipped). A named
// stage a task lacks refuses the whole request.
Result<std::map<TaskId, int>> RestartStages(const std::vector<Task>& tasks, const RetryRequest& r) {
  std::map<TaskId, int> at;
  for (const Task& task : tasks) {
    const bool ran_well = task.state == TaskState::kSucceeded || task.state == TaskState::kExpired;
    if (!r.from_stage) {
      if (!task.spec.stages.empty() && (r.from_start || ran_well)) at[task.id] = 0;
      continue;
    }
    const std::optional<int> index = StageIndex(task.spec, *r.from_stage);
    if (!index) {
      std::string names;
      for (const StageSpec& s : task.spec.stages) names += (names.empty() ? "" : ", ") + s.name;
      return Status::Invalid(
          "from_stage",
          "from_stage: task " + std::to_string(task.id) + " has no stage " + Quote(*r.from_stage) +
              (names.empty() ? " (it has no stages)" : " (its stages: " + names + ")"));
    }
    if (*index > task.stage)
      return Status::Invalid("from_stage", "from_stage: task " + std::to_string(task.id) +
                                               " stopped at stage " +
                                               Quote(StageName(task.spec, task.stage)) +
                                               ", before " + Quote(*r.from_stage) +
                                               ": a stage that has not succeeded is never skipped");
    at[task.id] = *index;
  }
  return at;
}

// Re-queues `targets`, the tasks `r` selected, and answers on `conn`.
void RetryTasks(RequestContext& ctx, ConnId conn, const Owner& peer, const RetryRequest& r,
                const std::vector<Task>& targets) {
  auto restart_at = RestartStages(targets, r);
  if (!restart_at.ok()) {
    ctx.server.Send(conn, ErrorResponse(restart_at.status()));
    return;
  }
  // Dependencies first (ascending ids, as Requeue asks): a dependent named or listed before the
  // task it waits for would otherwise be refused while that task is still failed.
  std::vector<TaskId> ids = IdsOf(targets);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // Tasks pending again count as submits against the caller's limits.
  if (Status admitted = ctx.submits.Admit(peer, static_cast<int64_t>(ids.size())); !admitted.ok()) {
    ctx.server.Send(conn, ErrorResponse(admitted));
    return;
  }
  // In bulk, a task whose dependency stays failed (not among those re-queued) is left as it is
  // instead of failing the whole request. A batch (one transaction) per pass of the loop.
  auto requeued = std::make_shared<std::vector<TaskId>>();
  auto restart = std::make_shared<const std::map<TaskId, int>>(std::move(*restart_at));
  ctx.server.SetBusy(conn, true);
  InSlices(
      ctx, std::move(ids), kRequeueBatch,
      [&ctx, requeued, restart, r](const std::vector<TaskId>& batch) -> Status {
        auto done = ctx.store.RequeueAll(batch, ctx.clock.WallNow(), r.select.ByFilter(), *restart,
                                         r.succeeded);
        if (!done.ok()) return done.status();
        requeued->insert(requeued->end(), done->begin(), done->end());
        ctx.counters.submitted["retry"] += done->size();
        ctx.events.Reread(*done, "requeued");
        if (!done->empty()) ctx.dispatch.Schedule();
        return Status::Ok();
      },
      [&ctx, conn, requeued](const Status& st) {  // earlier batches stay re-queued
        ctx.server.SetBusy(conn, false);
        ctx.server.Send(conn, st.ok() ? OkResponse({{"ids", *requeued}}) : ErrorResponse(st));
      });
}

}  // namespace

void HandleRetry(RequestContext& ctx, ConnId conn, const Owner& peer, const RetryRequest& r) {
  // Filters naming no state match failed tasks, or with `succeeded` succeeded and expired ones.
  const std::vector<TaskState> defaults =
      r.succeeded ? std::vector<TaskState>{TaskState::kSucceeded, TaskState::kExpired}
                  : std::vector<TaskState>{TaskState::kFailed};
  SelectTasks(ctx, conn, peer, r.select, defaults, "retry",
              [&ctx, conn, peer, r](Result<std::vector<Task>> targets) {
                if (!targets.ok()) return ctx.server.Send(conn, ErrorResponse(targets.status()));
                RetryTasks(ctx, conn, peer, r, *targets);
              });
}

}  // namespace tq
