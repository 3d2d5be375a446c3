// `tq jobs enable|disable NAME`: whether a job fires, persisted across restarts.
#include "core/proto/job_json.h"
#include "daemon/cron/scheduler.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleJobEnable(Daemon& d, ConnId conn, const Owner& peer, const JobEnableRequest& r) {
  Scheduler& scheduler = d.scheduler();
  Result<JobInfo> job = [&]() -> Result<JobInfo> {
    const Result<JobInfo> visible = VisibleJob(d, peer, r.name);
    if (!visible.ok()) return visible.status();
    const std::string& name = visible->def.name;
    if (Status st = scheduler.SetEnabled(name, r.enabled); !st.ok()) return st;
    return scheduler.Job(name);
  }();
  if (!job.ok()) {
    d.server().Send(conn, ErrorResponse(job.status()));
    return;
  }
  d.server().Send(conn, OkResponse({{"job", JobInfoToJson(*job)}}));
}

}  // namespace tq
