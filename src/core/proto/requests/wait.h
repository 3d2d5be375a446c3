// The "wait" request: wait until tasks end.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/task_selector.h"

namespace tq {

/// Wait for the tasks `select` names: ids, or filters over tasks in any state. Stream: with
/// filters, first {"selected": [ids, oldest first]}; then one {"task": {...}} frame per task as
/// it becomes terminal, then {"end": true}.
struct WaitRequest {
  TaskSelector select;
};
/// A wait request's body read from its frame, every field checked.
Result<WaitRequest> DecodeWait(const nlohmann::json& body);
/// The body of a wait request's frame.
nlohmann::json EncodeWait(const WaitRequest& request);

}  // namespace tq
