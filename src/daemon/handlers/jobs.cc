// `tq jobs` and `tq jobs show NAME`: the jobs in force, a page at a time, with the load errors.
#include <algorithm>

#include "core/model/limits.h"
#include "core/proto/job_json.h"
#include "daemon/handlers/handlers.h"
#include "daemon/scheduler.h"

namespace tq {

void HandleJobs(Daemon& d, ConnId conn, const Owner&, const JobsRequest& r) {
  Scheduler& scheduler = d.scheduler();
  size_t bytes = 0;
  nlohmann::json errors = LoadErrorsJson(scheduler.Errors(), bytes);
  const size_t errors_left_out = scheduler.Errors().size() - errors.size();
  nlohmann::json jobs = nlohmann::json::array();
  bool more = false;
  if (!r.name.empty()) {
    Result<JobInfo> job = scheduler.Job(r.name);
    if (!job.ok()) {
      d.server().Send(conn, ErrorResponse(job.status()));
      return;
    }
    jobs.push_back(JobInfoToJson(*job));
  } else {
    std::vector<JobInfo> all = scheduler.Jobs();
    // Pages continue after a name: they need the jobs in name order.
    std::sort(all.begin(), all.end(),
              [](const JobInfo& a, const JobInfo& b) { return a.def.name < b.def.name; });
    for (const JobInfo& info : all) {
      if (!r.after.empty() && info.def.name <= r.after) continue;
      nlohmann::json j = JobInfoToJson(info);
      const size_t size =
          j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size() + 1;
      if (!jobs.empty() && bytes + size > kMaxListPageBytes) {  // the rest in the next page
        more = true;
        break;
      }
      bytes += size;
      jobs.push_back(std::move(j));
    }
  }
  d.server().Send(conn, OkResponse({{"jobs", std::move(jobs)},
                                    {"errors", std::move(errors)},
                                    {"errors_left_out", errors_left_out},
                                    {"more", more}}));
}

}  // namespace tq
