// `tq jobs run NAME [--force]`: a run of a job now, obeying its overlap unless forced.
#include "core/jobs/overlap.h"
#include "daemon/cron/scheduler.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleJobRun(RequestContext& ctx, ConnId conn, const Owner& peer, const JobRunRequest& r) {
  const Result<JobInfo> job = VisibleJob(ctx, peer, r.name);
  Result<JobRunOutcome> outcome =
      job.ok() ? ctx.scheduler.RunNow(job->def.name, r.force) : Result<JobRunOutcome>(job.status());
  if (!outcome.ok()) {
    ctx.server.Send(conn, ErrorResponse(outcome.status()));
    return;
  }
  ctx.server.Send(
      conn,
      OkResponse({{"action", OverlapActionName(outcome->action)},
                  {"task", outcome->task ? nlohmann::json(*outcome->task) : nlohmann::json()}}));
}

}  // namespace tq
