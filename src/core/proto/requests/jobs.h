// The "jobs" request: the cron jobs in force and the job files' load errors (`tq jobs`,
// `tq jobs show NAME`).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// The jobs in force, by name, or only the one named. Response: {"jobs": [...] (each as
/// JobSummaryText writes it, or the one named as JobInfoToJson does), "errors": [...] (the load
/// errors of the last load), "more"}: jobs named after `after`, as many as about kMaxListPageBytes
/// hold; "more" says others follow (ask again with `after` = the last name). A `name` no job has is
/// kNotFound.
struct JobsRequest {
  std::string name;   ///< "" = every job
  std::string after;  ///< "" = from the first job; else only jobs named after it
};
/// A jobs request's body read from its frame, every field checked.
Result<JobsRequest> DecodeJobs(const nlohmann::json& body);
/// The body of a jobs request's frame.
nlohmann::json EncodeJobs(const JobsRequest& request);

/// `name` when it is a job name (ValidJobName), else the refusal naming `field`.
Status CheckJobName(const std::string& name, const char* field);

}  // namespace tq
