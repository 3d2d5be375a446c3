// `tq jobs enable|disable NAME`: whether a job fires, persisted across restarts.
#include "core/proto/job_json.h"
#include "daemon/cron/scheduler.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleJobEnable(RequestContext& ctx, ConnId conn, const Owner& peer,
                     const JobEnableRequest& r) {
  Scheduler& scheduler = ctx.scheduler;
  Result<JobInfo> job = [&]() -> Result<JobInfo> {
    const Result<JobInfo> visible = VisibleJob(ctx, peer, r.name);
    if (!visible.ok()) return visible.status();
    const std::string& name = visible->def.name;
    if (Status st = scheduler.SetEnabled(name, r.enabled); !st.ok()) return st;
    return scheduler.Job(name);
  }();
  if (!job.ok()) {
    ctx.server.Send(conn, ErrorResponse(job.status()));
    return;
  }
  ctx.server.Send(conn, OkResponse({{"job", JobInfoToJson(*job)}}));
}

}  // namespace tq
