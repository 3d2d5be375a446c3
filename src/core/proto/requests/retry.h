// The "retry" request: re-queue failed or cancelled tasks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// Re-queue failed or cancelled tasks: `ids`, or every failed one (of `queue`) with
/// `all_failed`. Response: {"ids": [...re-queued]}.
struct RetryRequest {
  std::vector<TaskId> ids;
  bool all_failed = false;
  std::optional<std::string> queue;
};
/// A retry request's body read from its frame, every field checked.
Result<RetryRequest> DecodeRetry(const nlohmann::json& body);
/// The body of a retry request's frame.
nlohmann::json EncodeRetry(const RetryRequest& request);

}  // namespace tq
