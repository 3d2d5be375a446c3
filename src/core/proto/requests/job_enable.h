// The "job_enable" request: `tq jobs enable|disable NAME`, persisted in the store.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Enables or disables job `name` (a disabled job does not fire; `tq jobs run` still runs it).
/// Admin only. Response: {"job": the job as JobInfoToJson shows it after the change}.
struct JobEnableRequest {
  std::string name;
  bool enabled = true;
};
/// A job_enable request's body read from its frame, every field checked.
Result<JobEnableRequest> DecodeJobEnable(const nlohmann::json& body);
/// The body of a job_enable request's frame.
nlohmann::json EncodeJobEnable(const JobEnableRequest& request);

}  // namespace tq
