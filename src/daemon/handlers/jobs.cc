// `tq jobs` and `tq jobs show NAME`: the jobs in force, a page at a time, with the load errors.
#include "core/model/limits.h"
#include "core/proto/job_json.h"
#include "daemon/handlers/handlers.h"
#include "daemon/scheduler.h"

namespace tq {

void HandleJobs(Daemon& d, ConnId conn, const Owner&, const JobsRequest& r) {
  Scheduler& scheduler = d.scheduler();
  size_t bytes = 0;
  nlohmann::json head = {{"errors", LoadErrorsJson(scheduler.Errors(), bytes)}};
  head["errors_left_out"] = scheduler.Errors().size() - head["errors"].size();
  std::vector<std::string> jobs;
  bool more = false;
  if (!r.name.empty()) {
    Result<JobInfo> job = scheduler.Job(r.name);
    if (!job.ok()) {
      d.server().Send(conn, ErrorResponse(job.status()));
      return;
    }
    jobs.push_back(WireText(JobInfoToJson(*job)));
  } else {
    // Pages continue after a name: Jobs() gives them in name order. Each job is encoded once,
    // on its own: 10,000 jobs never become one big document.
    for (const JobInfo& info : scheduler.Jobs()) {
      if (!r.after.empty() && info.def.name <= r.after) continue;
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
  d.server().SendText(conn, OkResponseText(std::move(head), "jobs", jobs));
}

}  // namespace tq
