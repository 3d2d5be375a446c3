#include "core/proto/requests/clean.h"

#include <string>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

const std::vector<TaskState>& CleanableStates() {
  static const std::vector<TaskState> states{TaskState::kSucceeded, TaskState::kFailed,
                                             TaskState::kCancelled, TaskState::kExpired};
  return states;
}

Result<CleanRequest> DecodeClean(const json& j) {
  CleanRequest r;
  auto select = ReadSelector(j, CleanableStates(), "clean");
  if (!select.ok()) return select.status();
  r.select = std::move(*select);
  if (Status st = Read(j, "older_than_ms", r.older_than_ms, "milliseconds"); !st.ok()) return st;
  if (r.older_than_ms < 0)
    return Status::Invalid("older_than_ms",
                           "older_than_ms: " + std::to_string(r.older_than_ms) + " must be >= 0");
  return r;
}

json EncodeClean(const CleanRequest& r) {
  json j = json::object();
  WriteSelector(r.select, j);
  if (r.older_than_ms > 0) j["older_than_ms"] = r.older_than_ms;
  return j;
}

}  // namespace tq
