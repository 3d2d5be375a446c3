// Cron jobs as `tq jobs`, `tq reload` and their `--json` show them: a job in force with its
// run-time record, a job file's load error, and what a reload did.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/jobs/job_status.h"

namespace tq {

/// What `tq jobs` lists of a job, as wire text (WireText): "name", "file", "line", "schedule",
/// "timezone", "enabled", "disabled", "from_last_good", "next", "last_fired", "last_task",
/// "last_state", "last_reason" and "last_exit_code" (null when unknown).
std::string JobSummaryText(const JobInfo& job);
/// Every field of a job (SPEC 7 key names; durations in ms, times RFC 3339 UTC, bytes as the
/// wire carries them; "stages" an array of {"name", "command" or null, "argv", "timeout_ms",
/// "retry"}, empty for a job without stages) plus "disabled", "from_last_good", "next",
/// "last_fired", "last_task", "last_state", "last_reason" and "last_exit_code" (null when
/// unknown).
nlohmann::json JobInfoToJson(const JobInfo& job);
/// {"file", "line" (null when none), "message"}.
nlohmann::json JobLoadErrorToJson(const JobLoadError& error);
/// A list of load errors as JobLoadErrorToJson shows each.
nlohmann::json JobLoadErrorsToJson(const std::vector<JobLoadError>& errors);
/// {"files", "jobs", "added", "removed", "changed", "errors": [...]}.
nlohmann::json ReloadReportToJson(const ReloadReport& report);

}  // namespace tq
