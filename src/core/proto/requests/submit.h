// The "submit" request: one task, with the retry settings that override its queue's. Its wire
// form is also the "common" part and each element of a submit_batch request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/retry_overrides.h"
#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// Create a task. Response: {"id": N}, with "new_queue": true when its queue is one nobody made
/// (not "default", not in tqd.toml, unknown to the store until now); a refusal by a newer version
/// is error "superseded" with the newer task's id in "id". With "shards": N, a group of N tasks
/// (SPEC 12): {"id": GROUP, "shards": [their ids, by index]}.
struct SubmitRequest {
  TaskSpec spec;
  RetryOverrides retry;
  bool supersede_running = false;  ///< also cancel a running older version of the key
  int shards = 0;                  ///< 0: one task; 1..kMaxShards: a group of that many shards
};
/// A submit request's body read from its frame, every field checked (see submit_spec.h).
Result<SubmitRequest> DecodeSubmit(const nlohmann::json& body);
/// The wire form of a submit request (also the "common" part of a batch).
nlohmann::json SubmitToJson(const SubmitRequest& request);
/// The fields of a submit request's wire form: every key SubmitToJson may write.
const std::vector<std::string>& SubmitFields();

}  // namespace tq
