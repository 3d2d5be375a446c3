// The "update" request: change a pending task (SPEC 10, `tq update`).
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task_changes.h"

namespace tq {

/// Make `changes` to pending task `id`. On the wire the changes carry submit's names
/// ("priority", "queue", "labels", "not_before_ms", "timeout_ms", "retries"), each checked as a
/// submit's is. Response: {"task": the task as changed}, with "new_queue": true as submit has
/// it; a task that is not pending is refused naming "state".
struct UpdateRequest {
  TaskId id = 0;
  TaskChanges changes;
};
/// An update request's body read from its frame, every field checked; at least one change.
Result<UpdateRequest> DecodeUpdate(const nlohmann::json& body);
/// The body of an update request's frame.
nlohmann::json EncodeUpdate(const UpdateRequest& request);

}  // namespace tq
