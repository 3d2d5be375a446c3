// The "status" request: one task with its attempts.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// One task with its attempts. Response: {"task": {...}}, with "waiting" as list has it.
struct StatusRequest {
  TaskId id = 0;
};
/// A status request's body read from its frame, every field checked.
Result<StatusRequest> DecodeStatus(const nlohmann::json& body);
/// The body of a status request's frame.
nlohmann::json EncodeStatus(const StatusRequest& request);

}  // namespace tq
