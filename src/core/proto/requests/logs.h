// The "logs" request: a chunk of one attempt's output, or of several tasks' outputs in turn.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"
#include "core/proto/task_selector.h"

namespace tq {

/// Output from `offset`: of one task's attempt (`id`), or of the tasks `select` names in turn.
///
/// One task: the response is {"data", "offset", "eof", "attempt", "state"}; "eof" once that
/// attempt has ended and everything was sent.
///
/// Selected tasks (their latest attempts, as far as written now): {"parts": [{"id", "attempt",
/// "state", "stage_name" (a task with stages: its current stage's, whose command "argv" and
/// "shell" are; else null), "argv", "shell", "offset" (of "data" in the task's output), "data",
/// "done"} or
/// {"id", "error"}...], "next": {"id", "offset"}} where
/// `offset` is in the first task's output and "next" (absent once all was sent) is where to ask
/// again, with the ids from it on; "selected" (the ids, oldest first) comes too when filters
/// chose them. An id the caller cannot see gets a part with its "error"; the rest still come.
struct LogsRequest {
  TaskId id = 0;        ///< the one task; 0: `select` names the tasks
  TaskSelector select;  ///< with filters, tasks in any state unless `states` says
  bool stderr_stream = false;
  bool merged = false;  ///< stdout and stderr in the order written (output_order.h)
  int64_t offset = 0;
  int attempt = 0;  ///< 1-based attempt number; 0: the latest (logs -f then follows new ones)
};
/// A logs request's body read from its frame, every field checked.
Result<LogsRequest> DecodeLogs(const nlohmann::json& body);
/// The body of a logs request's frame.
nlohmann::json EncodeLogs(const LogsRequest& request);

}  // namespace tq
