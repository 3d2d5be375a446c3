// The "submit_batch" request: many tasks in one transaction, all or nothing.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/requests/submit.h"

namespace tq {

/// Create many tasks in one transaction, all or nothing. Each element of `tasks` holds the
/// fields of a submit request that differ from `common` (usually argv or shell). Response:
/// {"ids": [...]}, with "new_queues": [names] when it made queues nobody set up (as submit's
/// "new_queue"); a refusal names the element as "tasks[N]". At most kMaxBatchTasks tasks and
/// kMaxBatchBytes of merged argv, env, shell and stdin per request (see BatchChunkEnds).
struct SubmitBatchRequest {
  nlohmann::json common = nlohmann::json::object();  ///< sent: SubmitToJson of the shared flags
  std::vector<nlohmann::json> tasks;                 ///< sent: each task's own fields
  /// Filled by DecodeRequest (common + each, checked), which leaves `common` and `tasks` empty.
  std::vector<SubmitRequest> resolved;
};
/// A submit_batch request's body read from its frame, every field checked.
Result<SubmitBatchRequest> DecodeSubmitBatch(const nlohmann::json& body);
/// The body of a submit_batch request's frame.
nlohmann::json EncodeSubmitBatch(const SubmitBatchRequest& request);

}  // namespace tq
