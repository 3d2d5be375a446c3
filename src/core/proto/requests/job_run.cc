#include "core/proto/requests/job_run.h"

#include "core/proto/json_read.h"
#include "core/proto/requests/jobs.h"

namespace tq {

using nlohmann::json;

Result<JobRunRequest> DecodeJobRun(const json& j) {
  JobRunRequest r;
  for (Status st : {Read(j, "name", r.name, "a job name"), Read(j, "force", r.force, "a boolean")})
    if (!st.ok()) return st;
  if (Status st = CheckJobName(r.name, "name"); !st.ok()) return st;
  return r;
}
json EncodeJobRun(const JobRunRequest& r) {
  return json{{"name", r.name}, {"force", r.force}};
}

}  // namespace tq
