// The "queue" request: look at or change queues at run time.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/priority_mix.h"
#include "core/model/status.h"

namespace tq {

/// Look at or change queues at run time: action "list", "add" (a new queue, with any of
/// `concurrency` and `priority_mix`), "pause", "resume", "set" (with `concurrency`, 0 to clear,
/// and/or `priority_mix`) or "delete". Only an existing queue (named in tqd.toml, added, or
/// created by a submit) can be changed; add refuses one that exists; delete refuses a queue
/// tqd.toml names or one with pending or running tasks. Response: {"queues": [{"name",
/// "paused", "concurrency", "priority_mix", "running", "counted_apart"}], "more"}: at most
/// kMaxQueueList queues, by name; "more" says some were left out. "counted_apart" is false for a
/// queue whose tasks tq stats counts under "(other)" (one tqd.toml does not name).
struct QueueRequest {
  std::string action = "list";
  std::string name;
  std::optional<int> concurrency;
  std::optional<PriorityMix> priority_mix;
};
/// A queue request's body read from its frame, every field checked.
Result<QueueRequest> DecodeQueue(const nlohmann::json& body);
/// The body of a queue request's frame.
nlohmann::json EncodeQueue(const QueueRequest& request);

}  // namespace tq
