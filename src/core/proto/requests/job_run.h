// The "job_run" request: `tq jobs run NAME [--force]`, a run of a job now.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// A run of job `name` now, obeying its overlap unless `force`. Admin only. Response:
/// {"action": "create" | "skip" | "coalesce" | "replace", "task": the new run's id, or null when
/// none was created}.
struct JobRunRequest {
  std::string name;
  bool force = false;
};
/// A job_run request's body read from its frame, every field checked.
Result<JobRunRequest> DecodeJobRun(const nlohmann::json& body);
/// The body of a job_run request's frame.
nlohmann::json EncodeJobRun(const JobRunRequest& request);

}  // namespace tq
