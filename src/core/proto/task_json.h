// A task as responses and `--json` show it.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/task.h"

namespace tq {

/// The task as the protocol and `--json` show it (SPEC 2 field names, RFC 3339 UTC times).
/// Environment values are never included; "attempt_log" holds the newest kMaxAttemptLog
/// attempts ("attempts" counts them all), so one task always fits a frame.
/// A task with stages also has "stage" ({"index", "name"}: its current one) and "stages" (each
/// one's index, name, state, command, timeout, retry settings, attempts and last exit code); a
/// shard (SPEC 12) has "shard" ({"group", "index", "total"}).
nlohmann::json TaskToJson(const Task& task);
/// How a task stands, in brief: {"id", "state", "reason", "exit_code", "signal"}, and "stage"
/// ({"index", "name"}) for a task with stages.
nlohmann::json TaskSummaryJson(const Task& task);

}  // namespace tq
