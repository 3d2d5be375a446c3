// The "queue" request: look at or change queues at run time.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Look at or change queues at run time: action "list", "pause", "resume", "set" (with
/// `concurrency`, 0 to clear) or "delete". Only an existing queue (named in tqd.toml or created
/// by a submit) can be changed; delete refuses a queue tqd.toml names or one with pending or
/// running tasks. Response: {"queues": [{"name", "paused", "concurrency", "running"}], "more"}:
/// at most kMaxQueueList queues, by name; "more" says some were left out.
struct QueueRequest {
  std::string action = "list";
  std::string name;
  std::optional<int> concurrency;
};
/// A queue request's body read from its frame, every field checked.
Result<QueueRequest> DecodeQueue(const nlohmann::json& body);
/// The body of a queue request's frame.
nlohmann::json EncodeQueue(const QueueRequest& request);

}  // namespace tq
