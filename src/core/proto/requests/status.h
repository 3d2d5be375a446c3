// The "status" request: one task with its attempts.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// One task with its attempts. Response: {"task": {...}}, with "waiting" as list has it and
/// "env_names": the names of the environment it runs with (its values only when asked). For a
/// group's id (SPEC 12): {"group": {"id", "state", "total", "shards": [each one's summary with
/// "index" and "attempts"]}}.
struct StatusRequest {
  TaskId id = 0;
  bool env = false;  ///< also "env": its entries, NAME=VALUE, values and all
};
/// A status request's body read from its frame, every field checked.
Result<StatusRequest> DecodeStatus(const nlohmann::json& body);
/// The body of a status request's frame.
nlohmann::json EncodeStatus(const StatusRequest& request);

}  // namespace tq
