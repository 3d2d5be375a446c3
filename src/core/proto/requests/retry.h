// The "retry" request: re-queue failed or cancelled tasks (with "succeeded", succeeded ones too).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/task_selector.h"

namespace tq {

/// Re-queue the failed or cancelled tasks `select` names: ids, or filters over failed and
/// cancelled tasks (failed ones when it names no state). The wire's older "all_failed": true
/// (with "queue") is the filter "states": ["failed"]. Response: {"ids": [...re-queued]}.
/// A task with stages resumes at the stage where it stopped, unless "from_start": true or
/// "from_stage": NAME says where. With "succeeded": true, succeeded and expired tasks are run
/// again too (a task with stages from its first stage); filters then match succeeded and
/// expired tasks when they name no state.
struct RetryRequest {
  TaskSelector select;
  /// Where a task with stages starts again (SPEC 13): "from_start" at its first stage,
  /// "from_stage" at the stage of that name; neither, at the stage where it stopped.
  bool from_start = false;
  std::optional<std::string> from_stage;
  /// Succeeded and expired tasks are run again too (`tq retry --succeeded`, as pueue restart).
  bool succeeded = false;
};
/// The states a retry acts on: failed and cancelled, with `succeeded` also succeeded and expired.
const std::vector<TaskState>& RetryableStates(bool succeeded);
/// A retry request's body read from its frame, every field checked.
Result<RetryRequest> DecodeRetry(const nlohmann::json& body);
/// The body of a retry request's frame.
nlohmann::json EncodeRetry(const RetryRequest& request);

}  // namespace tq
