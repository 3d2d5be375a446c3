// The "wait" request: wait until tasks end.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// Stream: one {"task": {...}} frame per task as it becomes terminal, then {"end": true}.
struct WaitRequest {
  std::vector<TaskId> ids;
};
/// A wait request's body read from its frame, every field checked.
Result<WaitRequest> DecodeWait(const nlohmann::json& body);
/// The body of a wait request's frame.
nlohmann::json EncodeWait(const WaitRequest& request);

}  // namespace tq
