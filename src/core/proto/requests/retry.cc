#include "core/proto/requests/retry.h"

#include <utility>

#include "core/model/quote.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

const std::vector<TaskState>& RetryableStates(bool succeeded) {
  static const std::vector<TaskState> ended{TaskState::kFailed, TaskState::kCancelled};
  static const std::vector<TaskState> also_succeeded{TaskState::kFailed, TaskState::kCancelled,
                                                     TaskState::kSucceeded, TaskState::kExpired};
  return succeeded ? also_succeeded : ended;
}

Result<RetryRequest> DecodeRetry(const json& j) {
  bool succeeded = false;
  if (Status st = Read(j, "succeeded", succeeded, "true or false"); !st.ok()) return st;
  auto select = ReadSelector(j, RetryableStates(succeeded), "retry");
  if (!select.ok()) return select.status();
  bool all_failed = false;
  if (Status st = Read(j, "all_failed", all_failed, "true or false"); !st.ok()) return st;
  if (all_failed && !select->ids.empty())
    return Status::Invalid("ids", "ids: give task ids, or all_failed, not both");
  if (all_failed && select->states.empty()) select->states = {TaskState::kFailed};
  if (Status st = NeedsSome(*select); !st.ok()) return st;
  RetryRequest r;
  r.select = std::move(*select);
  r.succeeded = succeeded;
  for (Status st : {Read(j, "from_start", r.from_start, "true or false"),
                    ReadOptional(j, "from_stage", r.from_stage, "a stage's name")}) {
    if (!st.ok()) return st;
  }
  if (r.from_start && r.from_stage)
    return Status::Invalid("from_stage", "from_stage: give from_start or from_stage, not both");
  if (r.from_stage && !ValidStageName(*r.from_stage))
    return Status::Invalid("from_stage", "from_stage: " + Quote(*r.from_stage) +
                                             " is not a stage name (" + kStageNameHelp + ")");
  return r;
}
json EncodeRetry(const RetryRequest& r) {
  json j = json::object();
  WriteSelector(r.select, j);
  if (r.from_start) j["from_start"] = true;
  if (r.from_stage) j["from_stage"] = *r.from_stage;
  if (r.succeeded) j["succeeded"] = true;
  return j;
}

}  // namespace tq
