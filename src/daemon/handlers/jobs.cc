// `tq jobs` and `tq jobs show NAME`: the jobs in force, a page at a time, with the load errors.
#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/proto/job_json.h"
#include "daemon/cron/scheduler.h"
#include "daemon/handlers/handlers.h"

namespace tq {

Result<JobInfo> VisibleJob(RequestContext& ctx, const Owner& peer, const std::string& name) {
  Result<JobInfo> job = ctx.scheduler.Job(name);
  // A name of the caller's own job file may leave out the caller's "USER/" (also when a job of
  // the job files the caller may not see has that name).
  const bool shown = job.ok() && ctx.access.For(peer).Sees(job->owner_uid);
  if (!shown && name.find('/') == std::string::npos) {
    Result<JobInfo> own = ctx.scheduler.Job(peer.name + "/" + name);
    if (own.ok()) job = std::move(own);
  }
  if (job.ok() && !ctx.access.For(peer).Sees(job->owner_uid))
    return Status::NotFound("job " + Quote(name) + " not found");
  return job;
}

void HandleJobs(RequestContext& ctx, ConnId conn, const Owner& peer, const JobsRequest& r) {
  Scheduler& scheduler = ctx.scheduler;
  const Access access = ctx.access.For(peer);
  // The load errors name the files of every user: an admin's to read.
  static const std::vector<JobLoadError> kNone;
  const std::vector<JobLoadError>& errors = access.admin ? scheduler.Errors() : kNone;
  size_t bytes = 0;
  nlohmann::json head = {{"errors", LoadErrorsJson(errors, bytes)}};
  head["errors_left_out"] = errors.size() - head["errors"].size();
  std::vector<std::string> jobs;
  bool more = false;
  if (!r.name.empty()) {
    Result<JobInfo> job = VisibleJob(ctx, peer, r.name);
    if (!job.ok()) {
      ctx.server.Send(conn, ErrorResponse(job.status()));
      return;
    }
    nlohmann::json j = JobInfoToJson(*job);
    if (ctx.config->Shared() && job->last_task) {  // which host ran it (a group has no one host)
      Result<Task> last = ctx.store.GetSummary(*job->last_task);
      if (last.ok() && !last->attempts.empty() && !last->attempts.back().host.empty())
        j["last_host"] = last->attempts.back().host;
    }
    jobs.push_back(WireText(j));
  } else {
    // Pages continue after a name: Jobs() gives them in name order. Each job is encoded once,
    // on its own: 10,000 jobs never become one big document.
    for (const JobInfo& info : scheduler.Jobs()) {
      if (!r.after.empty() && info.def.name <= r.after) continue;
      if (!access.Sees(info.owner_uid)) continue;
      std::string j = JobSummaryText(info);
      if (!jobs.empty() && bytes + j.size() + 1 > kMaxListPageBytes) {  // the rest next page
        more = true;
        break;
      }
      bytes += j.size() + 1;
      jobs.push_back(std::move(j));
    }
  }
  head["more"] = more;
  ctx.server.SendText(conn, OkResponseText(std::move(head), "jobs", jobs));
}

}  // namespace tq
