// A task as responses and `--json` show it.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/task.h"

namespace tq {

/// The task as the protocol and `--json` show it (SPEC 2 field names, RFC 3339 UTC times).
/// Environment values are never included; "attempt_log" holds the newest kMaxAttemptLog
/// attempts ("attempts" counts them all), so one task always fits a frame.
nlohmann::json TaskToJson(const Task& task);
/// How a task stands, in brief: {"id", "state", "reason", "exit_code", "signal"}.
nlohmann::json TaskSummaryJson(const Task& task);

}  // namespace tq
