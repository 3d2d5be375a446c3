#include "core/proto/requests/status.h"

#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<StatusRequest> DecodeStatus(const json& j) {
  StatusRequest r;
  Status st = Read(j, "id", r.id, "a task id");
  if (!st.ok()) return st;
  return r;
}
json EncodeStatus(const StatusRequest& r) {
  return json{{"id", r.id}};
}

}  // namespace tq
