// The "clean" request: remove finished tasks and their output now (SPEC 10).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/task_selector.h"

namespace tq {

/// Remove the finished tasks `select` names (by default the caller's succeeded ones), with
/// their output, when they finished at least `older_than_ms` ago. Pending and running tasks are
/// never touched. Response: {"removed": N, "output_bytes": bytes of output freed}.
struct CleanRequest {
  TaskSelector select;
  int64_t older_than_ms = 0;
};
/// The states clean may act on: the terminal ones.
const std::vector<TaskState>& CleanableStates();
/// A clean request's body read from its frame, every field checked.
Result<CleanRequest> DecodeClean(const nlohmann::json& body);
/// The body of a clean request's frame.
nlohmann::json EncodeClean(const CleanRequest& request);

}  // namespace tq
