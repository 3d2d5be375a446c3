// The "cancel" request: cancel tasks.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/task_selector.h"

namespace tq {

/// Cancel the tasks `select` names: ids, or filters over pending and running tasks. The
/// response {"tasks": [TaskSummaryJson...]} comes once all of them are terminal (a summary
/// each, so kMaxWaitIds of them fit one frame). With `progress`, a frame
/// {"stopping": N, "grace_ms": G} comes first when N of them are running and get TERM now.
struct CancelRequest {
  TaskSelector select;
  bool progress = false;  ///< the client tells a person what it waits for
};
/// The states a cancel by filters acts on: pending and running.
const std::vector<TaskState>& CancellableStates();
/// A cancel request's body read from its frame, every field checked.
Result<CancelRequest> DecodeCancel(const nlohmann::json& body);
/// The body of a cancel request's frame.
nlohmann::json EncodeCancel(const CancelRequest& request);

}  // namespace tq
