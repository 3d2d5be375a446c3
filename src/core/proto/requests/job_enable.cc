#include "core/proto/requests/job_enable.h"

#include "core/proto/json_read.h"
#include "core/proto/requests/jobs.h"

namespace tq {

using nlohmann::json;

Result<JobEnableRequest> DecodeJobEnable(const json& j) {
  JobEnableRequest r;
  for (Status st :
       {Read(j, "name", r.name, "a job name"), Read(j, "enabled", r.enabled, "a boolean")})
    if (!st.ok()) return st;
  if (Status st = CheckJobName(r.name, "name"); !st.ok()) return st;
  return r;
}
json EncodeJobEnable(const JobEnableRequest& r) {
  return json{{"name", r.name}, {"enabled", r.enabled}};
}

}  // namespace tq
