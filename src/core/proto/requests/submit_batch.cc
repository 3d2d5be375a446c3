#include "core/proto/requests/submit_batch.h"

#include <utility>

#include "core/proto/batch_limits.h"

namespace tq {

using nlohmann::json;

Result<SubmitBatchRequest> DecodeSubmitBatch(const json& j) {
  auto common = j.find("common");
  auto tasks = j.find("tasks");
  if (common == j.end() || !common->is_object())
    return Status::Invalid("common", "common: expected an object of submit fields");
  if (tasks == j.end() || !tasks->is_array())
    return Status::Invalid("tasks", "tasks: expected an array of submit fields");
  const auto& elements = tasks->get_ref<const json::array_t&>();
  if (Status st = CheckBatchLimits(*common, elements); !st.ok()) return st;
  auto resolved = ResolveBatch(*common, elements);
  if (!resolved.ok()) return resolved.status();
  SubmitBatchRequest b;
  b.resolved = std::move(*resolved);
  return b;
}
json EncodeSubmitBatch(const SubmitBatchRequest& r) {
  return json{{"common", r.common}, {"tasks", r.tasks}};
}

}  // namespace tq
