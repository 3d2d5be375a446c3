// The "cancel" request: cancel tasks.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// Cancel tasks; the response {"tasks": [TaskSummaryJson...]} comes once all of them are
/// terminal (a summary each, so kMaxWaitIds of them fit one frame). With `progress`, a frame
/// {"stopping": N, "grace_ms": G} comes first when N of them are running and get TERM now.
struct CancelRequest {
  std::vector<TaskId> ids;
  bool progress = false;  ///< the client tells a person what it waits for
};
/// A cancel request's body read from its frame, every field checked.
Result<CancelRequest> DecodeCancel(const nlohmann::json& body);
/// The body of a cancel request's frame.
nlohmann::json EncodeCancel(const CancelRequest& request);

}  // namespace tq
