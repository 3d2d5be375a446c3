#include "core/proto/requests/jobs.h"

#include "core/jobs/job.h"
#include "core/model/quote.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Status CheckJobName(const std::string& name, const char* field) {
  if (ValidJobRef(name)) return Status::Ok();
  return Status::Invalid(field, std::string(field) + ": " + Quote(name) +
                                    " is not a job name (1-64 of A-Z a-z 0-9 _ . -, or USER/NAME "
                                    "for a job of USER's own job file)");
}

Result<JobsRequest> DecodeJobs(const json& j) {
  JobsRequest r;
  for (Status st : {Read(j, "name", r.name, "a job name"), Read(j, "after", r.after, "a job name")})
    if (!st.ok()) return st;
  if (!r.name.empty())
    if (Status st = CheckJobName(r.name, "name"); !st.ok()) return st;
  if (!r.after.empty())
    if (Status st = CheckJobName(r.after, "after"); !st.ok()) return st;
  return r;
}
json EncodeJobs(const JobsRequest& r) {
  json j = json::object();
  if (!r.name.empty()) j["name"] = r.name;
  if (!r.after.empty()) j["after"] = r.after;
  return j;
}

}  // namespace tq
