#include "core/proto/requests/retry.h"

#include <utility>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

const std::vector<TaskState>& RetryableStates() {
  static const std::vector<TaskState> states{TaskState::kFailed, TaskState::kCancelled};
  return states;
}

Result<RetryRequest> DecodeRetry(const json& j) {
  auto select = ReadSelector(j, RetryableStates(), "retry");
  if (!select.ok()) return select.status();
  bool all_failed = false;
  if (Status st = Read(j, "all_failed", all_failed, "true or false"); !st.ok()) return st;
  if (all_failed && !select->ids.empty())
    return Status::Invalid("ids", "ids: give task ids, or all_failed, not both");
  if (all_failed && select->states.empty()) select->states = {TaskState::kFailed};
  if (Status st = NeedsSome(*select); !st.ok()) return st;
  return RetryRequest{std::move(*select)};
}
json EncodeRetry(const RetryRequest& r) {
  json j = json::object();
  WriteSelector(r.select, j);
  return j;
}

}  // namespace tq
