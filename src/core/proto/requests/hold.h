// The "hold" request: keep pending tasks from starting, or let them start again (SPEC 10,
// `tq hold` and `tq release`).
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/task_selector.h"

namespace tq {

/// Hold the pending tasks `select` names (ids, or filters over pending tasks), or with `release`
/// let held ones start again. Response: {"ids": those it changed}; a task named by id that is
/// not pending is refused naming "state", and nothing changes.
struct HoldRequest {
  TaskSelector select;
  bool release = false;
};
/// A hold request's body read from its frame, every field checked.
Result<HoldRequest> DecodeHold(const nlohmann::json& body);
/// The body of a hold request's frame.
nlohmann::json EncodeHold(const HoldRequest& request);

}  // namespace tq
