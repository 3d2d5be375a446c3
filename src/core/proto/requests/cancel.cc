#include "core/proto/requests/cancel.h"

#include <utility>

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

const std::vector<TaskState>& CancellableStates() {
  static const std::vector<TaskState> states{TaskState::kPending, TaskState::kRunning};
  return states;
}

Result<CancelRequest> DecodeCancel(const json& j) {
  auto select = ReadSelector(j, CancellableStates(), "cancel");
  if (!select.ok()) return select.status();
  if (Status st = NeedsSome(*select); !st.ok()) return st;
  CancelRequest r{std::move(*select)};
  if (Status st = Read(j, "progress", r.progress, "true or false"); !st.ok()) return st;
  return r;
}
json EncodeCancel(const CancelRequest& r) {
  json j = json::object();
  WriteSelector(r.select, j);
  if (r.progress) j["progress"] = true;
  return j;
}

}  // namespace tq
